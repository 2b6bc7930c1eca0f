import { type ChildProcess, spawn } from 'node:child_process'
import { connect, createServer, type Server, type Socket } from 'node:net'
import { join } from 'node:path'
import { describe, expect, onTestFinished, test } from 'vitest'
import { SandboxClient, startSandbox } from '../../src/index.js'
import { BIN, exited, freePort, pay, ROOT, sandbox, tempDir } from '../helpers.js'
import { killed, startRunning } from '../reliability/proc.js'

/**
 * `pay logs tail …` as a process, its stdout read line by line as it comes. `pause()` stops reading it: the pipe fills
 * and the command's writes wait, as behind a pager nobody scrolls.
 */
function tail(args: string[]): {
  child: ChildProcess
  lines: string[]
  stderr: () => string
  line: (match: (l: string) => boolean) => Promise<string>
  pause: () => void
  resume: () => void
} {
  const child = spawn(process.execPath, [BIN, 'logs', 'tail', ...args], { cwd: ROOT, env: { ...process.env, NO_COLOR: '1', CI: '1' }, stdio: ['ignore', 'pipe', 'pipe'] })
  onTestFinished(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
  })
  const lines: string[] = []
  let rest = ''
  let err = ''
  child.stdout!.on('data', (c: Buffer) => {
    const parts = (rest + c.toString()).split('\n')
    rest = parts.pop() ?? ''
    lines.push(...parts)
  })
  child.stderr!.on('data', (c: Buffer) => (err += c.toString()))
  const line = async (match: (l: string) => boolean) => {
    await expect.poll(() => lines.find(match), { timeout: 10_000, interval: 20 }).toBeDefined()
    return lines.find(match)!
  }
  return { child, lines, stderr: () => err, line, pause: () => child.stdout!.pause(), resume: () => child.stdout!.resume() }
}

/** A TCP proxy to `target` that can be taken down (open connections cut, new ones refused) and brought back on its port. */
async function proxy(target: string): Promise<{ url: string; down: () => Promise<void>; up: () => Promise<void> }> {
  const to = new URL(target)
  const port = await freePort()
  const sockets = new Set<Socket>()
  let server: Server | undefined
  const track = (socket: Socket) => {
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
    socket.on('error', () => socket.destroy())
  }
  const up = () =>
    new Promise<void>((resolve) => {
      server = createServer((client) => {
        const upstream = connect(Number(to.port), to.hostname)
        track(client)
        track(upstream)
        client.on('close', () => upstream.destroy())
        upstream.on('close', () => client.destroy())
        client.pipe(upstream).pipe(client)
      })
      server.listen(port, '127.0.0.1', () => resolve())
    })
  const down = () =>
    new Promise<void>((resolve) => {
      server!.close(() => resolve())
      for (const socket of sockets) socket.destroy()
    })
  await up()
  onTestFinished(() => (server?.listening ? down() : undefined))
  return { url: `http://127.0.0.1:${port}`, down, up }
}

