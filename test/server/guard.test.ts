import { lookup } from 'node:dns/promises'
import { connect } from 'node:net'
import { hostname } from 'node:os'
import { describe, expect, test } from 'vitest'
import type { RawResponse, Sandbox } from '../../src/index.js'
import { sandbox } from '../helpers.js'

type Answer = RawResponse & { json: { statusCode?: number; error?: string; message?: string } | undefined }

/** One request with exactly these headers (Host included, when given); a body-less POST says Content-Length: 0, as browsers do. */
async function send(sb: Sandbox, method: string, path: string, headers: Record<string, string> = {}, body?: string): Promise<Answer> {
  const sized = body === undefined && method === 'POST' ? { 'content-length': '0', ...headers } : headers
  return (await sb.client.raw({ method, path, headers: sized, ...(body !== undefined ? { body } : {}) })) as Answer
}

/** Writes raw bytes on a fresh connection and returns everything the server sends until it closes. */
function rawExchange(sb: Sandbox, bytes: string): Promise<string> {
  const url = new URL(sb.url)
  return new Promise((resolve, reject) => {
    const socket = connect(Number(url.port), url.hostname, () => socket.write(bytes))
    let text = ''
    socket.on('data', (c: Buffer) => (text += c.toString()))
    socket.on('end', () => resolve(text))
    socket.on('error', reject)
  })
}

async function withPayment(options: Parameters<typeof sandbox>[0] = {}): Promise<{ sb: Sandbox; trackId: string; port: string }> {
  const sb = await sandbox(options)
  const created = await sb.client.createPayment({ merchant: 'sandbox', amount: 12, callbackUrl: 'http://127.0.0.1:9/cb' })
  if (created.result !== 100) throw new Error(JSON.stringify(created))
  return { sb, trackId: created.trackId, port: new URL(sb.url).port }
}

