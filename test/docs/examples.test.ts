// Every shell command the README and the guides show is run, in order, as a reader would type it: each document
// in a folder of its own (the package installed in node_modules and its `pay` on the PATH, the repository's
// examples and fixtures beside it), against a sandbox on a free port that stands for http://127.0.0.1:8787, with
// free ports for 3000 and up.
import { type ChildProcess, execFile, spawn } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { symlink } from 'node:fs/promises'
import { connect } from 'node:net'
import { join } from 'node:path'
import { describe, expect, onTestFinished, test } from 'vitest'
import { eventually } from '../callbacks/receiver.js'
import { freePort, pay, ROOT, tempDir } from '../helpers.js'
import { documents, shellBlocks, steps } from './examples.js'

/** What the documents show for values a run makes anew: a trackId, and a delivery id (the last one printed). */
const SHOWN_TRACK_ID = 'Xq2w7Zb1Vh0Kc9LmN3pR4s'
const SHOWN_DELIVERY = /dlv_[A-Za-z0-9_-]{12}/g

const docs = documents().map((file) => ({ file, blocks: shellBlocks(readFileSync(join(ROOT, file), 'utf8')) }))

test('the README and the guides show commands, and every shell block is run here or by the tests it names', () => {
  const all = docs.flatMap((d) => d.blocks.map((b) => ({ ...b, file: d.file })))
  expect(all.length).toBeGreaterThan(10)
  for (const block of all) {
    for (const test of block.testedBy) {
      expect(existsSync(join(ROOT, test)), `${block.file}:${block.line} names ${test}`).toBe(true)
      expect(readFileSync(join(ROOT, test), 'utf8'), `${test} reads ${block.file}`).toContain(block.file.split('/').at(-1))
    }
  }
})

function canConnect(port: number): Promise<boolean> {
  return new Promise((done) => {
    const socket = connect(port, '127.0.0.1')
    socket.once('connect', () => done(!!socket.end()))
    socket.once('error', () => done(false))
  })
}

describe.each(docs.filter((d) => d.blocks.some((b) => b.testedBy.length === 0)))('$file', ({ file, blocks }) => {
  test('every command runs as shown', { timeout: 300_000 }, async () => {
    const dir = await tempDir()
    for (const name of ['node_modules', 'examples', 'fixtures']) await symlink(join(ROOT, name), join(dir, name))
    const url = `http://127.0.0.1:${await freePort()}`
    const text = blocks.filter((b) => b.testedBy.length === 0).map((b) => b.text).join('\n')
    const ports = new Map<string, string>()
    for (const [port] of text.matchAll(/\b30\d\d\b/g)) if (!ports.has(port)) ports.set(port, String(await freePort()))
    const env: Record<string, string> = {
      ...(process.env as Record<string, string>),
      // A terminal's PATH with the package's own `pay` on it, as the README says to put it there (and not the test
      // runner's node_modules/.bin folders).
      PATH: [join(dir, 'node_modules', '.bin'), ...(process.env.PATH ?? '').split(':').filter((p) => !p.endsWith('node_modules/.bin'))].join(':'),
      NO_COLOR: '1',
      CI: '1',
      PAY_SANDBOX_URL: url,
      // `npx pay` is the installed package's bin: never a download.
      npm_config_offline: 'true',
      // No browser: `pay dashboard` and `pay open` print the URL.
      DISPLAY: '',
      WAYLAND_DISPLAY: '',
      BROWSER: '',
    }
    const background: ChildProcess[] = []
    onTestFinished(async () => {
      for (const child of background) {
        try {
          if (child.exitCode === null && child.signalCode === null) process.kill(-child.pid!, 'SIGKILL')
        } catch {
          // gone already
        }
      }
      await pay(['sandbox', 'stop', '--if-running', '--url', url])
    })

    let trackId: string | undefined
    let delivery: string | undefined
    const localize = (line: string) => {
      let out = line.replaceAll('http://127.0.0.1:8787', url).replaceAll('http://localhost:8787', url.replace('127.0.0.1', 'localhost'))
      for (const [shown, real] of ports) out = out.replace(new RegExp(`\\b${shown}\\b`, 'g'), real)
      if (trackId) out = out.replaceAll(SHOWN_TRACK_ID, trackId)
      if (delivery) out = out.replace(SHOWN_DELIVERY, delivery)
      return out
    }
    const shownLine = (line: string) =>
      new RegExp(
        localize(line)
          .trim()
          // A time the sandbox stamps stands for any.
          .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/g, '\u0000')
          .replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
          .replaceAll('\u0000', '[0-9:.TZ-]+')
          .replace(/ in [\d\\.]+ ms/g, ' in [\\d.]+ ms')
          .replace(/refNumber \d{12}/g, 'refNumber \\d{12}')
          .replaceAll(trackId ?? SHOWN_TRACK_ID, '\\S+')
          .replace(/dlv_[A-Za-z0-9_-]{12}/g, 'dlv_\\S+')
          .replace(/\s+/g, '\\s+'),
      )

    for (const step of blocks.filter((b) => b.testedBy.length === 0).flatMap((b) => steps(b.text))) {
      const command = localize(step.command)
      const exported = /^export (\w+)=(\S+)$/.exec(command)
      if (exported) {
        env[exported[1]!] = exported[2]!
        continue
      }
      if (step.background) {
        const child = spawn('sh', ['-c', command], { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true })
        background.push(child)
        let out = ''
        child.stdout!.on('data', (c: Buffer) => (out += c.toString()))
        child.stderr!.on('data', (c: Buffer) => (out += c.toString()))
        const port = [...ports.values()].find((p) => command.includes(p))
        await eventually(async () => ((port ? await canConnect(Number(port)) : out !== '') ? true : undefined), 30_000).catch(() => {
          throw new Error(`${file}: \`${step.command}\` did not start:\n${out}`)
        })
        continue
      }
      const r = await new Promise<{ code: number; out: string }>((done) =>
        execFile('sh', ['-c', command], { cwd: dir, env, timeout: 90_000 }, (error, stdout, stderr) =>
          done({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, out: stdout + stderr }),
        ),
      )
      expect(r.code, `${file}: ${step.command}\n${r.out}`).toBe(step.exit)
      for (const s of step.shown) expect(r.out, `${file}: ${step.command}`).toMatch(shownLine(s))
      trackId = /(?:trackId\s+|"trackId":\s*"|\/pay\/)([A-Za-z0-9_-]{22})\b/.exec(r.out)?.[1] ?? trackId
      delivery = [...r.out.matchAll(SHOWN_DELIVERY)].at(-1)?.[0] ?? delivery
    }
  })
})
