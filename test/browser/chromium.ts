import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { type Browser, chromium } from 'playwright-core'
import { ROOT } from '../helpers.js'

/** Where browser tests save their screenshots. */
export const OUTPUT = join(ROOT, 'test-output')

/** Debian's Chromium (or PAY_CHROMIUM), headless, with nothing running in the background. */
export function launchChromium(): Promise<Browser> {
  mkdirSync(OUTPUT, { recursive: true })
  return chromium.launch({
    executablePath: process.env.PAY_CHROMIUM ?? '/usr/bin/chromium',
    args: ['--no-sandbox', '--headless', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  })
}
