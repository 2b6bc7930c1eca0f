import { request } from 'node:http'
import { networkInterfaces } from 'node:os'
import { join } from 'node:path'
import { expect, test } from 'vitest'
import { SandboxClient } from '../../src/client/index.js'
import { ExitCode } from '../../src/cli/exit-codes.js'
import { sandbox, tempDir } from '../helpers.js'
import { killed, startRefused, startRunning } from './proc.js'

/** Connects to host:port; resolves true when something accepts the connection. */
function reachable(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const req = request({ host, port, path: '/_sandbox/health', timeout: 2000 }, (res) => {
      res.resume()
      resolve(true)
    })
    req.on('error', () => resolve(false))
    req.on('timeout', () => {
      req.destroy()
      resolve(false)
    })
    req.end()
  })
}

function externalAddress(): string | undefined {
  for (const list of Object.values(networkInterfaces())) {
    for (const address of list ?? []) if (address.family === 'IPv4' && !address.internal) return address.address
  }
  return undefined
}

test('binds 127.0.0.1 by default, silently; --host 0.0.0.0 warns loudly on stderr', async (context) => {
  const dir = await tempDir()
  const local = await startRunning(['--data', join(dir, 'a.json')])
  const port = Number(new URL(local.url).port)
  expect(new URL(local.url).hostname).toBe('127.0.0.1')
  expect(local.stderr()).not.toMatch(/WARNING/)
  const external = externalAddress()
  if (external) expect(await reachable(external, port)).toBe(false)

  const exposed = await startRunning(['--data', join(dir, 'b.json'), '--host', '0.0.0.0'])
  await expect.poll(() => exposed.stderr(), { timeout: 5000 }).toMatch(/WARNING: listening on 0\.0\.0\.0, reachable from other machines/)
  if (external === undefined) return context.skip('no non-loopback IPv4 address to check reachability from')
  expect(await reachable(external, Number(new URL(exposed.url).port))).toBe(true)
})

test('a second start on the same data file refuses with exit 7, naming the running sandbox (pid and URL)', async () => {
  const data = join(await tempDir(), 'data.json')
  const first = await startRunning(['--data', data])
  const second = await startRefused(['--data', data])
  expect(second.code).toBe(ExitCode.startFailed)
  expect(second.stderr).toContain(data)
  expect(second.stderr).toContain(first.url)
  expect(second.stderr).toContain(`pid ${first.pid}`)
  // The refused start left the running one and its lock alone.
  expect((await new SandboxClient(first.url).health()).ok).toBe(true)
  expect(await killed(first.child, 'SIGTERM')).toBe(0)
  const third = await startRunning(['--data', data])
  expect((await new SandboxClient(third.url).health()).dataFile).toBe(data)
})

test('error answers carry no stack traces, file paths or internals', async () => {
  const sb = await sandbox()
  const created = await sb.client.createPayment({ merchant: 'sandbox', amount: 5, callbackUrl: 'http://127.0.0.1:9/cb' })
  if (created.result !== 100) throw new Error(JSON.stringify(created))
  await sb.client.simulate(created.trackId, { outcome: 'paid' })
  const cases: Array<{ method: string; path: string; body?: string; headers?: Record<string, string>; status: number }> = [
    { method: 'POST', path: '/api/v1/request', body: '{"merchant": ', status: 400 },
    { method: 'POST', path: '/api/v1/request', body: '[1,2]', status: 400 },
    { method: 'POST', path: '/api/v1/request', body: 'merchant=sandbox', headers: { 'content-type': 'application/x-www-form-urlencoded' }, status: 415 },
    { method: 'POST', path: '/api/v1/request', body: `{"d":"${'x'.repeat(1_100_000)}"}`, status: 413 },
    { method: 'GET', path: '/api/v1/nothing-here', status: 404 },
    { method: 'GET', path: '/_sandbox/payments/unknown-track-id', status: 404 },
    { method: 'POST', path: `/_sandbox/payments/${created.trackId}/simulate`, body: '{"outcome":"failed"}', status: 409 },
    { method: 'POST', path: `/_sandbox/payments/${created.trackId}/simulate`, body: '{"outcome":"exploded"}', status: 400 },
    { method: 'GET', path: '/_sandbox/payments?limit=-1', status: 400 },
  ]
  for (const c of cases) {
    const res = await sb.client.raw({ method: c.method, path: c.path, ...(c.body !== undefined ? { body: c.body } : {}), ...(c.headers ? { headers: c.headers } : {}) })
    expect(res.status, `${c.method} ${c.path}: ${res.text.slice(0, 300)}`).toBe(c.status)
    expect(res.json).toEqual({
      ...(c.path.startsWith('/api/v1/') ? { result: c.status } : {}),
      statusCode: c.status,
      error: expect.stringMatching(/^[a-z_]+$/),
      message: expect.any(String),
    })
    expect(res.text).not.toMatch(/\bat .+:\d+:\d+|node_modules|\/src\/|\/dist\/|"stack"|Error:/)
  }
})