describe('Host: only names that cannot be rebound, and the ones the sandbox was started with', () => {
  test('a foreign Host (DNS rebinding) is refused everywhere with 403, JSON naming the header and the flag', async () => {
    const { sb, trackId, port } = await withPayment()
    for (const [method, path, body] of [
      ['GET', '/_sandbox/export'],
      ['GET', '/_sandbox/merchants'],
      ['GET', `/_sandbox/payments/${trackId}`],
      ['GET', `/pay/${trackId}/status`],
      ['POST', '/api/v1/request', JSON.stringify({ merchant: 'sandbox', amount: 1, callbackUrl: 'http://127.0.0.1:9/cb' })],
      ['POST', '/api/v1/verify', JSON.stringify({ merchant: 'sandbox', trackId })],
      ['POST', '/_sandbox/merchants', '{}'],
      ['GET', '/no-such-route'],
    ] as const) {
      const res = await send(sb, method, path, { host: `attacker.example:${port}`, 'content-type': 'application/json' }, body)
      expect(res.status, `${method} ${path}`).toBe(403)
      expect(res.headers['content-type']).toMatch(/^application\/json/)
      expect(res.json).toEqual({
        ...(path.startsWith('/api/v1/') ? { result: 403 } : {}),
        statusCode: 403,
        error: 'host_not_allowed',
        message: `Host "attacker.example:${port}" is not allowed; start the sandbox with --allowed-hosts attacker.example (or PAY_SANDBOX_ALLOWED_HOSTS) to allow it`,
      })
      expect(res.text).not.toContain('sandbox_')
    }
    // Nothing was created or read: one payment, one merchant.
    const health = await sb.client.health()
    expect(health.counts).toMatchObject({ payments: 1, merchants: 1 })
  })

  test('page routes are refused with an HTML page under the same CSP', async () => {
    const { sb, trackId } = await withPayment()
    for (const path of [`/pay/${trackId}`, '/', '/inspect/payments', `/inspect/payments/${trackId}`, '/inspect/requests', '/inspect/merchants', '/dashboard', '/pay/unknown-track-id']) {
      const res = await send(sb, 'GET', path, { host: 'evil.example', accept: 'text/html' })
      expect(res.status, path).toBe(403)
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8')
      expect(res.headers['content-security-policy']).toMatch(/default-src 'none'.*script-src 'none'.*frame-ancestors 'none'/)
      expect(res.text).toContain('<h1 id="refused-heading">Request refused</h1>')
      expect(res.text).toContain('Host &quot;evil.example&quot; is not allowed; start the sandbox with --allowed-hosts evil.example')
      expect(res.text).not.toContain('Sandbox merchant')
    }
  })

  test('IP literals, localhost and *.localhost are answered, with or without a port, in any case', async () => {
    const { sb, port } = await withPayment()
    for (const host of [`127.0.0.1:${port}`, '127.0.0.1', `[::1]:${port}`, '[::1]', '10.0.0.7', `localhost:${port}`, 'LOCALHOST', `foo.localhost:${port}`, 'a.b.localhost']) {
      const res = await send(sb, 'GET', '/_sandbox/export', { host })
      expect(res.status, host).toBe(200)
    }
    for (const host of ['localhost.example', 'notlocalhost', 'localhost.', '[::z]', 'a b', `evil.example:${port}x`, '127.0.0.1.nip.io']) {
      const res = await send(sb, 'GET', '/_sandbox/export', { host })
      expect(res.status, host).toBe(403)
      expect(res.json?.error).toBe('host_not_allowed')
    }
  })

  test('a request without Host (HTTP/1.0) is refused', async () => {
    const { sb } = await withPayment()
    const answer = await rawExchange(sb, 'GET /_sandbox/export HTTP/1.0\r\n\r\n')
    expect(answer).toMatch(/^HTTP\/1\.[01] 403 /)
    expect(answer).toContain('"error":"host_not_allowed"')
    expect(answer).toContain('Host header is missing')
    expect(answer).not.toContain('sandbox_')
  })

  test('allowedHosts names more hosts; a leading dot takes in a domain and its subdomains', async () => {
    const sb = await sandbox({ allowedHosts: ['sandbox', '.example.test'] })
    for (const host of ['sandbox', 'sandbox:8787', 'example.test', 'api.example.test:1', 'a.b.example.test'])
      expect((await send(sb, 'GET', '/_sandbox/health', { host })).status, host).toBe(200)
    for (const host of ['sandbox2', 'evilexample.test', 'example.test.evil', 'sandbox.evil'])
      expect((await send(sb, 'GET', '/_sandbox/health', { host })).status, host).toBe(403)
  })

  test('allowedHosts: true answers any Host; Origin: null and the JSON rule still hold', async () => {
    const sb = await sandbox({ allowedHosts: true })
    expect((await send(sb, 'GET', '/_sandbox/health', { host: 'anything.example', origin: 'http://anything.example' })).status).toBe(200)
    expect((await send(sb, 'GET', '/_sandbox/health', { host: 'anything.example', origin: 'null' })).json?.error).toBe('origin_not_allowed')
    expect((await send(sb, 'POST', '/_sandbox/reset', { host: 'anything.example' })).json?.error).toBe('unsupported_media_type')
    expect(await rawExchange(sb, 'GET /_sandbox/health HTTP/1.0\r\n\r\n')).toMatch(/^HTTP\/1\.[01] 403 /)
  })

  test('the name given with --host is answered: the URL the sandbox prints works', async (context) => {
    const name = hostname().toLowerCase()
    const resolved = await lookup(name).catch(() => undefined)
    if (!resolved || !/^[a-z0-9-]+(\.[a-z0-9-]+)*$/.test(name)) return context.skip(`host name ${name} does not resolve here`)
    const sb = await sandbox({ host: name })
    expect(sb.url).toMatch(new RegExp(`^http://${name}:\\d+$`))
    expect((await sb.client.health()).ok).toBe(true)
    expect((await send(sb, 'GET', '/_sandbox/health', { host: `other-${name}` })).status).toBe(403)
  })

  test('an allowedHosts entry that is not a host name is refused at start', async () => {
    await expect(sandbox({ allowedHosts: ['http://sandbox:8787'] })).rejects.toThrow(/"http:\/\/sandbox:8787" is not a host name/)
  })

  test('refused requests still get their request log line', async () => {
    const lines: string[] = []
    const sb = await sandbox({ log: (line) => lines.push(line) })
    await send(sb, 'GET', '/_sandbox/export', { host: 'evil.example' })
    await send(sb, 'POST', '/_sandbox/reset')
    await send(sb, 'POST', '/_sandbox/reset', { 'content-type': 'application/json', origin: 'null' })
    // A line is written once its answer is sent.
    await expect.poll(() => lines.join('\n')).toMatch(/GET \/_sandbox\/export 403 error=host_not_allowed [\d.]+ms/)
    await expect.poll(() => lines.join('\n')).toMatch(/POST \/_sandbox\/reset 415 error=unsupported_media_type [\d.]+ms/)
    await expect.poll(() => lines.join('\n')).toMatch(/POST \/_sandbox\/reset 403 error=origin_not_allowed [\d.]+ms/)
  })
})

