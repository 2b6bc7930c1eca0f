import { spawn } from 'node:child_process'
import { closeSync, fstatSync, openSync, readFileSync } from 'node:fs'
import { mkdir } from 'node:fs/promises'
import { dirname, join, resolve } from 'node:path'
import chalk from 'chalk'
import { SandboxClient } from '../client/index.js'
import { ExitCode, type ExitCodeValue, PayError } from './exit-codes.js'
import { fields, line, paint, type Styled } from './format.js'

export interface DetachedStart {
  url: string
  dataFile: string
  pid: number
  merchantKey: string | undefined
  /** File the background sandbox writes its output to. */
  log: string
}

export interface DetachOptions {
  /** Root of the package: the CLI started in the background is its bin/run.js. */
  root: string
  /** The data file; its log is beside it. */
  data: string
  /** The log, when not beside the data file (a team sandbox's instance has none of its own). */
  log?: string
  /** The state is in a team sandbox's store, not in the data file. */
  store?: boolean
  /** The `pay sandbox start` flags of the background process (see configArgs). */
  args: string[]
  /** Environment variables the background process gets besides this one's. */
  env?: Record<string, string>
  /** Human output (silent under --json). */
  say: (text: Styled) => void
  timeoutMs?: number
}

/**
 * Runs `pay sandbox start --json` as a detached process with its output in `<data file>.log`, waits until it
 * answers on its URL, and returns its start record. When the child fails to start, its message and exit code
 * are relayed as a PayError.
 */
export async function startDetached(options: DetachOptions): Promise<DetachedStart> {
  const dataFile = resolve(options.data)
  const log = resolve(options.log ?? `${dataFile}.log`)
  await mkdir(dirname(log), { recursive: true }).catch(() => {})
  await mkdir(dirname(dataFile), { recursive: true }).catch((error: Error) => {
    throw new PayError(`cannot create the folder of data file ${dataFile}: ${error.message}`, ExitCode.startFailed)
  })
  let fd: number
  try {
    fd = openSync(log, 'a')
  } catch (error) {
    throw new PayError(`cannot write the log file ${log}: ${(error as Error).message}`, ExitCode.startFailed)
  }
  const from = fstatSync(fd).size
  const args = [join(options.root, 'bin', 'run.js'), 'sandbox', 'start', '--json', ...options.args]
  const child = spawn(process.execPath, args, {
    detached: true,
    stdio: ['ignore', fd, fd],
    env: { ...process.env, ...options.env, NO_COLOR: '1' },
  })
  closeSync(fd)

  let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined
  let spawnError: Error | undefined
  child.once('exit', (code, signal) => (exit = { code, signal }))
  child.once('error', (error) => (spawnError = error))
  // `from` is a byte offset: slice bytes, then decode.
  const output = () => readFileSync(log).subarray(from).toString('utf8')

  const deadline = Date.now() + (options.timeoutMs ?? 30_000)
  let record: Omit<DetachedStart, 'log'> | undefined
  while (Date.now() < deadline) {
    await sleep(50)
    if (spawnError) throw new PayError(`could not run the sandbox: ${spawnError.message}`, ExitCode.startFailed)
    const text = output()
    record ??= startRecord(text)
    if (record && (await answers(record.url, record.pid))) {
      child.unref()
      options.say(line`${paint(chalk.green, '✔')} Sandbox running in the background`)
      options.say(
        fields([
          ['URL', paint(chalk.cyan, record.url)],
          ['inspector', paint(chalk.cyan, `${record.url}/`)],
          ['pid', record.pid],
          [options.store ? 'store' : 'data file', record.dataFile],
          ['log', log],
          ['merchant key', record.merchantKey],
        ]),
      )
      options.say(paint(chalk.dim, `Stop it with: pay sandbox stop --url ${record.url}`))
      // For scripts: `eval "$(… | grep '^export ')"` points every next command at this sandbox.
      options.say(line`${exportLine('PAY_SANDBOX_URL', record.url)}`)
      return { ...record, log }
    }
    if (exit) {
      const code = exit.code
      const message =
        /^Error: (.+)$/m.exec(text)?.[1] ??
        `the sandbox exited (${code === null ? `signal ${exit.signal}` : `code ${code}`}) before it was ready; see ${log}`
      throw new PayError(message, isExitCode(code) && code !== 0 ? code : ExitCode.startFailed, { code: 'start_failed' })
    }
  }
  child.kill('SIGTERM')
  throw new PayError(`the sandbox did not answer within ${Math.round((options.timeoutMs ?? 30_000) / 1000)}s; see ${log}`, ExitCode.startFailed, {
    code: 'start_timeout',
  })
}

/** `export NAME=value`, the value quoted for a POSIX shell when it holds anything but URL-safe characters. */
export function exportLine(name: string, value: string): string {
  return `export ${name}=${/^[\w@%+=:,./-]+$/.test(value) ? value : `'${value.replaceAll("'", `'\\''`)}'`}`
}

/** The one-line JSON start record `pay sandbox start --json` prints. */
function startRecord(text: string): Omit<DetachedStart, 'log'> | undefined {
  for (const line of text.split('\n')) {
    if (!line.startsWith('{"url"')) continue
    try {
      const r = JSON.parse(line) as Omit<DetachedStart, 'log'>
      if (typeof r.url === 'string' && typeof r.pid === 'number') return r
    } catch {
      // not complete yet
    }
  }
  return undefined
}

async function answers(url: string, pid: number): Promise<boolean> {
  const client = new SandboxClient(url, { operator: true })
  try {
    return (await client.health()).pid === pid
  } catch {
    return false
  } finally {
    client.close()
  }
}

function isExitCode(code: number | null): code is ExitCodeValue {
  return code !== null && Object.values(ExitCode).includes(code as ExitCodeValue)
}

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms))
}
