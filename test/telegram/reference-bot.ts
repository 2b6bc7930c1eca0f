import { type ChildProcess, spawn } from 'node:child_process'
import { join } from 'node:path'
import { expect, onTestFinished } from 'vitest'
import { freePort, ROOT, tempDir } from '../helpers.js'

const REFERENCE_BOT = join(ROOT, 'examples', 'telegram-bot', 'dist', 'bot.js')


/** The reference bot as a user runs it: its own process, configured by environment only. */
export async function runReferenceBot(sandboxUrl: string, token: string, extra: Record<string, string> = {}): Promise<{ child: ChildProcess; output: () => string; ordersFile: string }> {
  const ordersFile = join(await tempDir(), 'orders.json')
  const child = spawn(process.execPath, [REFERENCE_BOT], {
    env: {
      PATH: process.env.PATH ?? '',
      BOT_TOKEN: token,
      TELEGRAM_API_ROOT: `${sandboxUrl}/telegram`,
      PAY_BASE_URL: sandboxUrl,
      PAY_MERCHANT_KEY: 'sandbox',
      PORT: String(await freePort()),
      ORDERS_FILE: ordersFile,
      ...extra,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let out = ''
  child.stdout!.on('data', (c: Buffer) => (out += c.toString()))
  child.stderr!.on('data', (c: Buffer) => (out += c.toString()))
  onTestFinished(async () => {
    if (child.exitCode !== null) return
    const exited = new Promise((r) => child.once('exit', r))
    child.kill('SIGTERM')
    await Promise.race([exited, new Promise((r) => setTimeout(r, 3000))])
    if (child.exitCode === null) child.kill('SIGKILL')
  })
  await expect.poll(() => out, { timeout: 15_000 }).toMatch(/is running/)
  return { child, output: () => out, ordersFile }
}

