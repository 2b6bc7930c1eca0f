import { gzipSync } from 'node:zlib'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { type Sandbox, startSandbox } from '../../src/index.js'

describe('checkout over HTTP', () => {
  let sb: Sandbox
  const create = async (extra: { returnUrl?: string; description?: string; merchant?: string } = {}) => {
    const body = await sb.client.createPayment({ merchant: 'sandbox', amount: 25.5, callbackUrl: 'http://127.0.0.1:9/cb', ...extra })
    if (body.result !== 100) throw new Error(JSON.stringify(body))
    return body.trackId
  }
  const get = (path: string) => sb.client.raw({ method: 'GET', path, headers: { accept: 'text/html' } })

  beforeAll(async () => {
    sb = await startSandbox()
  })
  afterAll(() => sb.stop())

  test('the page shows merchant, amount, description, assets and the sandbox marking, self-contained and small', async () => {
    const trackId = await create({ description: 'Two mugs' })
    const res = await get(`/pay/${trackId}`)
    expect(res.status).toBe(200)
    expect(res.headers['content-type']).toMatch(/^text\/html/)
    for (const text of ['Sandbox merchant', '25.50', 'Two mugs', 'SANDBOX', 'BTC', 'ETH', 'USDT-TRC20', 'LTC', 'TRX', '<svg']) {
      expect(res.text).toContain(text)
    }
    // Nothing is loaded from elsewhere: no external scripts, styles, fonts or images.
    expect(res.text).not.toMatch(/<(script|link|img)[^>]+(src|href)="(https?:)?\/\//)
    expect(res.text).not.toMatch(/@import|url\(\s*["']?https?:/)
    const bytes = Buffer.byteLength(res.text)
    expect(bytes).toBeLessThan(50 * 1024)
    expect(gzipSync(res.text).length).toBeLessThan(bytes)
  })

  test('an unknown trackId is a 404 HTML page', async () => {
    const res = await get('/pay/nope')
    expect(res.status).toBe(404)
    expect(res.headers['content-type']).toMatch(/^text\/html/)
    expect(res.text).toContain('Payment not found')
  })

  test('a final payment shows its state and no controls; the status endpoint gives the return link', async () => {
    const trackId = await create({ returnUrl: 'https://shop.example/thanks?order=7' })
    const pending = await get(`/pay/${trackId}`)
    expect(pending.text).toContain('data-outcome="paid"')
    await sb.client.simulate(trackId, { outcome: 'failed' })
    const page = await get(`/pay/${trackId}`)
    expect(page.text).not.toContain('data-outcome="')
    expect(page.text).toContain('Payment not completed')
    const status = await sb.client.raw({ method: 'GET', path: `/pay/${trackId}/status` })
    expect(status.json).toMatchObject({
      trackId,
      status: 'failed',
      final: true,
      returnUrl: `https://shop.example/thanks?order=7&trackId=${trackId}&status=failed`,
    })
  })

  test.each([
    // Quotes, non-ASCII, an encoded space, an empty value and a bare key: what URL re-serializing would change.
    [`https://shop.example/thanks?q="a"&s='b'&t=<c>&name=café&x=%20&empty=&flag`, '&'],
    ['https://Shop.Example:443/a/../thanks?order=7#receipt', '&', '#receipt'],
    ['https://shop.example/thanks', '?'],
    ['https://shop.example/thanks?', ''],
    ['https://shop.example/thanks?order=7&', ''],
    ['https://shop.example/thanks#top?not-a-query', '?', '#top?not-a-query'],
  ])('the return link is %s as given, byte for byte, with trackId and status added to its query', async (given, joint, fragment = '') => {
    const trackId = await create({ returnUrl: given })
    await sb.client.simulate(trackId, { outcome: 'paid' })
    const status = await sb.client.raw({ method: 'GET', path: `/pay/${trackId}/status` })
    const head = fragment ? given.slice(0, given.length - fragment.length) : given
    expect((status.json as { returnUrl: string }).returnUrl).toBe(`${head}${joint}trackId=${trackId}&status=paid${fragment}`)
  })

  test('the page simulate endpoint answers the new status, and 4xx JSON for what it cannot do', async () => {
    const trackId = await create()
    const ok = await sb.client.raw({ method: 'POST', path: `/pay/${trackId}/simulate`, body: { outcome: 'unfinalized', asset: 'LTC' } })
    expect(ok.status).toBe(200)
    expect(ok.json).toMatchObject({ trackId, status: 'unfinalized', final: false, paidAmount: 25.5, asset: 'LTC' })
    const rows = [
      { path: `/pay/${trackId}/simulate`, body: { outcome: 'refunded' }, status: 400 },
      { path: `/pay/${trackId}/simulate`, body: { outcome: 'paid', asset: 'DOGE' }, status: 400 },
      { path: '/pay/nope/simulate', body: { outcome: 'paid' }, status: 404 },
    ]
    for (const row of rows) {
      const res = await sb.client.raw({ method: 'POST', path: row.path, body: row.body })
      expect(res.status).toBe(row.status)
      expect(res.json).toMatchObject({ statusCode: row.status, error: expect.any(String), message: expect.any(String) })
    }
    await sb.client.raw({ method: 'POST', path: `/pay/${trackId}/simulate`, body: { outcome: 'paid' } })
    const again = await sb.client.raw({ method: 'POST', path: `/pay/${trackId}/simulate`, body: { outcome: 'failed' } })
    expect(again.status).toBe(409)
    expect(again.json).toMatchObject({ error: 'invalid_transition' })
  })

  test('the event stream sends the current status, then each change', async () => {
    const trackId = await create()
    const controller = new AbortController()
    const res = await fetch(`${sb.url}/pay/${trackId}/events`, { signal: controller.signal })
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/)
    const reader = res.body!.getReader()
    let text = ''
    const readUntil = async (needle: string) => {
      while (!text.includes(needle)) {
        const { value, done } = await reader.read()
        if (done) break
        text += new TextDecoder().decode(value)
      }
    }
    await readUntil('"status":"pending"')
    await sb.client.simulate(trackId, { outcome: 'paid' })
    await readUntil('"status":"paid"')
    expect(text).toMatch(/event: status\ndata: \{[^\n]*"status":"paid"/)
    controller.abort()
  })
})
