// Makes sure Debian's Chromium is installed for the browser tests (apt-get as root); does nothing when present.
import { existsSync } from 'node:fs'
import { ensureDebianPackage } from './debian-package.mjs'

const CHROMIUM = process.env.PAY_CHROMIUM ?? '/usr/bin/chromium'

ensureDebianPackage({
  pkg: 'chromium',
  what: CHROMIUM,
  purpose: 'for the browser tests',
  present: () => existsSync(CHROMIUM),
  howToGet: `Chromium not found at ${CHROMIUM}. Install Debian's chromium (apt-get install chromium) or set PAY_CHROMIUM.`,
})
