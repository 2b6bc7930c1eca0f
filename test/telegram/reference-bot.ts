import type { ChildProcess } from 'node:child_process'
import { join } from 'node:path'
import { freePort, ROOT, runScript, tempDir } from '../helpers.js'

const REFERENCE_BOT = join(ROOT, 'examples', 'telegram-bot', 'dist', 'bot.js')


/** The reference bot as a user runs it: its own process, configured by environment only. */
export async function runReferenceBot(sandboxUrl: string, token: string, extra: Record<string, string> = {}): Promise<{ child: ChildProcess; output: () => string; ordersFile: string }> {
  const ordersFile = join(await tempDir(), 'orders.json')
  const bot = await runScript(
    REFERENCE_BOT,
    {
      BOT_TOKEN: token,
      TELEGRAM_API_ROOT: `${sandboxUrl}/telegram`,
      PAY_BASE_URL: sandboxUrl,
      PAY_MERCHANT_KEY: 'sandbox',
      PORT: String(await freePort()),
      ORDERS_FILE: ordersFile,
      ...extra,
    },
    /is running/,
  )
  return { ...bot, ordersFile }
}

