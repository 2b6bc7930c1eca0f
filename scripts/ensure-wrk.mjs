// Makes sure wrk (the C load generator `npm run bench` judges the server with) is installed: Debian's package via
// apt-get as root; does nothing when present. Elsewhere it says how to get it, and the bench runs without it.
import { execFileSync } from 'node:child_process'
import { ensureDebianPackage } from './debian-package.mjs'

const present = () => {
  try {
    execFileSync('wrk', ['--version'], { stdio: 'ignore' })
    return true
  } catch (error) {
    // wrk prints its usage and exits 1 on --version: it is there.
    return error.code !== 'ENOENT'
  }
}

ensureDebianPackage({
  pkg: 'wrk',
  what: 'wrk',
  purpose: 'for the benchmark',
  present,
  howToGet: 'wrk not found: install it (apt-get install wrk, brew install wrk) to measure the create→verify goal.',
  missingExit: 0,
})
