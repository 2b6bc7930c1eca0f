// Throwaway PostgreSQL clusters for the tests and the bench: initdb and pg_ctl in a folder, on a free port, as the
// `postgres` user when run as root (the server refuses to run as root). scripts/ensure-postgres.mjs installs them.
import { execFile } from 'node:child_process'
import { chownSync, mkdirSync } from 'node:fs'
import { createServer } from 'node:net'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { postgresBin } from './ensure-postgres.mjs'

const run = promisify(execFile)
const asRoot = typeof process.getuid === 'function' && process.getuid() === 0

function bin(name) {
  const dir = postgresBin()
  if (!dir) throw new Error("PostgreSQL's initdb and pg_ctl are missing: run `node scripts/ensure-postgres.mjs` (npm test does)")
  return join(dir, name)
}

/** Runs a PostgreSQL program, as the `postgres` user when we are root. */
export function pgRun(name, args) {
  const [command, ...rest] = asRoot ? ['runuser', '-u', 'postgres', '--', bin(name), ...args] : [bin(name), ...args]
  return run(command, rest, { timeout: 60_000 })
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address()
      server.close(() => resolve(port))
    })
  })
}

/**
 * Creates and starts a cluster in `dir` (made if missing; its parent must let the postgres user through). `durable`:
 * fsync on, as a real server runs (the bench); off for throwaway test data. Resolves with
 * { dir, port, admin (a URL to its postgres database as the superuser pay), start(), stop(mode) }.
 */
export async function startCluster(dir, { durable = false } = {}) {
  const data = join(dir, 'data')
  mkdirSync(data, { recursive: true })
  if (asRoot) {
    const uid = Number((await run('id', ['-u', 'postgres'])).stdout)
    const gid = Number((await run('id', ['-g', 'postgres'])).stdout)
    chownSync(dir, uid, gid)
    chownSync(data, uid, gid)
  }
  await pgRun('initdb', ['-D', data, '-U', 'pay', '--auth=trust', '--no-sync', '-E', 'UTF8', '--locale=C'])
  const port = await freePort()
  const options = `-p ${port} -k ${data} -c listen_addresses=127.0.0.1 -c max_connections=200${durable ? '' : ' -c fsync=off'}`
  const cluster = {
    dir,
    port,
    admin: `postgres://pay@127.0.0.1:${port}/postgres`,
    start: () => pgRun('pg_ctl', ['start', '-w', '-t', '60', '-D', data, '-l', join(data, 'server.log'), '-o', options]).then(() => {}),
    stop: (mode = 'fast') => pgRun('pg_ctl', ['stop', '-w', '-t', '60', '-D', data, '-m', mode]).then(() => {}, () => {}),
  }
  await cluster.start()
  return cluster
}
