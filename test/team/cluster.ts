/**
 * Throwaway PostgreSQL clusters: initdb and pg_ctl in a folder, on a free port, as the `postgres` user when run as
 * root (the server refuses to run as root). Nothing here knows vitest: global-setup.ts uses it too.
 */
import { execFile } from 'node:child_process'
import { chownSync, existsSync, mkdirSync } from 'node:fs'
import { createServer } from 'node:net'
import { join } from 'node:path'
import { promisify } from 'node:util'
// @ts-expect-error: a plain script of the package, without types
import { postgresBin } from '../../scripts/ensure-postgres.mjs'

const run = promisify(execFile)
export interface Cluster {
  dir: string
  port: number
  /** A URL to its `postgres` database, as the superuser `pay`. */
  admin: string
  stop(mode?: 'fast' | 'immediate'): Promise<void>
  start(): Promise<void>
}

function bin(name: string): string {
  const dir = (postgresBin as () => string | undefined)()
  if (!dir) throw new Error("PostgreSQL's initdb and pg_ctl are missing: run `node scripts/ensure-postgres.mjs` (npm test does)")
  return join(dir, name)
}

const asRoot = typeof process.getuid === 'function' && process.getuid() === 0

/** Runs a PostgreSQL program, as the `postgres` user when we are root. */
export function pgRun(name: string, args: string[]): Promise<{ stdout: string; stderr: string }> {
  const [command, ...rest] = asRoot ? ['runuser', '-u', 'postgres', '--', bin(name), ...args] : [bin(name), ...args]
  return run(command!, rest, { timeout: 60_000 })
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0))
    })
  })
}

/** Creates and starts a cluster in `dir` (made if missing). */
export async function startCluster(dir: string): Promise<Cluster> {
  const data = join(dir, 'data')
  mkdirSync(data, { recursive: true })
  if (asRoot) {
    const { stdout } = await run('id', ['-u', 'postgres'])
    const { stdout: group } = await run('id', ['-g', 'postgres'])
    chownSync(dir, Number(stdout), Number(group))
    chownSync(data, Number(stdout), Number(group))
  }
  await pgRun('initdb', ['-D', data, '-U', 'pay', '--auth=trust', '--no-sync', '-E', 'UTF8', '--locale=C'])
  const port = await freePort()
  const cluster: Cluster = {
    dir,
    port,
    admin: `postgres://pay@127.0.0.1:${port}/postgres`,
    start: async () => {
      // Throwaway data: fsync off; the tests kill sandboxes, not the machine.
      await pgRun('pg_ctl', ['start', '-w', '-t', '60', '-D', data, '-l', join(data, 'server.log'), '-o', `-p ${port} -k ${data} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200`])
    },
    stop: async (mode = 'fast') => {
      await pgRun('pg_ctl', ['stop', '-w', '-t', '60', '-D', data, '-m', mode]).catch(() => {})
    },
  }
  await cluster.start()
  return cluster
}


/** Stops the run's shared cluster, if a test started it (global-setup.ts's teardown). */
export async function stopShared(dir: string): Promise<void> {
  if (!existsSync(join(dir, 'port'))) return
  await pgRun('pg_ctl', ['stop', '-w', '-t', '60', '-D', join(dir, 'cluster', 'data'), '-m', 'immediate']).catch(() => {})
}
