// Makes sure PostgreSQL's server binaries are installed for the team-sandbox tests (Debian's postgresql via apt-get
// as root); does nothing when present. The tests start throwaway clusters of their own with initdb and pg_ctl.
import { execFileSync } from 'node:child_process'
import { existsSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { ensureDebianPackage } from './debian-package.mjs'

/** The folder of initdb and pg_ctl: PAY_POSTGRES_BIN, pg_config's, Debian's newest, or none. */
export function postgresBin() {
  const candidates = []
  if (process.env.PAY_POSTGRES_BIN) candidates.push(process.env.PAY_POSTGRES_BIN)
  try {
    candidates.push(execFileSync('pg_config', ['--bindir'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim())
  } catch {
    // no pg_config
  }
  const debian = '/usr/lib/postgresql'
  if (existsSync(debian)) {
    const versions = readdirSync(debian).filter((v) => /^\d+$/.test(v)).sort((a, b) => Number(b) - Number(a))
    for (const v of versions) candidates.push(join(debian, v, 'bin'))
  }
  return candidates.find((dir) => existsSync(join(dir, 'initdb')) && existsSync(join(dir, 'pg_ctl')))
}

if (import.meta.url === `file://${process.argv[1]}`) {
  ensureDebianPackage({
    pkg: 'postgresql',
    what: 'initdb and pg_ctl',
    purpose: 'for the team sandbox tests',
    present: () => postgresBin() !== undefined,
    howToGet: "PostgreSQL's initdb and pg_ctl not found. Install Debian's postgresql (apt-get install postgresql) or set PAY_POSTGRES_BIN to their folder.",
  })
}
