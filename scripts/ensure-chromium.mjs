// Makes sure Debian's Chromium is installed for the browser tests (apt-get as root); does nothing when present.
import { execFileSync } from 'node:child_process'
import { existsSync } from 'node:fs'

const CHROMIUM = process.env.PAY_CHROMIUM ?? '/usr/bin/chromium'

if (existsSync(CHROMIUM)) process.exit(0)
if (process.platform !== 'linux' || typeof process.getuid !== 'function' || process.getuid() !== 0) {
  console.error(`Chromium not found at ${CHROMIUM}. Install Debian's chromium (apt-get install chromium) or set PAY_CHROMIUM.`)
  process.exit(1)
}
console.error('Installing Debian chromium for the browser tests…')
const run = (args) => execFileSync('apt-get', args, { stdio: ['ignore', 'inherit', 'inherit'], env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } })
run(['update', '-qq'])
run(['install', '-y', '-qq', '--no-install-recommends', 'chromium'])
if (!existsSync(CHROMIUM)) {
  console.error(`apt-get finished but ${CHROMIUM} is still missing`)
  process.exit(1)
}
