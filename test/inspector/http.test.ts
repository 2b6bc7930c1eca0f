import { createHash } from 'node:crypto'
import { request } from 'node:http'
import { connect } from 'node:net'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { type RequestEntry, type Sandbox, SandboxClient, startSandbox } from '../../src/index.js'
import { receiver } from '../callbacks/receiver.js'

const HOSTILE = `<script>alert("pwn")</script>"'><img src=x onerror=alert(1)>&amp;{{7*7}}`
/** Markup that must never reach a page raw. */
const RAW = ['<script>alert(', '<img src=x', '<svg/onload', '<b>+1</b>', '</script><script>alert']

let sb: Sandbox
beforeAll(async () => {
  sb = await startSandbox({ callbacks: { retries: 0, timeoutMs: 2000 } })
})
afterAll(async () => {
  await sb?.stop()
})

const page = (path: string) => sb.client.raw({ method: 'GET', path, headers: { accept: 'text/html' } })
type LogPage = { requests: RequestEntry[]; capacity: number; maxBytes: number; oldestSeq: number; latestSeq: number }
const log = async (query = '') => (await sb.client.raw({ method: 'GET', path: `/_sandbox/requests${query}` })).json as LogPage

async function create(fields: Partial<{ merchant: string; amount: number; callbackUrl: string; returnUrl: string; description: string; mobile: string }> = {}): Promise<string> {
  const body = await sb.client.createPayment({ merchant: 'sandbox', amount: 25.5, callbackUrl: 'http://127.0.0.1:9/cb', ...fields })
  if (body.result !== 100) throw new Error(JSON.stringify(body))
  return body.trackId
}

/** A GET of this exact path, not normalized by URL (which would percent-encode <, > and quotes). */
function rawGet(path: string): Promise<number> {
  const url = new URL(sb.url)
  return new Promise((resolve, reject) => {
    const req = request({ host: url.hostname, port: url.port, path, method: 'GET' }, (res) => {
      res.resume()
      res.on('end', () => resolve(res.statusCode ?? 0))
    })
    req.on('error', reject)
    req.end()
  })
}

/** The page's inline script, hashed as the CSP names it. */
function scriptHash(html: string): string | undefined {
  const script = /<script>([\s\S]*?)<\/script>/.exec(html)?.[1]
  return script === undefined ? undefined : `'sha256-${createHash('sha256').update(script).digest('base64')}'`
}