const HOSTILE = `<script>alert("pwn")</script>"'><img src=x onerror=alert(1)>&amp;{{7*7}}\${7*7}`

test('merchant and payment text is escaped on every HTML page', async () => {
  const sb = await sandbox()
  const merchant = await sb.client.createMerchant({ key: 'hostile_shop', name: HOSTILE.slice(0, 200) })
  const created = await sb.client.createPayment({
    merchant: merchant.key,
    amount: 7,
    callbackUrl: 'http://127.0.0.1:9/cb?x="><svg/onload=alert(2)>',
    returnUrl: 'https://shop.example/back?q="><svg/onload=alert(3)>&r=</script><script>alert(4)</script>',
    description: HOSTILE,
    mobile: '<b>+1</b>"\'<script>',
  })
  if (created.result !== 100) throw new Error(JSON.stringify(created))
  const pages = [
    { path: `/pay/${created.trackId}`, status: 200 },
    { path: `/pay/${created.trackId}?asset=${encodeURIComponent('<script>a')}`, status: [200, 400] },
    { path: `/pay/${encodeURIComponent('<script>alert("t")</script>')}`, status: 404 },
    { path: '/', status: 200 },
    { path: '/inspect/payments', status: 200 },
    { path: `/inspect/payments?merchant=${encodeURIComponent('"><script>alert(5)</script>')}`, status: 200 },
    { path: `/inspect/payments?merchant=${merchant.key}`, status: 200 },
    { path: `/inspect/payments/${created.trackId}`, status: 200 },
    { path: '/inspect/requests', status: 200 },
    { path: '/inspect/merchants', status: 200 },
  ]
  for (const step of ['pending', 'paid'] as const) {
    if (step === 'paid') await sb.client.simulate(created.trackId, { outcome: 'paid' })
    for (const page of pages) {
      const res = await sb.client.raw({ method: 'GET', path: page.path, headers: { accept: 'text/html' } })
      expect([page.status].flat(), `${page.path}: ${res.status}`).toContain(res.status)
      if (!/text\/html/.test(String(res.headers['content-type']))) continue
      const html = res.text
      for (const raw of ['<script>alert(', '<img src=x', '<svg/onload', '<b>+1</b>', '</script><script>alert']) {
        expect(html, `${page.path} contains ${raw}`).not.toContain(raw)
      }
    }
  }
  // The hostile text is shown (escaped), not dropped.
  const checkout = await sb.client.raw({ method: 'GET', path: `/pay/${created.trackId}` })
  expect(checkout.text).toContain('&lt;script&gt;alert(')
  const inspector = await sb.client.raw({ method: 'GET', path: `/inspect/payments?merchant=${merchant.key}` })
  expect(inspector.text).toContain('&lt;script&gt;alert(')
})
