import { type ChildProcess, execFile, spawn } from 'node:child_process'
import { readdirSync, readFileSync, realpathSync } from 'node:fs'
import { join, relative } from 'node:path'
import { describe, expect, onTestFinished, test } from 'vitest'
import { exitCodeDescriptions } from '../src/cli/exit-codes.js'
import { SpecMessage } from '../src/domain/outcomes.js'
import { eventually } from './callbacks/receiver.js'
import { documents } from './docs/examples.js'
import { freePort, pay, ROOT, tempDir } from './helpers.js'

const readme = readFileSync(join(ROOT, 'README.md'), 'utf8')

test('CI runs the README test command verbatim', () => {
  const command = /```sh\n(npm ci && npm test)\b/.exec(readme)?.[1]
  expect(command).toBe('npm ci && npm test')
  const ci = readFileSync(join(ROOT, '.ci', 'run'), 'utf8')
  expect(ci.split('\n')).toContain(command)
})

test('the exit code tables, in the README and its reference page, are the one in src/cli/exit-codes.ts', () => {
  const reference = readFileSync(join(ROOT, 'docs', 'reference', 'exit-codes.md'), 'utf8')
  for (const section of [readme.split('## Exit codes\n')[1]!.split('\n#')[0]!, reference]) {
    const rows = [...section.matchAll(/^\| (\d+) \| (.+) \|$/gm)].map((m) => [Number(m[1]), m[2]])
    expect(Object.fromEntries(rows)).toEqual(exitCodeDescriptions)
  }
})

test('every command is documented in the guides or the reference pages', () => {
  const docs = documents().map((file) => readFileSync(join(ROOT, file), 'utf8')).join('\n')
  const dir = join(ROOT, 'commands')
  const walk = (d: string): string[] =>
    readdirSync(d, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(join(d, e.name)) : [join(d, e.name)]))
  const ids = walk(dir)
    .filter((f) => f.endsWith('.ts'))
    .map((f) => relative(dir, f).replace(/\.ts$/, '').split('/').join(' ').replace(/ index$/, ''))
  expect(ids.length).toBeGreaterThan(20)
  for (const id of ids) expect(docs, `pay ${id}`).toContain(`pay ${id}`)
})

test("the spec's messages appear in the HTTP API page exactly as the server sends them", () => {
  const api = readFileSync(join(ROOT, 'docs', 'reference', 'api.md'), 'utf8')
  for (const message of Object.values(SpecMessage)) expect(api).toContain(message)
})

describe('Quick start: the walkthrough runs as written after the set-up', () => {
  // The set-up and the first payment: from "Quick start" to the guides.
  const section = readme.split('## Quick start\n')[1]!.split('\n## Guides\n')[0]!
  const blocks = [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!)
  /** The trackId and refNumber the README shows, stood for by what the commands print. */
  const SHOWN_TRACK_ID = 'Xq2w7Zb1Vh0Kc9LmN3pR4s'

  /** The line that puts the clone's own `pay` (linked by npm ci) on the PATH of a terminal. */
  const ON_PATH = 'export PATH="$PWD/node_modules/.bin:$PATH"'

  test('the set-up is `npm ci && npm start`; each terminal of the walkthrough puts the clone\'s own `pay` on its PATH, then writes `pay`', () => {
    expect(blocks[0]).toMatch(/^npm ci && npm start\b/)
    const commands = blocks.slice(2).flatMap((b) => b.split('\n')).filter((l) => /^\S/.test(l) && !l.startsWith('#'))
    expect(commands.length).toBeGreaterThan(5)
    for (const command of commands) expect(command).toMatch(/^(pay |export PATH=)/)
    for (const block of blocks.slice(2, 4)) expect(block.split('\n')[0]).toBe(ON_PATH)
    expect(commands.some((c) => c.startsWith('pay trigger paid '))).toBe(true)
  })

  test('`pay` on that PATH is the package\'s own bin, linked by npm ci: nothing to fetch or install', async () => {
    expect(realpathSync(join(ROOT, 'node_modules', '.bin', 'pay'))).toBe(realpathSync(join(ROOT, 'bin', 'run.js')))
  })

  test('every `pay` line, in order, with the output the README shows', { timeout: 180_000 }, async () => {
    // The set-up's `npm start`, on free ports with a data file of its own (npm ci has run: this is its test suite).
    const dir = await tempDir()
    const sandboxPort = await freePort()
    const listenPort = await freePort()
    const url = `http://127.0.0.1:${sandboxPort}`
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      // A terminal's PATH: without the node_modules/.bin folders the test runner put on it.
      PATH: (process.env.PATH ?? '').split(':').filter((p) => !p.endsWith('node_modules/.bin')).join(':'),
      NO_COLOR: '1',
      CI: '1',
      PAY_SANDBOX_URL: url,
      PAY_SANDBOX_DATA: join(dir, 'data.json'),
      // No browser: `pay dashboard` prints the URL.
      DISPLAY: '',
      WAYLAND_DISPLAY: '',
      BROWSER: '',
    }
    const background: ChildProcess[] = []
    const start = (command: string) => {
      const child = spawn('sh', ['-c', command], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true })
      background.push(child)
      let out = ''
      child.stdout!.on('data', (c: Buffer) => (out += c.toString()))
      child.stderr!.on('data', (c: Buffer) => (out += c.toString()))
      return { child, output: () => out }
    }
    onTestFinished(() => {
      for (const child of background) {
        try {
          if (child.exitCode === null && child.signalCode === null) process.kill(-child.pid!, 'SIGKILL')
        } catch {
          // gone already
        }
      }
    })
    const setup = start('npm start')
    const ready = await pay(['sandbox', 'wait', '--timeout', '60s'], { env: { PAY_SANDBOX_URL: url }, timeoutMs: 70_000 })
    expect(ready.code, setup.output()).toBe(0)

    let trackId: string | undefined
    /** The README's text with this run's values: ports, trackId; durations and refNumbers as patterns. */
    const localize = (text: string) =>
      text.replaceAll('http://127.0.0.1:8787', url).replace(/(:|--port )3000\b/g, `$1${listenPort}`).replaceAll(SHOWN_TRACK_ID, trackId ?? SHOWN_TRACK_ID)
    const shownLine = (text: string) =>
      new RegExp(
        localize(text)
          .trim()
          .replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
          .replace(/ in [\d\\.]+ ms/g, ' in [\\d.]+ ms')
          .replace(/refNumber \d{12}/g, 'refNumber \\d{12}')
          .replaceAll(trackId ?? SHOWN_TRACK_ID, '\\S+')
          .replace(/\s+/g, '\\s+'),
      )

    let listener: { child: ChildProcess; output: () => string } | undefined
    for (const block of blocks.slice(2)) {
      const lines = block.split('\n')
      for (let i = 0; i < lines.length; i++) {
        const line = lines[i]!
        if (line === ON_PATH) {
          // As a terminal of the clone runs it.
          env.PATH = await new Promise<string>((done, fail) =>
            execFile('sh', ['-c', `${line}; printf %s "$PATH"`], { cwd: ROOT, env }, (error, stdout) => (error ? fail(error) : done(stdout))),
          )
          continue
        }
        if (!line.startsWith('pay ')) continue
        const shown = lines.slice(i + 1).filter((_, j, rest) => rest.slice(0, j + 1).every((l) => l.startsWith('#  '))).map((l) => l.slice(1))
        const command = localize(line.replace(/\s+#.*$/, ''))
        if (/ callback listen /.test(command)) {
          listener = start(command)
          await eventually(() => (shown.every((s) => shownLine(s).test(listener!.output())) ? true : undefined), 20_000)
          continue
        }
        if (/ --follow\b/.test(command)) {
          const follow = start(command)
          await eventually(() => (/POST \/api\/v1\/request/.test(follow.output()) ? true : undefined), 20_000)
          // Ctrl-C at a terminal: SIGINT to the whole process group, the shell included; it ends the command.
          const ended = new Promise((r) => follow.child.once('exit', r))
          process.kill(-follow.child.pid!, 'SIGINT')
          await ended
          expect(follow.output()).not.toMatch(/Error/)
          continue
        }
        const r = await new Promise<{ code: number; out: string }>((done) =>
          execFile('sh', ['-c', command], { cwd: ROOT, env, timeout: 60_000 }, (error, stdout, stderr) =>
            done({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, out: stdout + stderr }),
          ),
        )
        expect(r.code, `${command}\n${r.out}`).toBe(0)
        trackId = /trackId\s+(\S+)/.exec(r.out)?.[1] ?? trackId
        for (const s of shown) expect(r.out, command).toMatch(shownLine(s))
      }
    }
    // The second terminal saw the notifications.
    expect(listener?.output()).toMatch(/POST \/callback\s+answered 200/)
    expect((await pay(['sandbox', 'stop'], { env: { PAY_SANDBOX_URL: url } })).code).toBe(0)
  })
})
