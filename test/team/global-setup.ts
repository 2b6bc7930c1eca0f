import { chmodSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { TestProject } from 'vitest/node'
import { stopShared } from './cluster.js'

/** The folder of the run's shared PostgreSQL cluster; it is started by the first test that needs one (postgres.ts). */
export default function setup(project: TestProject): () => Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'pay-pg-run-'))
  // The cluster inside runs as the postgres user when the tests run as root: it must get through.
  chmodSync(dir, 0o755)
  project.provide('postgresDir', dir)
  return async () => {
    await stopShared(dir)
    rmSync(dir, { recursive: true, force: true })
  }
}
