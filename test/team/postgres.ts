/**
 * PostgreSQL for the team-sandbox tests. One cluster is shared by the run (its folder comes from global-setup.ts;
 * the first test that needs it starts it, whichever worker it runs in), and each test gets a database of its own
 * on it. A test that stops or restarts PostgreSQL starts a cluster of its own.
 */
import { closeSync, existsSync, openSync, readFileSync, writeFileSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pg from 'pg'
import { inject, onTestFinished } from 'vitest'
import { type Cluster, startCluster } from './cluster.js'

export type { Cluster } from './cluster.js'

declare module 'vitest' {
  export interface ProvidedContext {
    postgresDir: string
  }
}

/** The run's shared cluster: started by the first caller of any worker, the others wait for it. */
async function sharedCluster(): Promise<Cluster> {
  const dir = inject('postgresDir')
  const ready = join(dir, 'port')
  const failed = join(dir, 'failed')
  let mine = false
  try {
    closeSync(openSync(join(dir, 'starting'), 'wx'))
    mine = true
  } catch {
    // another worker starts it
  }
  if (mine) {
    try {
      const cluster = await startCluster(join(dir, 'cluster'))
      writeFileSync(ready, String(cluster.port))
    } catch (error) {
      writeFileSync(failed, (error as Error).message)
      throw error
    }
  }
  const deadline = Date.now() + 120_000
  while (!existsSync(ready)) {
    if (existsSync(failed)) throw new Error(`the run's PostgreSQL did not start: ${readFileSync(failed, 'utf8')}`)
    if (Date.now() > deadline) throw new Error("the run's PostgreSQL did not start within 120 s")
    await new Promise((r) => setTimeout(r, 100))
  }
  const port = Number(readFileSync(ready, 'utf8'))
  return { dir, port, admin: `postgres://pay@127.0.0.1:${port}/postgres`, start: async () => {}, stop: async () => {} }
}

let shared: Promise<Cluster> | undefined

/** A URL to a new, empty database of the run's shared cluster (dropped when the test finishes). */
export async function freshDatabase(cluster?: Cluster): Promise<string> {
  const on = cluster ?? (await (shared ??= sharedCluster()))
  const name = `pay_${Math.random().toString(36).slice(2, 10)}`
  await adminQuery(on.admin, `CREATE DATABASE ${name}`)
  onTestFinished(async () => {
    await adminQuery(on.admin, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => {})
  })
  return `postgres://pay:secret-${name}@127.0.0.1:${on.port}/${name}`
}

/** A cluster of the test's own (to stop and restart), removed when the test finishes. */
export async function ownCluster(): Promise<Cluster> {
  const dir = await mkdtemp(join(tmpdir(), 'pay-pg-own-'))
  const cluster = await startCluster(dir)
  onTestFinished(async () => {
    await cluster.stop('immediate')
    await rm(dir, { recursive: true, force: true })
  })
  return cluster
}

/** Runs one statement as the superuser. */
export async function adminQuery(url: string, sql: string, values: unknown[] = []): Promise<pg.QueryResult> {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    return await client.query(sql, values)
  } finally {
    await client.end()
  }
}

