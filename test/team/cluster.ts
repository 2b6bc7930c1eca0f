/**
 * Throwaway PostgreSQL clusters (scripts/postgres-cluster.mjs, shared with the bench), typed for the tests. Nothing
 * here knows vitest: global-setup.ts uses it too.
 */
import { existsSync } from 'node:fs'
import { join } from 'node:path'
// @ts-expect-error: a plain script of the package, without types
import { pgRun as run, startCluster as start } from '../../scripts/postgres-cluster.mjs'

export interface Cluster {
  dir: string
  port: number
  /** A URL to its `postgres` database, as the superuser `pay`. */
  admin: string
  stop(mode?: 'fast' | 'immediate'): Promise<void>
  start(): Promise<void>
}

/** Runs a PostgreSQL program, as the `postgres` user when we are root. */
export const pgRun = run as (name: string, args: string[]) => Promise<{ stdout: string; stderr: string }>

/** Creates and starts a cluster in `dir` (made if missing), fsync off: the tests kill sandboxes, not the machine. */
export const startCluster = start as (dir: string) => Promise<Cluster>

/** Stops the run's shared cluster, if a test started it (global-setup.ts's teardown). */
export async function stopShared(dir: string): Promise<void> {
  if (!existsSync(join(dir, 'port'))) return
  await pgRun('pg_ctl', ['stop', '-w', '-t', '60', '-D', join(dir, 'cluster', 'data'), '-m', 'immediate']).catch(() => {})
}
