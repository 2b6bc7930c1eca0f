import { mkdirSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { ChildProcess } from 'node:child_process'
import { type Browser, type BrowserContext, type BrowserContextOptions, chromium, type Page } from 'playwright-core'
import { afterAll, beforeAll, expect, onTestFinished } from 'vitest'
import { SandboxClient } from '../../src/client/index.js'
import { ROOT, type SandboxProcess, startSandboxProcess } from '../helpers.js'

/** Where browser tests save their screenshots. */
export const OUTPUT = join(ROOT, 'test-output')

/** Debian's Chromium (or PAY_CHROMIUM), headless, without the background traffic a first run makes. */
export function launchChromium(extraArgs: string[] = []): Promise<Browser> {
  mkdirSync(OUTPUT, { recursive: true })
  return chromium.launch({
    executablePath: process.env.PAY_CHROMIUM ?? '/usr/bin/chromium',
    args: [
      '--no-sandbox',
      '--headless',
      '--disable-gpu',
      '--disable-dev-shm-usage',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
      ...extraArgs,
    ],
  })
}

export interface WatchOptions {
  /** Console errors that are the test's point (a refusal the page shows, a hostile page's blocked requests). */
  allowConsole?: RegExp[]
}

/**
 * Fails the running test when a page of `context` (popups included) throws or logs a console error: a script
 * that dies on load, a CSP violation, a failed load.
 */
export function watch(context: BrowserContext, options: WatchOptions = {}): void {
  const problems: string[] = []
  context.on('weberror', (e) => problems.push(`page error on ${e.page()?.url()}: ${e.error().stack ?? e.error().message}`))
  context.on('console', (m) => {
    if (m.type() !== 'error' || options.allowConsole?.some((allowed) => allowed.test(m.text()))) return
    problems.push(`console error on ${m.page()?.url()}: ${m.text()}`)
  })
  onTestFinished(() => expect(problems, 'script and console errors of the pages').toEqual([]))
}

export interface BrowserSuite {
  /** The sandbox as `npm start` runs it. */
  readonly sandbox: Pick<SandboxProcess, 'url' | 'pid' | 'output'> & { client: SandboxClient }
  readonly browser: Browser
  /** A browser context, closed when the test finishes, whose pages fail the test on a script or console error. */
  context(options?: BrowserContextOptions & WatchOptions): Promise<BrowserContext>
  /** A page of its own such context. */
  page(options?: BrowserContextOptions & WatchOptions): Promise<Page>
}

/**
 * One Chromium and one sandbox for a test file: the sandbox is the built CLI (`bin/run.js sandbox start`, as
 * `npm start` runs it) as a process, with `args` and a temporary data file; both stop after the file.
 */
export function browserSuite(options: { args?: string[]; chromiumArgs?: string[] } = {}): BrowserSuite {
  let browser: Browser | undefined
  let sandbox: SandboxProcess | undefined
  let child: ChildProcess | undefined
  let client: SandboxClient | undefined
  let dir: string | undefined
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'pay-browser-'))
    const started = startSandboxProcess(['--data', join(dir, 'data.json'), ...(options.args ?? [])], { onSpawn: (c) => (child = c) })
    const [b, s] = await Promise.all([launchChromium(options.chromiumArgs), started])
    browser = b
    sandbox = s
    client = new SandboxClient(s.url)
  })
  afterAll(async () => {
    await browser?.close()
    if (sandbox) await sandbox.stop()
    else child?.kill('SIGKILL')
    if (dir) await rm(dir, { recursive: true, force: true })
  })
  const ready = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('the browser suite is not started (use it inside tests)')
    return value
  }
  const suite: BrowserSuite = {
    get sandbox() {
      const s = ready(sandbox)
      return { url: s.url, pid: s.pid, output: s.output, client: ready(client) }
    },
    get browser() {
      return ready(browser)
    },
    async context({ allowConsole, ...contextOptions } = {}) {
      const context = await ready(browser).newContext(contextOptions)
      onTestFinished(() => context.close())
      watch(context, allowConsole ? { allowConsole } : {})
      return context
    },
    async page(options = {}) {
      return (await suite.context(options)).newPage()
    },
  }
  return suite
}