describe('state-changing requests must say application/json, so a browser has to ask (preflight) first', () => {
  test('body-less POSTs without Content-Type, or with text/plain or a form type, are refused with 415 and change nothing', async () => {
    const { sb, trackId } = await withPayment()
    for (const path of [
      '/_sandbox/reset',
      '/_sandbox/shutdown',
      '/_sandbox/merchants/sandbox/disable',
      `/_sandbox/deliveries/${trackId}/replay`,
      `/pay/${trackId}/simulate`,
      `/_sandbox/payments/${trackId}/simulate`,
    ]) {
      for (const [type, body] of [
        [undefined, undefined],
        ['text/plain', undefined],
        ['text/plain;charset=UTF-8', '{"outcome":"paid"}'],
        ['application/x-www-form-urlencoded', 'outcome=paid'],
        ['multipart/form-data; boundary=x', '--x\r\nContent-Disposition: form-data; name="outcome"\r\n\r\npaid\r\n--x--\r\n'],
      ] as const) {
        const res = await send(sb, 'POST', path, type ? { 'content-type': type } : {}, body)
        expect(res.status, `${path} ${type}`).toBe(415)
        expect(res.json).toEqual({
          statusCode: 415,
          error: 'unsupported_media_type',
          message: `Content-Type must be application/json (got ${type ?? 'none'}); every POST to the sandbox needs it, even without a body (an empty body reads as {})`,
        })
      }
    }
    const health = await sb.client.health()
    expect(health.counts.payments).toBe(1)
    expect((await sb.client.getPayment(trackId)).payment.status).toBe('pending')
    expect((await sb.client.listMerchants())[0]?.enabled).toBe(true)
  })

  test('with application/json and an empty body they work: the body reads as {}', async () => {
    const { sb } = await withPayment()
    const disabled = await send(sb, 'POST', '/_sandbox/merchants/sandbox/disable', { 'content-type': 'application/json' })
    expect(disabled.status).toBe(200)
    expect(disabled.json).toMatchObject({ merchant: { key: 'sandbox', enabled: false } })
    const reset = await send(sb, 'POST', '/_sandbox/reset', { 'content-type': 'application/json; charset=utf-8' })
    expect(reset.status).toBe(200)
    expect(reset.json).toMatchObject({ cleared: { payments: 1 } })
    // The spec API keeps its own rule: an empty JSON body is 400 invalid_json.
    const verify = await send(sb, 'POST', '/api/v1/verify', { 'content-type': 'application/json' })
    expect(verify.json).toMatchObject({ statusCode: 400, error: 'invalid_json' })
    const shutdown = await send(sb, 'POST', '/_sandbox/shutdown', { 'content-type': 'application/json' })
    expect(shutdown.status).toBe(202)
  })
  test('the JSON parser that reads an empty body as {} keeps the route body limits: a 2 MB import loads, a 2 MB create is 413', async () => {
    const { sb } = await withPayment()
    const file = await sb.client.exportState()
    const merchant = file.merchants[0]!
    file.merchants.push(...Array.from({ length: 9_000 }, (_, i) => ({ ...merchant, key: `m_${i}_${'k'.repeat(100)}`, name: 'n'.repeat(150) })))
    const body = JSON.stringify(file)
    expect(body.length).toBeGreaterThan(2 * 1024 * 1024)
    const imported = await send(sb, 'POST', '/_sandbox/import', { 'content-type': 'application/json' }, body)
    expect(imported.status, imported.text.slice(0, 200)).toBe(200)
    const create = await send(sb, 'POST', '/api/v1/request', { 'content-type': 'application/json' }, JSON.stringify({ description: 'x'.repeat(2 * 1024 * 1024) }))
    expect(create.json?.error).toBe('payload_too_large')
  })
})

