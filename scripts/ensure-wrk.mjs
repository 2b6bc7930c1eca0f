// Makes sure wrk (the C load generator `npm run bench` judges the server with) is installed: Debian's package via
// apt-get as root; does nothing when present. Elsewhere it says how to get it, and the bench runs without it.
import { execFileSync } from 'node:child_process'

const present = () => {
  try {
    execFileSync('wrk', ['--version'], { stdio: 'ignore' })
    return true
  } catch (error) {
    // wrk prints its usage and exits 1 on --version: it is there.
    return error.code !== 'ENOENT'
  }
}

if (present()) process.exit(0)
if (process.platform !== 'linux' || typeof process.getuid !== 'function' || process.getuid() !== 0) {
  console.error('wrk not found: install it (apt-get install wrk, brew install wrk) to measure the create→verify goal.')
  process.exit(0)
}
console.error('Installing Debian wrk for the benchmark…')
const run = (args) => execFileSync('apt-get', args, { stdio: ['ignore', 'inherit', 'inherit'], env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } })
run(['update', '-qq'])
run(['install', '-y', '-qq', '--no-install-recommends', 'wrk'])
if (!present()) {
  console.error('apt-get finished but wrk is still missing')
  process.exit(1)
}
