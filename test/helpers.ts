import { execFile, spawn, type ChildProcess } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { expect, onTestFinished } from 'vitest'
import { type Sandbox, type SandboxOptions, startSandbox } from '../src/index.js'

export const ROOT = resolve(import.meta.dirname, '..')
export const BIN = join(ROOT, 'bin', 'run.js')

/** A real sandbox on a free port with a temporary data file, stopped when the test finishes. */
export async function sandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  const sb = await startSandbox(options)
  onTestFinished(() => sb.stop())
  return sb
}

/** A temporary folder removed when the test finishes. */
export async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'pay-test-'))
  onTestFinished(() => rm(dir, { recursive: true, force: true }))
  return dir
}

export interface CliResult {
  code: number
  stdout: string
  stderr: string
}

/** Runs the real `pay` CLI (bin/run.js, compiled dist, or `bin` of another copy) as a process, with no TTY. */
export function pay(args: string[], options: { env?: Record<string, string>; cwd?: string; timeoutMs?: number; bin?: string } = {}): Promise<CliResult> {
  return new Promise((done) => {
    execFile(
      process.execPath,
      [options.bin ?? BIN, ...args],
      {
        cwd: options.cwd ?? ROOT,
        env: { ...process.env, NO_COLOR: '1', CI: '1', ...options.env },
        timeout: options.timeoutMs ?? 20_000,
      },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0
        done({ code, stdout, stderr })
      },
    )
  })
}

export interface SandboxProcess {
  child: ChildProcess
  url: string
  dataFile: string
  /** The sandbox's own pid (under `npx`, not the child's). */
  pid: number
  /** What it printed so far, stdout then stderr (one line per request on stderr). */
  output: () => string
  /** SIGTERM, as `pay sandbox stop` would; SIGKILL after 10 s. Resolves once the process has exited. */
  stop: () => Promise<void>
}

/**
 * `pay sandbox start --port 0 --json` as a process, once its JSON start record is out: the built CLI
 * (bin/run.js), or `command` (e.g. `['npx', 'pay']` in a project that installed the package).
 */
export async function startSandboxProcess(
  args: string[],
  options: { cwd?: string; env?: Record<string, string>; command?: string[]; onSpawn?: (child: ChildProcess) => void } = {},
): Promise<SandboxProcess> {
  const [command, ...prefix] = options.command ?? [process.execPath, BIN]
  const child = spawn(command!, [...prefix, 'sandbox', 'start', '--port', '0', '--json', ...args], {
    cwd: options.cwd ?? ROOT,
    env: { ...process.env, NO_COLOR: '1', CI: '1', ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let out = ''
  let err = ''
  child.stderr!.on('data', (c: Buffer) => (err += c.toString()))
  options.onSpawn?.(child)
  const record = await new Promise<{ url: string; dataFile: string; pid: number }>((resolveStart, reject) => {
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString()
      const line = out.split('\n').find((l) => l.startsWith('{'))
      if (line) {
        try {
          resolveStart(JSON.parse(line))
        } catch {
          // wait for the rest of the line
        }
      }
    })
    child.once('exit', (code) => reject(new Error(`sandbox exited with ${code} before starting:\n${err}`)))
  })
  const stop = async (): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return
    const gone = exited(child)
    try {
      process.kill(record.pid, 'SIGTERM')
    } catch {
      child.kill('SIGTERM')
    }
    const timer = setTimeout(() => {
      for (const pid of [record.pid, child.pid]) {
        try {
          if (pid !== undefined) process.kill(pid, 'SIGKILL')
        } catch {
          // gone already
        }
      }
    }, 10_000)
    await gone
    clearTimeout(timer)
  }
  return { child, ...record, output: () => out + err, stop }
}

/** Spawns `pay sandbox start` as a process and waits for its JSON start record. Killed when the test finishes. */
export async function spawnSandbox(
  args: string[],
  options: { cwd?: string; env?: Record<string, string> } = {},
): Promise<{ child: ChildProcess; url: string; dataFile: string; pid: number; output: () => string }> {
  const onSpawn = (child: ChildProcess) =>
    onTestFinished(() => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
    })
  const { stop: _stop, ...started } = await startSandboxProcess(args, { ...options, onSpawn })
  return started
}

/** Resolves when the process exits, with its code. */
export function exited(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode)
  return new Promise((r) => child.once('exit', (code) => r(code)))
}

/** Whether a process with this pid is alive. */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

/** A TCP port that was free a moment ago on 127.0.0.1. */
export async function freePort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  const port = (server.address() as { port: number }).port
  await new Promise<void>((r) => server.close(() => r()))
  return port
}

/**
 * A Node script as its user runs it: its own process, configured by `env` only (and PATH); its stdout and stderr
 * gathered; resolved once its output matches `ready`; stopped (SIGTERM, then SIGKILL after 3 s) when the test ends.
 */
export async function runScript(script: string, env: Record<string, string>, ready: RegExp): Promise<{ child: ChildProcess; output: () => string }> {
  const child = spawn(process.execPath, [script], { env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] })
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
  await expect.poll(() => out, { timeout: 15_000 }).toMatch(ready)
  return { child, output: () => out }
}
