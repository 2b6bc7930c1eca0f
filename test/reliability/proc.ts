import { type ChildProcess, spawn } from 'node:child_process'
import { onTestFinished } from 'vitest'
import { BIN, ROOT } from '../helpers.js'

export interface SandboxProcess {
  child: ChildProcess
  url: string
  pid: number
  stderr: () => string
}

export interface StartOutcome {
  code: number | null
  stdout: string
  stderr: string
}

/**
 * Runs `pay sandbox start --port 0 --json --quiet` as a process; `shell` runs it under `sh -c`, after the given
 * shell commands (e.g. `ulimit -f 64`). Resolves with the running process once its start record is printed, or
 * with the exit outcome if it stops first. Killed when the test finishes.
 */
export function startProcess(
  args: string[],
  options: { shell?: string } = {},
): Promise<{ running: SandboxProcess } | { exited: StartOutcome }> {
  const argv = [BIN, 'sandbox', 'start', '--port', '0', '--json', '--quiet', ...args]
  const child = options.shell
    ? spawn('sh', ['-c', `${options.shell}; exec "$0" "$@"`, process.execPath, ...argv], { cwd: ROOT, env: childEnv(), stdio: ['ignore', 'pipe', 'pipe'] })
    : spawn(process.execPath, argv, { cwd: ROOT, env: childEnv(), stdio: ['ignore', 'pipe', 'pipe'] })
  onTestFinished(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
  })
  let out = ''
  let err = ''
  child.stderr!.on('data', (c: Buffer) => (err += c.toString()))
  return new Promise((resolve) => {
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString()
      let record: { url?: string; pid?: number } | undefined
      try {
        record = JSON.parse(out) as { url?: string; pid?: number }
      } catch {
        return
      }
      if (typeof record.url === 'string') {
        resolve({ running: { child, url: record.url, pid: record.pid ?? child.pid!, stderr: () => err } })
      }
    })
    child.once('close', (code) => resolve({ exited: { code, stdout: out, stderr: err } }))
  })
}

/** Starts a sandbox process that must come up. */
export async function startRunning(args: string[], options: { shell?: string } = {}): Promise<SandboxProcess> {
  const started = await startProcess(args, options)
  if ('exited' in started) throw new Error(`sandbox exited with ${started.exited.code}:\n${started.exited.stderr}`)
  return started.running
}

/** Starts a sandbox process that must refuse to start. */
export async function startRefused(args: string[], options: { shell?: string } = {}): Promise<StartOutcome> {
  const started = await startProcess(args, options)
  if ('running' in started) throw new Error(`sandbox started at ${started.running.url} but was expected to refuse`)
  return started.exited
}

export function killed(child: ChildProcess, signal: NodeJS.Signals = 'SIGKILL'): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode)
  const done = new Promise<number | null>((r) => child.once('exit', (code) => r(code)))
  child.kill(signal)
  return done
}

function childEnv(): NodeJS.ProcessEnv {
  return { ...process.env, NO_COLOR: '1', CI: '1' }
}
