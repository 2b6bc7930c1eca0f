// What the test and bench scripts share to make sure a tool from Debian is installed: apt-get, as root, when it is
// missing. Elsewhere (another system, not root) it says how to get it and exits with `missingExit`.
import { execFileSync } from 'node:child_process'

/**
 * @param {object} tool
 * @param {string} tool.pkg Debian's package
 * @param {string} tool.what what is missing, as the messages name it
 * @param {string} tool.purpose what it is installed for ("for the browser tests")
 * @param {() => boolean} tool.present
 * @param {string} tool.howToGet the message when it cannot be installed here
 * @param {number} [tool.missingExit] the exit code then: 1 when nothing can run without it, 0 when it is optional
 */
export function ensureDebianPackage({ pkg, what, purpose, present, howToGet, missingExit = 1 }) {
  if (present()) return
  if (process.platform !== 'linux' || typeof process.getuid !== 'function' || process.getuid() !== 0) {
    console.error(howToGet)
    process.exit(missingExit)
  }
  console.error(`Installing Debian ${pkg} ${purpose}…`)
  const run = (args) => execFileSync('apt-get', args, { stdio: ['ignore', 'inherit', 'inherit'], env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } })
  run(['update', '-qq'])
  run(['install', '-y', '-qq', '--no-install-recommends', pkg])
  if (!present()) {
    console.error(`apt-get finished but ${what} ${/ and /.test(what) ? 'are' : 'is'} still missing`)
    process.exit(1)
  }
}