describe('pay logs tail', () => {
  test('--follow --json: one JSON object a line as requests are answered, control characters inert; exit 0 when the sandbox stops', async () => {
    const sb = await startSandbox()
    let stopped = false
    onTestFinished(() => (stopped ? undefined : sb.stop()))
    const created = await sb.client.createPayment({ merchant: 'sandbox', amount: 5, callbackUrl: 'http://127.0.0.1:9/cb' })
    if (created.result !== 100) throw new Error(JSON.stringify(created))
    const t = tail(['--follow', '--json', '--limit', '1', '--url', sb.url])
    const first = JSON.parse(await t.line((l) => l.includes('/api/v1/request'))) as Record<string, unknown>
    expect(first).toMatchObject({ method: 'POST', path: '/api/v1/request', status: 200, result: 100, trackId: created.trackId })

    await sb.client.verifyPayment({ merchant: 'sandbox', trackId: created.trackId })
    const verified = JSON.parse(await t.line((l) => l.includes('/api/v1/verify'))) as Record<string, unknown>
    expect(verified).toMatchObject({ path: '/api/v1/verify', result: 202, trackId: created.trackId, body: expect.stringContaining('"merchant":"sandbox"') })

    await sb.client.verifyPayment({ merchant: 'sandbox', trackId: 'evil\u001b[2J\u009b31m\u202e' })
    const evil = await t.line((l) => l.includes('evil'))
    expect(evil).toContain('"trackId":"evil\\u001b[2J\\u009b31m\\u202e"')
    expect(evil).not.toMatch(/[\u001b\u009b\u202e]/)

    // A trackId longer than the log keeps is shown cut, with its whole size.
    await sb.client.verifyPayment({ merchant: 'sandbox', trackId: `long${'x'.repeat(999 * 1024)}` })
    const long = JSON.parse(await t.line((l) => l.includes('"trackId":"longxxx'))) as Record<string, unknown>
    expect(long).toMatchObject({ trackId: `long${'x'.repeat(252)}`, truncated: { trackId: 999 * 1024 + 4 }, bodyTruncated: true })

    await sb.stop()
    stopped = true
    expect(await exited(t.child)).toBe(0)
    expect(t.stderr()).toContain(`The sandbox at ${sb.url} stopped.`)
    // Every line is one whole JSON object, the stream's own requests not among them.
    expect(t.lines.length).toBeGreaterThanOrEqual(4)
    for (const l of t.lines) expect(() => JSON.parse(l), l).not.toThrow()
    expect(t.lines.some((l) => l.includes('/_sandbox/requests'))).toBe(false)
  })

  test('--filter keeps the matching requests, lines are inert; exit 3 when the sandbox is killed', async () => {
    const server = await startRunning(['--data', join(await tempDir(), 'data.json')])
    const t = tail(['-f', '--limit', '0', '--filter', 'path=/api/v1/verify', '--filter', 'result=203', '--url', server.url])
    const post = (path: string, body: unknown) =>
      fetch(`${server.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
    // Until the follower's stream is open (its own request is not logged), probes may go unseen.
    await expect.poll(async () => (await post('/api/v1/verify', { merchant: 'sandbox', trackId: 'probe' }), t.lines.length), { timeout: 10_000, interval: 200 }).toBeGreaterThan(0)
    const probes = t.lines.length
    const created = (await (await post('/api/v1/request', { merchant: 'sandbox', amount: 5, callbackUrl: 'http://127.0.0.1:9/cb' })).json()) as { trackId: string }
    await post('/api/v1/verify', { merchant: 'sandbox', trackId: created.trackId })
    await post('/api/v1/verify', { merchant: 'sandbox', trackId: 'evil\u001b]52;c;aGk=\u0007' })
    const shown = await t.line((l) => l.includes('evil'))
    expect(shown).toMatch(/^\d\d:\d\d:\d\d\.\d{3} POST \/api\/v1\/verify 200 result=203 trackId=evil\\x1b\]52;c;aGk=\\x07 \d+\.\dms$/)
    // Only 203s of verify: not the create, not the 202.
    expect(t.lines.slice(probes).filter((l) => !l.includes('trackId=probe'))).toEqual([shown])

    await killed(server.child, 'SIGKILL')
    expect(await exited(t.child)).toBe(3)
    expect(t.stderr()).toContain(`Error: the sandbox at ${server.url} went away without stopping gracefully (ECONNREFUSED; tried again for 5 s)`)
  })

  test('--follow behind a reader slower than the requests: the sandbox waits, a JSON line says what its log let go, following goes on', async () => {
    const sb = await startSandbox({ requestLog: { capacity: 100 } })
    let stopped = false
    onTestFinished(() => (stopped ? undefined : sb.stop()))
    const t = tail(['--follow', '--json', '--limit', '0', '--url', sb.url])
    // Until the follower's stream is open (its own request is not logged), probes may go unseen.
    await expect.poll(async () => (await sb.client.verifyPayment({ merchant: 'sandbox', trackId: 'probe' }), t.lines.length), { timeout: 10_000, interval: 200 }).toBeGreaterThan(0)
    t.pause()
    // More than the pipes and sockets on the way hold (a few MB), then more than the log keeps.
    const client = new SandboxClient(sb.url, { keepAlive: true })
    const pad = 'p'.repeat(2000)
    try {
      for (let i = 0; i < 5000; i += 50) {
        await Promise.all(
          Array.from({ length: 50 }, (_, j) => client.raw({ method: 'POST', path: `/api/v1/verify?pad=${pad}`, body: { merchant: 'sandbox', trackId: `flood-${i + j}`, pad } })),
        )
      }
      await client.verifyPayment({ merchant: 'sandbox', trackId: 'after-the-flood' })
    } finally {
      client.close()
    }
    t.resume()
    await t.line((l) => l.includes('after-the-flood'))
    const read = t.lines.map((l) => JSON.parse(l) as { seq?: number; type?: string; from?: number; to?: number; requests?: number; trackId?: string })
    const skipped = read.filter((r) => r.type === 'skipped')
    expect(skipped.length).toBeGreaterThan(0)
    // In order, each request once, and each skip exactly the seqs not shown.
    let next = read.find((r) => r.seq !== undefined)!.seq!
    for (const r of read) {
      if (r.type === 'skipped') {
        expect(r).toMatchObject({ from: next, requests: r.to! - r.from! + 1 })
        next = r.to! + 1
      } else {
        expect(r.seq).toBe(next)
        next++
      }
    }
    expect(read.at(-1)!.trackId).toBe('after-the-flood')
    expect(t.stderr()).toBe('')

    await sb.stop()
    stopped = true
    expect(await exited(t.child)).toBe(0)
  }, 60_000)

  test('--follow over a connection that is cut: it opens it again where it stopped, says what it skipped, and gives up (exit 3) when the sandbox stays away', async () => {
    const sb = await sandbox({ requestLog: { capacity: 50 } })
    const way = await proxy(sb.url)
    const t = tail(['--follow', '--limit', '0', '--url', way.url])
    const verify = (trackId: string) => sb.client.verifyPayment({ merchant: 'sandbox', trackId })
    await expect.poll(async () => (await verify('probe'), t.lines.length), { timeout: 10_000, interval: 200 }).toBeGreaterThan(0)
    await verify('caught-up')
    await t.line((l) => l.includes('trackId=caught-up '))

    // A short cut: nothing is lost.
    await way.down()
    for (let i = 0; i < 10; i++) await verify(`short-cut-${i}`)
    await way.up()
    await t.line((l) => l.includes('trackId=short-cut-9 '))
    expect(t.lines.filter((l) => l.includes('trackId=short-cut-')).length).toBe(10)
    expect(t.stderr()).toBe('')

    // A cut during which the log lets some go: they are named, the rest shown.
    await way.down()
    for (let i = 0; i < 80; i++) await verify(`long-cut-${i}`)
    await way.up()
    await t.line((l) => l.includes('trackId=long-cut-79 '))
    expect(t.stderr()).toContain("… skipped 30 requests while catching up: the sandbox's log let them go before they could be shown (it keeps the last 50, at most 4 MB)")
    const shown = t.lines.filter((l) => l.includes('trackId=long-cut-')).map((l) => /long-cut-(\d+)/.exec(l)![1])
    expect(shown).toEqual(Array.from({ length: 50 }, (_, i) => String(30 + i)))

    // A text longer than the log keeps is shown cut, with its whole size.
    await verify('y'.repeat(300))
    expect(await t.line((l) => l.includes('trackId=yyy'))).toContain(`trackId=${'y'.repeat(256)}… (300 bytes) `)

    // Gone for good: it tries for a while, then exit 3.
    const gone = Date.now()
    await way.down()
    expect(await exited(t.child)).toBe(3)
    expect(Date.now() - gone).toBeGreaterThanOrEqual(4500)
    expect(t.stderr()).toContain(`Error: the sandbox at ${way.url} went away without stopping gracefully (ECONNREFUSED; tried again for 5 s)`)
  }, 60_000)

  test('without --follow: the latest requests, newest last; Ctrl-C ends a follower with exit 0', async () => {
    const sb = await sandbox()
    for (const amount of [1, 2, 3]) await sb.client.createPayment({ merchant: 'sandbox', amount, callbackUrl: 'http://127.0.0.1:9/cb' })
    const listed = await pay(['logs', 'tail', '--limit', '2', '--url', sb.url])
    expect(listed.code).toBe(0)
    const lines = listed.stdout.trim().split('\n')
    expect(lines).toHaveLength(2)
    expect(lines.every((l) => / POST \/api\/v1\/request 200 result=100 trackId=\S{22} /.test(l))).toBe(true)
    const seq = JSON.parse((await pay(['logs', 'tail', '--json', '--limit', '3', '--url', sb.url])).stdout.trim().split('\n').at(-1)!) as { seq: number }
    expect(seq.seq).toBe(3)

    const t = tail(['--follow', '--limit', '0', '--url', sb.url])
    await sb.client.verifyPayment({ merchant: 'sandbox', trackId: 'x' })
    // The follower's stream may open after the verify: make requests until one is shown.
    await expect
      .poll(async () => {
        await sb.client.verifyPayment({ merchant: 'sandbox', trackId: 'x' })
        return t.lines.length
      }, { timeout: 10_000, interval: 200 })
      .toBeGreaterThan(0)
    t.child.kill('SIGINT')
    expect(await exited(t.child)).toBe(0)
    expect(t.stderr()).toBe('')
  })

  test('a bad --filter is a usage error (exit 2) naming the key and what it takes, before any request', async () => {
    const cases: Array<[string[], string]> = [
      [['--filter', 'stauts=4xx'], '--filter "stauts" is not a filter key (did you mean status?); keys: path, method, status, result, trackId'],
      [['--filter', 'status=abc'], '--filter status must be an HTTP status such as 404, or a class such as 4xx (got "abc")'],
      [['--filter', 'status'], '--filter takes key=value, e.g. status=4xx (got "status")'],
      [['--filter', 'status='], '--filter status= has no value'],
      [['--filter', 'status=4xx', '--filter', 'status=5xx'], '--filter status is given twice'],
      [['--filter', 'path=api/v1'], '--filter path must be a path starting with /'],
    ]
    // No sandbox at this URL: the filter is refused before anything is asked of it (that would be exit 3).
    const runs = await Promise.all(cases.map(([args]) => pay(['logs', 'tail', '-f', ...args, '--url', 'http://127.0.0.1:9'])))
    runs.forEach((r, i) => {
      expect(r.code, cases[i]![1]).toBe(2)
      expect(r.stderr).toContain(cases[i]![1])
    })
    const json = await pay(['logs', 'tail', '--json', '--filter', 'trackid=abc', '--url', 'http://127.0.0.1:9'])
    expect(json.code).toBe(2)
    expect(json.stdout.trim().split('\n')).toHaveLength(1)
    expect(JSON.parse(json.stdout)).toMatchObject({ error: { code: 'usage', exit: 2, message: expect.stringContaining('(did you mean trackId?)') } })
  })

  test('no sandbox at the URL: exit 3', async () => {
    const r = await pay(['logs', 'tail', '--url', 'http://127.0.0.1:9'])
    expect(r.code).toBe(3)
    expect(r.stderr).toContain('no sandbox at http://127.0.0.1:9')
  })
})