describe('Origin and Sec-Fetch-Site', () => {
  test('an Origin whose host is not allowed, or Origin: null, is refused', async () => {
    const { sb, trackId, port } = await withPayment()
    const json = { 'content-type': 'application/json' }
    const cases: Array<[string, string, string, string]> = [
      ['GET', '/_sandbox/export', 'http://evil.example', 'Origin "http://evil.example" is not allowed; start the sandbox with --allowed-hosts evil.example (or PAY_SANDBOX_ALLOWED_HOSTS) to allow it'],
      ['POST', '/_sandbox/reset', `http://attacker.example:${port}`, `Origin "http://attacker.example:${port}" is not allowed; start the sandbox with --allowed-hosts attacker.example (or PAY_SANDBOX_ALLOWED_HOSTS) to allow it`],
      ['POST', '/_sandbox/reset', 'null', 'Origin "null" is not allowed: file:// pages and sandboxed frames may not use the sandbox'],
      ['POST', `/pay/${trackId}/simulate`, 'null', 'Origin "null" is not allowed: file:// pages and sandboxed frames may not use the sandbox'],
      ['POST', '/api/v1/request', 'https://shop.example', 'Origin "https://shop.example" is not allowed; start the sandbox with --allowed-hosts shop.example (or PAY_SANDBOX_ALLOWED_HOSTS) to allow it'],
      ['GET', '/_sandbox/export', 'chrome-extension://abcdef', 'Origin "chrome-extension://abcdef" is not allowed: only http and https pages of allowed hosts may use the sandbox'],
    ]
    for (const [method, path, origin, message] of cases) {
      const body = path === `/pay/${trackId}/simulate` ? '{"outcome":"paid"}' : method === 'POST' ? '{}' : undefined
      const res = await send(sb, method, path, { ...json, origin }, body)
      expect(res.status, `${method} ${path} from ${origin}`).toBe(403)
      expect(res.json).toEqual({ ...(path.startsWith('/api/v1/') ? { result: 403 } : {}), statusCode: 403, error: 'origin_not_allowed', message })
    }
    expect((await sb.client.health()).counts.payments).toBe(1)
    expect((await sb.client.getPayment(trackId)).payment.status).toBe('pending')
    // The sandbox's own origin, and other local pages, may read.
    for (const origin of [sb.url, `http://localhost:${port}`, 'http://127.0.0.1:3000', 'http://app.localhost:5173']) {
      expect((await send(sb, 'GET', '/_sandbox/health', { origin })).status, origin).toBe(200)
    }
  })

  test('a state-changing request a browser marks cross-site or same-site is refused; same-origin goes through', async () => {
    const { sb, trackId } = await withPayment()
    const headers = { 'content-type': 'application/json', origin: 'http://127.0.0.1:3000' }
    for (const site of ['cross-site', 'same-site']) {
      const res = await send(sb, 'POST', `/pay/${trackId}/simulate`, { ...headers, 'sec-fetch-site': site }, '{"outcome":"paid"}')
      expect(res.status).toBe(403)
      expect(res.json).toEqual({
        statusCode: 403,
        error: 'cross_site_request',
        message: `Sec-Fetch-Site "${site}": a page of another origin may not change the sandbox; use the pay CLI, SandboxClient or the sandbox's own pages`,
      })
    }
    expect((await sb.client.getPayment(trackId)).payment.status).toBe('pending')
    // Reading is not changing: a cross-site navigation to the checkout page works (the merchant links to it).
    expect((await send(sb, 'GET', `/pay/${trackId}`, { 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'navigate' })).status).toBe(200)
    const own = await send(sb, 'POST', `/pay/${trackId}/simulate`, { 'content-type': 'application/json', origin: sb.url, 'sec-fetch-site': 'same-origin' }, '{"outcome":"paid"}')
    expect(own.status).toBe(200)
    expect(own.json).toMatchObject({ status: 'paid' })
  })

  test('a CORS preflight is never granted: a foreign one is refused, a local one gets no Access-Control-Allow-* header', async () => {
    const { sb } = await withPayment()
    const preflight = { 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' }
    const foreign = await send(sb, 'OPTIONS', '/_sandbox/reset', { ...preflight, origin: 'http://evil.example' })
    expect(foreign.status).toBe(403)
    expect(foreign.json?.error).toBe('origin_not_allowed')
    for (const res of [foreign, await send(sb, 'OPTIONS', '/_sandbox/reset', { ...preflight, origin: 'http://localhost:3000' })]) {
      expect(Object.keys(res.headers).filter((h) => h.startsWith('access-control-'))).toEqual([])
    }
  })
})