describe('the inspector over HTTP', () => {
  test('/ is the inspector; /dashboard leads to the payments list with its query; every page is self-contained under the CSP', async () => {
    const trackId = await create({ description: 'first mug' })
    const root = await page('/')
    expect(root.status).toBe(200)
    expect(root.text).toContain('<h1>Sandbox inspector</h1>')
    expect(root.text).toContain(`${sb.url}/api/v1/request`)
    expect(root.text).toContain('href="/chat"')
    // The API reference is served, so it is linked.
    expect(root.text).toContain('href="/docs"')

    const old = await sb.client.raw({ method: 'GET', path: '/dashboard?merchant=sandbox&status=pending&limit=5' })
    expect(old.status).toBe(302)
    expect(old.headers.location).toBe('/inspect/payments?merchant=sandbox&status=pending&limit=5')
    expect((await sb.client.raw({ method: 'GET', path: '/dashboard' })).headers.location).toBe('/inspect/payments')

    for (const [path, status] of [
      ['/', 200],
      ['/inspect/payments', 200],
      ['/inspect/payments?merchant=sandbox&status=pending&limit=5&q=mug', 200],
      [`/inspect/payments/${trackId}`, 200],
      ['/inspect/requests?path=/api&status=2xx', 200],
      ['/inspect/merchants', 200],
      ['/inspect/payments/no-such-payment', 404],
      ['/inspect/payments?status=refunded', 400],
      ['/inspect/requests?status=abc', 400],
    ] as const) {
      const res = await page(path)
      expect(res.status, path).toBe(status)
      expect(res.headers['content-type'], path).toBe('text/html; charset=utf-8')
      const csp = String(res.headers['content-security-policy'])
      expect(csp, path).toMatch(/^default-src 'none'; style-src 'sha256-[^']+'; script-src 'sha256-[^']+'; connect-src 'self'; img-src 'self' data:; form-action 'self'; base-uri 'none'; frame-ancestors 'none'$/)
      expect(csp, path).toContain(`script-src ${scriptHash(res.text)}`)
      expect(res.headers['x-content-type-options']).toBe('nosniff')
      // Nothing from elsewhere: no external script, style, image or font.
      expect(res.text, path).not.toMatch(/\b(?:src|href)="(?:https?:)?\/\//)
    }
    const bad = await page('/inspect/payments?status=refunded')
    expect(bad.text).toContain('status must be equal to one of the allowed values')
    const badFilter = await page('/inspect/requests?status=abc')
    expect(badFilter.text).toContain('status must be an HTTP status such as 404, or a class such as 4xx (got &quot;abc&quot;)')
  })

  test('the payments list: newest first, filtered by merchant, status and search, a paid amount that differs flagged', async () => {
    await sb.client.createMerchant({ key: 'list-shop', name: 'List Shop' })
    const first = await create({ merchant: 'list-shop', description: 'Blue teapot' })
    const second = await create({ merchant: 'list-shop', description: 'Green kettle' })
    const short = await create({ merchant: 'list-shop', amount: 10, description: 'Short payment' })
    await sb.client.simulate(second, { outcome: 'paid' })
    await sb.client.simulate(short, { outcome: 'paid', amount: 9.99 })
    const all = await page('/inspect/payments?merchant=list-shop')
    expect(all.text).toContain('Showing 3 of 3 matching.')
    expect(all.text.indexOf(short)).toBeLessThan(all.text.indexOf(second))
    expect(all.text.indexOf(second)).toBeLessThan(all.text.indexOf(first))
    expect(all.text).toContain(`href="/inspect/payments/${first}"`)
    // Only the short payment's row is flagged.
    const rows = all.text.split('<tr data-track-id=').slice(1)
    expect(rows.filter((r) => r.includes('≠ order amount')).map((r) => r.slice(1, 23))).toEqual([short])
    const paid = await page('/inspect/payments?merchant=list-shop&status=paid')
    expect(paid.text).toContain(second)
    expect(paid.text).not.toContain(first)
    const search = await page(`/inspect/payments?q=${encodeURIComponent('TEAPOT')}`)
    expect(search.text).toContain(first)
    expect(search.text).not.toContain(second)
    const byId = await page(`/inspect/payments?q=${second.slice(3, 12)}`)
    expect(byId.text).toContain(second)
    expect(byId.text).not.toContain(first)
  })

  test('a payment page: fields, history, every callback attempt with its request and answer, and the requests about it', async () => {
    const shop = await receiver(() => ({ status: 500, body: `<script>alert("from the receiver")</script>` }))
    const trackId = await create({ callbackUrl: shop.url.replace('http://', 'http://user:secret@'), description: 'Two mugs' })
    await sb.client.simulate(trackId, { outcome: 'paid', amount: 20 })
    await shop.waitFor(1)
    await expect.poll(async () => (await sb.client.listDeliveries({ trackId }))[0]?.state).toBe('failed')
    await sb.client.verifyPayment({ merchant: 'sandbox', trackId })
    const res = await page(`/inspect/payments/${trackId}`)
    const text = res.text
    expect(text).toContain(`Payment <code>${trackId}</code>`)
    expect(text).toContain('≠ order amount')
    expect(text).toContain('Paid 20, ordered 25.5')
    // The callback URL's password is masked on the page, as everywhere pay shows a URL.
    expect(text).toContain('http://user:***@127.0.0.1:')
    expect(text).not.toContain('secret')
    // The attempt: request headers and body as sent, the receiver's answer escaped.
    expect(text).toContain('X-Pay-Sandbox-Attempt: 1')
    expect(text).toContain('HTTP 500')
    expect(text).toContain('&lt;script&gt;alert(&quot;from the receiver&quot;)&lt;/script&gt;')
    expect(text).toContain(`&quot;trackId&quot;:&quot;${trackId}&quot;`)
    expect(text).toContain('data-post="/_sandbox/deliveries/dlv_')
    // What verify answers now, and the requests about the payment, newest first.
    expect(text).toContain('{&quot;result&quot;:100,&quot;amount&quot;:20,&quot;refNumber&quot;:')
    const requests = text.slice(text.indexOf('Requests about this payment'))
    expect(requests.indexOf('/api/v1/verify')).toBeLessThan(requests.indexOf('/simulate'))
    expect(requests.indexOf('/simulate')).toBeLessThan(requests.indexOf('/api/v1/request'))
    // A final payment offers no simulate controls.
    expect(text).not.toContain('/simulate" data-body')
  })

  test('hostile text in every field is shown escaped, never as markup, on every page', async () => {
    const merchant = await sb.client.createMerchant({ key: 'hostile_inspect', name: HOSTILE })
    const trackId = await create({
      merchant: merchant.key,
      callbackUrl: 'http://127.0.0.1:9/cb?x="><svg/onload=alert(2)>',
      returnUrl: 'https://shop.example/back?q="><svg/onload=alert(3)>&r=</script><script>alert(4)</script>',
      description: HOSTILE,
      mobile: '<b>+1</b>"\'<script>',
    })
    await sb.client.raw({ method: 'POST', path: '/api/v1/verify', body: { merchant: merchant.key, trackId: `${HOSTILE}` } })
    await rawGet(`/api/v1/<script>alert(5)</script>?q="><svg/onload=alert(6)>`)
    for (const path of [
      '/',
      '/inspect/payments',
      `/inspect/payments?q=${encodeURIComponent(HOSTILE.slice(0, 40))}&merchant=${encodeURIComponent(HOSTILE)}`,
      `/inspect/payments/${trackId}`,
      `/inspect/payments/${encodeURIComponent(HOSTILE)}`,
      '/inspect/requests',
      `/inspect/requests?trackId=${encodeURIComponent(HOSTILE.slice(0, 60))}&path=${encodeURIComponent(`/"><script>alert(7)</script>`)}`,
      '/inspect/merchants',
    ]) {
      const res = await page(path)
      expect([200, 404], path).toContain(res.status)
      for (const raw of RAW) expect(res.text, `${path} contains ${raw}`).not.toContain(raw)
    }
    // Shown, not dropped.
    expect((await page(`/inspect/payments/${trackId}`)).text).toContain('&lt;script&gt;alert(&quot;pwn&quot;)')
    expect((await page('/inspect/requests')).text).toContain('/api/v1/&lt;script&gt;alert(5)&lt;/script&gt;?q=&quot;&gt;&lt;svg/onload=alert(6)&gt;')
  })
})

describe('the request log', () => {
  test('keeps the last 1,000 requests: more than that, and the oldest are let go', async () => {
    const client = new SandboxClient(sb.url, { keepAlive: true })
    try {
      const before = (await log()).latestSeq
      const sent = 1100
      for (let i = 0; i < sent; i += 50) {
        await Promise.all(Array.from({ length: 50 }, (_, j) => client.verifyPayment({ merchant: 'sandbox', trackId: `bound-${i + j}` })))
      }
      const after = await log()
      expect(after.capacity).toBe(1000)
      expect(after.maxBytes).toBe(4 * 1024 * 1024)
      expect(after.requests).toHaveLength(1000)
      expect(after.latestSeq).toBe(before + sent)
      expect(after.oldestSeq).toBe(after.latestSeq - 999)
      expect(after.requests[0]!.seq).toBe(after.oldestSeq)
      expect(after.requests.at(-1)!.seq).toBe(after.latestSeq)
      // A follower that asks for what was let go is told so.
      const events = await readEvents(`/_sandbox/requests/events?after=0&path=/nothing`, (text) => text.includes('event: gap'))
      expect(events).toContain(`event: gap\ndata: {"from":1,"to":${after.oldestSeq - 1}}`)
      // A seq this log never reached was seen in an earlier run of the sandbox: such a reader gets all that is kept.
      const restarted = await readEvents(`/_sandbox/requests/events?after=${after.latestSeq + 5000}`, (text) => text.includes(`id: ${after.oldestSeq}\n`))
      expect(restarted).toContain(`event: gap\ndata: {"from":1,"to":${after.oldestSeq - 1}}`)
      expect(restarted).toContain(`id: ${after.oldestSeq}\nevent: request\n`)
    } finally {
      client.close()
    }
  })

  test('what it keeps: 2 KB of spec and control API bodies with URL credentials and bot tokens masked; never the Bot API\'s', async () => {
    // Three-byte characters, placed so that byte 2048 of the body falls inside one.
    const callbackUrl = 'http://user:hunter2@127.0.0.1:9/cb'
    const bodyOf = (description: string) => JSON.stringify({ merchant: 'sandbox', amount: 25.5, callbackUrl, description })
    const description = ['', 'a', 'aa'].map((pad) => `${pad}${'€'.repeat(990)}`).find((d) => (Buffer.from(bodyOf(d))[2048]! & 0xc0) === 0x80)!
    const trackId = await create({ description, callbackUrl })
    const token = '123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw1'
    await sb.client.raw({ method: 'POST', path: `/telegram/bot${token}/getMe`, body: { token } })
    await sb.client.raw({ method: 'GET', path: `/_sandbox/chat/messages?bot=${token}` })
    await sb.client.raw({ method: 'POST', path: '/api/v1/verify', body: '{"merchant": "sandbox", "trackId": ' })
    const { requests } = await log()
    const created = requests.find((r) => r.trackId === trackId && r.path === '/api/v1/request')!
    expect(created.bodyTruncated).toBe(true)
    expect(Buffer.byteLength(created.body!)).toBeLessThanOrEqual(2048)
    expect(created.bodyBytes).toBeGreaterThan(3000)
    // Cut on a character boundary, never half an é.
    expect(created.body).not.toContain('\ufffd')
    expect(created.body).toContain('"merchant":"sandbox"')
    expect(created.body).toContain('http://user:***@127.0.0.1:9/cb')
    expect(JSON.stringify(requests)).not.toContain('hunter2')
    const bot = requests.find((r) => r.path.startsWith('/telegram/'))!
    expect(bot.path).toBe('/telegram/bot123456789:***/getMe')
    expect(bot.body).toBeUndefined()
    const chat = requests.find((r) => r.path === '/_sandbox/chat/messages')!
    expect(chat.query).toBe('bot=123456789:***')
    expect(JSON.stringify(requests)).not.toContain('AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw1')
    // A body that is not JSON is kept as it came: that is what one needs to see.
    const broken = requests.findLast((r) => r.error === 'invalid_json')!
    expect(broken).toMatchObject({ status: 400, body: '{"merchant": "sandbox", "trackId": ' })
    // Pages are logged without a body; the inspector's own pages and streams are not logged at all.
    await page('/inspect/payments')
    await page('/')
    expect((await log()).requests.some((r) => r.path === '/inspect/payments' || r.path === '/' || r.path === '/_sandbox/requests')).toBe(false)
  })

  test('a client\'s texts are kept cut at a few KB and marked so: a flood of 999 KB trackIds leaves the log, its frames and the pages small', async () => {
    const client = new SandboxClient(sb.url, { keepAlive: true })
    const trackId = `${'€'.repeat(100)}${'x'.repeat(999 * 1024)}`
    const path = `/cut/${'p'.repeat(6000)}`
    try {
      const before = (await log()).latestSeq
      const stream = readEvents(`/_sandbox/requests/events?after=${before}`, (text) => text.includes(`id: ${before + 1}\n`) && text.endsWith('\n\n'))
      for (let i = 0; i < 20; i += 5) {
        await Promise.all(Array.from({ length: 5 }, () => client.raw({ method: 'POST', path: '/api/v1/verify', body: { merchant: 'sandbox', trackId } })))
      }
      await client.raw({ method: 'GET', path: `${path}?${'q=1&'.repeat(1500)}` })
      const answer = await sb.client.raw({ method: 'GET', path: `/_sandbox/requests?after=${before}` })
      expect(answer.status).toBe(200)
      expect(answer.text.length).toBeLessThan(100_000)
      const entries = (answer.json as LogPage).requests
      expect(entries).toHaveLength(21)
      const flood = entries[0]!
      expect(Buffer.byteLength(flood.trackId!)).toBeLessThanOrEqual(256)
      expect(trackId.startsWith(flood.trackId!)).toBe(true)
      expect(flood.truncated).toEqual({ trackId: Buffer.byteLength(trackId) })
      expect(flood).toMatchObject({ bodyTruncated: true, bodyBytes: Buffer.byteLength(JSON.stringify({ merchant: 'sandbox', trackId })) })
      expect(Buffer.byteLength(JSON.stringify(flood))).toBeLessThan(4096)
      const long = entries.at(-1)!
      expect(long.path).toBe(path.slice(0, 1024))
      expect(long.query).toBe('q=1&'.repeat(256))
      expect(long.truncated).toEqual({ path: path.length, query: 6000 })
      // A trackId kept cut is no trackId a filter names.
      expect((await log(`?trackId=${encodeURIComponent(flood.trackId!.slice(0, 200))}&after=${before}`)).requests).toEqual([])
      // Event frames are as small as the entries.
      const frames = (await stream).split('\n\n').filter((f) => f.includes('event: request'))
      expect(frames.length).toBeGreaterThan(0)
      for (const frame of frames) expect(Buffer.byteLength(frame)).toBeLessThan(4096)

      const home = await page('/')
      expect(home.status).toBe(200)
      expect(home.text.length).toBeLessThan(100_000)
      const requests = await page(`/inspect/requests?path=/api/v1/verify&limit=21`)
      expect(requests.status).toBe(200)
      expect(requests.text.length).toBeLessThan(150_000)
      // Shown cut: the start, then how long it was; a cut trackId links to no payment.
      expect(requests.text).toContain(`<code>${flood.trackId}</code><span class="muted" title="cut: the log keeps only the first 256 bytes">… (1,023,276 bytes)</span>`)
      const cutPath = (await page('/inspect/requests?path=/cut/&limit=1')).text
      expect(cutPath).toContain(`${'p'.repeat(1019)}<span class="muted" title="cut: the log keeps only the first 1024 bytes">… (6,005 bytes)</span>?q=1&amp;`)
      expect(cutPath).not.toContain('p'.repeat(1020))
    } finally {
      client.close()
    }
  }, 60_000)

  test('the log is bounded in bytes too: requests at every limit let the oldest go, the answer of limit=1000 and the page stay small', async () => {
    const own = await startSandbox()
    const url = new URL(own.url)
    // As big as every kept text allows, and as costly as JSON and HTML escaping make them.
    const send = () =>
      new Promise<number>((resolve, reject) => {
        const body = '\u0001"<'.repeat(2000)
        const req = request(
          { host: url.hostname, port: url.port, method: 'POST', path: `/api/v1/${'<'.repeat(2000)}?${'"&'.repeat(1000)}`, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } },
          (res) => {
            res.resume()
            res.on('end', () => resolve(res.statusCode ?? 0))
          },
        )
        req.on('error', reject)
        req.end(body)
      })
    try {
      for (let i = 0; i < 1000; i += 25) await Promise.all(Array.from({ length: 25 }, send))
      const res = await own.client.raw({ method: 'GET', path: '/_sandbox/requests?limit=1000' })
      expect(res.status).toBe(200)
      const kept = res.json as LogPage
      expect(kept.latestSeq).toBe(1000)
      expect(kept.requests.length).toBeLessThan(1000)
      expect(kept.requests.at(-1)!.seq).toBe(1000)
      expect(kept.oldestSeq).toBe(kept.requests[0]!.seq)
      expect(Buffer.byteLength(res.text)).toBeLessThanOrEqual(kept.maxBytes + 1024)
      const shown = await own.client.raw({ method: 'GET', path: '/inspect/requests?limit=1000', headers: { accept: 'text/html' } })
      expect(shown.status).toBe(200)
      expect(Buffer.byteLength(shown.text)).toBeLessThan(3 * kept.maxBytes)
    } finally {
      await own.stop()
    }
  }, 60_000)

  test('filters: path prefix, method, status or class, result, trackId; a bad one is a 400 naming it', async () => {
    const trackId = await create()
    await sb.client.verifyPayment({ merchant: 'sandbox', trackId })
    await sb.client.verifyPayment({ merchant: 'sandbox', trackId: 'unknown-one' })
    await sb.client.raw({ method: 'GET', path: '/_sandbox/payments/unknown-one' })
    const check = async (query: string, expected: (r: RequestEntry) => boolean) => {
      const { requests } = await log(query)
      expect(requests.length, query).toBeGreaterThan(0)
      for (const r of requests) expect(expected(r), `${query}: ${JSON.stringify(r)}`).toBe(true)
    }
    await check('?path=/api/v1/verify', (r) => r.path === '/api/v1/verify')
    await check('?path=/api/v1/verify&result=203', (r) => r.result === 203)
    await check('?status=4xx', (r) => r.status >= 400 && r.status < 500)
    await check('?status=404&method=get', (r) => r.status === 404 && r.method === 'GET')
    await check(`?trackId=${trackId}`, (r) => r.trackId === trackId)
    expect((await log(`?trackId=${trackId}&limit=1`)).requests.map((r) => r.path)).toEqual(['/api/v1/verify'])
    for (const [query, field] of [
      ['?status=abc', 'status'],
      ['?result=ten', 'result'],
      ['?path=api', 'path'],
      ['?limit=0', 'limit'],
    ] as const) {
      const res = await sb.client.raw({ method: 'GET', path: `/_sandbox/requests${query}` })
      expect(res.status, query).toBe(400)
      expect(res.json, query).toMatchObject({ statusCode: 400, error: 'invalid_body', message: expect.stringContaining(field) })
    }
  })

  test('a reader of the request log that stops reading costs nothing: it is paced, then told what was let go; a change stream\'s is dropped', async () => {
    const port = Number(new URL(sb.url).port)
    /** A stream read by hand: read once, then paused until `resume`. */
    const pausedReader = (path: string) => {
      const socket = connect(port, '127.0.0.1')
      const reader = { bytes: 0, text: '', closed: false, socket }
      socket.on('data', (c: Buffer) => {
        reader.bytes += c.length
        reader.text += c.toString()
      })
      socket.on('close', () => (reader.closed = true))
      socket.on('error', () => {})
      socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`)
      return reader
    }
    const paced = pausedReader('/_sandbox/requests/events?path=/api/v1/verify')
    const changes = pausedReader('/_sandbox/events?requests=true')
    await expect.poll(() => paced.bytes > 0 && changes.bytes > 0).toBe(true)
    paced.socket.pause()
    changes.socket.pause()
    const fast = events(`/_sandbox/requests/events?path=/api/v1/verify`)
    await fast.opened
    const client = new SandboxClient(sb.url, { keepAlive: true })
    const pad = 'x'.repeat(2000)
    const sent = 4000
    const first = (await log()).latestSeq + 1
    try {
      for (let i = 0; i < sent; i += 100) {
        await Promise.all(Array.from({ length: 100 }, () => client.raw({ method: 'POST', path: '/api/v1/verify', body: { merchant: 'sandbox', trackId: 'slow', pad } })))
      }
    } finally {
      client.close()
    }
    await expect.poll(() => fast.count(), { timeout: 10_000 }).toBe(sent)
    fast.close()
    const last = (await log()).latestSeq
    // The paced reader reads again: what was on its way, then what the log let go meanwhile, then the rest.
    paced.socket.resume()
    await expect.poll(() => paced.text.includes(`id: ${last}\n`), { timeout: 10_000 }).toBe(true)
    const gap = /event: gap\ndata: \{"from":(\d+),"to":(\d+)\}/.exec(paced.text)
    expect(gap).not.toBeNull()
    const [from, to] = [Number(gap![1]), Number(gap![2])]
    expect(from).toBeGreaterThan(first)
    expect(to).toBeLessThan(last)
    const ids = [...paced.text.matchAll(/^id: (\d+)$/gm)].map((m) => Number(m[1]))
    expect(ids).toEqual([...Array.from({ length: from - first }, (_, i) => first + i), ...Array.from({ length: last - to }, (_, i) => to + 1 + i)])
    // Still open: it gets the next one.
    await sb.client.verifyPayment({ merchant: 'sandbox', trackId: 'after-the-gap' })
    await expect.poll(() => paced.text.includes('after-the-gap'), { timeout: 5000 }).toBe(true)
    expect(paced.closed).toBe(false)
    paced.socket.destroy()
    // The change stream cannot go back: its reader was cut off, and reads far less than everything, then the end.
    changes.socket.resume()
    await expect.poll(() => changes.closed, { timeout: 5000 }).toBe(true)
    expect(changes.bytes).toBeLessThan(fast.bytes())
  }, 60_000)
})

/** Reads an event stream until `done(text)` holds; returns what it read. */
async function readEvents(path: string, done: (text: string) => boolean): Promise<string> {
  const controller = new AbortController()
  const res = await fetch(`${sb.url}${path}`, { signal: controller.signal })
  const reader = res.body!.getReader()
  let text = ''
  while (!done(text)) {
    const { value, done: end } = await reader.read()
    if (end) break
    text += new TextDecoder().decode(value)
  }
  controller.abort()
  return text
}

/** Counts `request` events of a stream read as fast as they come. */
function events(path: string): { opened: Promise<void>; count: () => number; bytes: () => number; close: () => void } {
  const controller = new AbortController()
  let count = 0
  let bytes = 0
  let rest = ''
  const opened = fetch(`${sb.url}${path}`, { signal: controller.signal }).then((res) => {
    const reader = res.body!.getReader()
    void (async () => {
      for (;;) {
        const { value, done } = await reader.read().catch(() => ({ value: undefined, done: true }))
        if (done || !value) return
        bytes += value.length
        rest += new TextDecoder().decode(value)
        const blocks = rest.split('\n\n')
        rest = blocks.pop() ?? ''
        count += blocks.filter((b) => b.includes('event: request')).length
      }
    })()
  })
  return { opened, count: () => count, bytes: () => bytes, close: () => controller.abort() }
}
