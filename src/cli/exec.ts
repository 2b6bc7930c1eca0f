import { spawn } from 'node:child_process'
import { appendFileSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { constants, tmpdir } from 'node:os'
import { join } from 'node:path'
import chalk from 'chalk'
import { forTerminal } from '../domain/display.js'
import { DEFAULT_HOST, type RunningSandbox, startServer } from '../server/start.js'
import { ExitCode, PayError } from './exit-codes.js'
import { type SandboxConfig, startOptionsOf } from './sandbox-config.js'
import { defaultMerchantKey, installLastResort, readImportFlag, startFailure, stopAndExport, warnExposure } from './serve.js'

/** Signals passed on to the command rather than acted on: the command decides, and the sandbox stops after it. */
const FORWARDED: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP']

/**
 * Runs `command` against a sandbox of its own: started before it (PAY_SANDBOX_URL, PAY_MERCHANT_KEY), stopped and
 * saved after it. Resolves with the exit code to leave with: the command's (128+n for a signal), 127 when it cannot
 * be found, 126 when it cannot be run, 1 when it succeeded but the state could not be saved or exported. The host is
 * 127.0.0.1 unless given (PAY_SANDBOX_URL is not read: the command gets the sandbox's own); without a data file, a
 * temporary one. `logFile`: where the request log goes (none by default).
 */
export async function execWithSandbox(command: string[], config: SandboxConfig, logFile: string | undefined): Promise<number> {
  const options = startOptionsOf(config)
  const host = config.host ?? DEFAULT_HOST
  const allowedHosts = config['allowed-hosts'] ?? []
  const seed = config.import !== undefined ? await readImportFlag(config.import) : undefined
  const toLog = (text: string) => {
    if (logFile !== undefined) appendFileSync(logFile, `${forTerminal(text)}\n`)
  }
  if (logFile !== undefined) {
    try {
      toLog(`pay sandbox exec: ${command.join(' ')}`)
    } catch (error) {
      throw new PayError(`--log: cannot write ${logFile}: ${(error as Error).message}`, ExitCode.usage, { code: 'usage' })
    }
  }
  const temp = config.data === undefined && config.store === undefined ? await mkdtemp(join(tmpdir(), 'pay-sandbox-exec-')) : undefined
  const removeTemp = () => (temp !== undefined ? rm(temp, { recursive: true, force: true }) : Promise.resolve())
  installLastResort()

  let stopping: Promise<boolean> | undefined
  let running: RunningSandbox | undefined
  const stop = () => (stopping ??= running ? stopAndExport(running, config['export-on-exit']) : Promise.resolve(true))
  try {
    running = await startServer({
      ...options,
      port: config.port ?? 0,
      host,
      ...(config.store === undefined ? { dataFile: config.data ?? join(temp!, 'data.json') } : {}),
      ...(seed !== undefined ? { seed } : {}),
      ...(logFile !== undefined ? { log: toLog } : {}),
      // `pay sandbox stop` from the command stops the sandbox; the command runs on.
      onShutdownRequest: () => void stop(),
      warn: (line) => {
        toLog(line)
        process.stderr.write(`${chalk.yellow(forTerminal(line))}\n`)
      },
      logError: (error) => process.stderr.write(`${chalk.red('internal error:')} ${forTerminal((error as Error).stack ?? String(error), { multiline: true })}\n`),
    })
  } catch (error) {
    await removeTemp()
    return startFailure(error)
  }
  warnExposure(host, allowedHosts)
  toLog(`sandbox at ${running.url}, ${config.store ? 'store' : 'data file'} ${running.info.dataFile}`)

  const merchantKey = defaultMerchantKey(running)
  const env = { ...process.env, PAY_SANDBOX_URL: running.url, ...(merchantKey !== undefined ? { PAY_MERCHANT_KEY: merchantKey } : {}) }
  const ended = await runCommand(command, env)
  const saved = await stop()
  await removeTemp()
  if ('problem' in ended) {
    process.stderr.write(`${chalk.red('Error:')} ${forTerminal(ended.problem)}\n`)
    return ended.code
  }
  return ended.code === 0 && !saved ? ExitCode.error : ended.code
}

type Ended = { code: number } | { code: number; problem: string }

/** Runs the command with the terminal's input and output, passing signals on; never rejects. */
function runCommand(command: string[], env: NodeJS.ProcessEnv): Promise<Ended> {
  const [file, ...args] = command as [string, ...string[]]
  return new Promise((resolve) => {
    const child = spawn(file, args, { stdio: 'inherit', env })
    const forward = (signal: NodeJS.Signals) => child.kill(signal)
    for (const signal of FORWARDED) process.on(signal, forward)
    const done = (ended: Ended) => {
      for (const signal of FORWARDED) process.off(signal, forward)
      resolve(ended)
    }
    child.once('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') done({ code: 127, problem: `command not found: ${file}` })
      else if (error.code === 'EACCES') done({ code: 126, problem: `permission denied: ${file} cannot be run` })
      else done({ code: 126, problem: `cannot run ${file}: ${error.message}` })
    })
    child.once('exit', (code, signal) => {
      done({ code: code ?? 128 + (signal !== null ? (constants.signals[signal] ?? 0) : 0) })
    })
  })
}
