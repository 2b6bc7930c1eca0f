import { describe, expect, test } from 'vitest'
import type { FaultRule } from '../../src/client/index.js'
import { HELD_MAX } from '../../src/domain/api-fault.js'
import { type Sandbox, startSandbox } from '../../src/index.js'
import { sandbox, tempDir } from '../helpers.js'
import { send } from './http.js'

const CALLBACK = 'https://shop.example/cb'

async function paidPayment(sb: Sandbox, merchant = 'sandbox'): Promise<string> {
  const created = await sb.client.createPayment({ merchant, amount: 10, callbackUrl: CALLBACK })
  if (created.result !== 100) throw new Error(JSON.stringify(created))
  await sb.client.simulate(created.trackId, { outcome: 'paid' })
  return created.trackId
}

const verify = (sb: Sandbox, trackId: string, giveUpMs?: number, merchant = 'sandbox') => send(sb.url, 'POST', '/api/v1/verify', { merchant, trackId }, giveUpMs)
const create = (sb: Sandbox, body: Record<string, unknown> = {}) => send(sb.url, 'POST', '/api/v1/request', { merchant: 'sandbox', amount: 10, callbackUrl: CALLBACK, ...body })

describe('each fault, as a merchant client meets it', () => {
  test('status 503 times 2: the next two verifies answer 503 with an integer result, the third the real answer', async () => {
    const sb = await sandbox()
    const trackId = await paidPayment(sb)
    const rule = await sb.addFault({ route: 'verify', status: 503, times: 2 })
    expect(rule).toMatchObject({ id: expect.stringMatching(/^flt_/), route: 'verify', status: 503, times: 2, played: 0 })
    const seen = [await verify(sb, trackId), await verify(sb, trackId), await verify(sb, trackId)]
    for (const s of seen.slice(0, 2)) {
      expect(s.status).toBe(503)
      expect(s.headers?.['content-type']).toMatch(/^application\/json/)
      expect(s.json).toEqual({ result: 503, statusCode: 503, error: 'service_unavailable', message: expect.stringContaining(rule.id) })
      expect(Number.isInteger(s.json!.result)).toBe(true)
    }
    expect(seen[2]).toMatchObject({ status: 200, json: { result: 100, amount: 10, refNumber: expect.any(String) } })
    expect(await sb.client.listFaults()).toEqual([expect.objectContaining({ id: rule.id, matched: 2, played: 2 })])
  })

  test('html 502: the HTML error page a reverse proxy sends, not JSON', async () => {
    const sb = await sandbox()
    await sb.addFault({ route: 'create', html: 502 })
    const seen = await create(sb)
    expect(seen.status).toBe(502)
    expect(seen.headers?.['content-type']).toBe('text/html')
    expect(seen.headers?.server).toBe('nginx')
    expect(seen.text).toBe('<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n')
    expect(seen.json).toBeUndefined()
    for (const [status, title] of [[503, '503 Service Temporarily Unavailable'], [504, '504 Gateway Time-out']] as const) {
      await sb.clearFaults()
      await sb.addFault({ route: 'create', html: status })
      const page = await create(sb)
      expect(page.status).toBe(status)
      expect(page.text).toContain(`<title>${title}</title>`)
    }
    // No payment was made by the faulted creates.
    expect(await sb.client.listPayments()).toEqual([])
  })

  test('delay 1500ms: the real answer, after 1.5 s', async () => {
    const sb = await sandbox()
    const trackId = await paidPayment(sb)
    await sb.addFault({ route: 'verify', delay: '1500ms', times: 1 })
    const seen = await verify(sb, trackId)
    expect(seen).toMatchObject({ status: 200, json: { result: 100 } })
    expect(seen.ms).toBeGreaterThanOrEqual(1490)
    expect(seen.ms).toBeLessThan(15_000)
    expect((await verify(sb, trackId)).ms).toBeLessThan(1000)
  })

  test('timeout: held with no answer until the client gives up, while every other request is answered at once', async () => {
    const sb = await sandbox({ timeouts: { requestMs: 1000, headersMs: 500 } })
    const trackId = await paidPayment(sb)
    const rule = await sb.addFault({ route: 'verify', timeout: true, times: 1 })
    let heldOver = false
    const held = verify(sb, trackId, 4000).finally(() => (heldOver = true))
    // Meanwhile: another verify, a create and the control API, each answered while the first is still held.
    await expect.poll(() => sb.server.faults.list()[0]?.played).toBe(1)
    const others = await Promise.all([verify(sb, trackId), create(sb), send(sb.url, 'GET', '/_sandbox/health')])
    expect(others.map((o) => o.status)).toEqual([200, 200, 200])
    expect(heldOver).toBe(false)
    const seen = await held
    // The client's own timeout ended it, not the sandbox (not even its 1 s request timeout: the request had arrived).
    expect(seen.error).toBe('gave up')
    expect(seen.ms).toBeGreaterThanOrEqual(3990)
    await expect.poll(() => sb.server.faults.hits().find((h) => h.rule === rule.id)).toMatchObject({ end: 'client-closed', fault: 'timeout', trackId, owner: true, status: 'paid' })
    const hit = sb.server.faults.hits().find((h) => h.rule === rule.id)!
    expect(hit.ms).toBeGreaterThanOrEqual(3000)
  })

  test('timeout: a client that never gives up is closed by the sandbox at its bound', async () => {
    const sb = await sandbox({ faultHoldMs: 300 })
    const trackId = await paidPayment(sb)
    await sb.addFault({ route: 'verify', timeout: true })
    const seen = await verify(sb, trackId, 10_000)
    expect(seen.status).toBeUndefined()
    expect(seen.error).toMatch(/socket hang up|ECONNRESET/)
    expect(seen.ms).toBeGreaterThanOrEqual(290)
    expect(seen.ms).toBeLessThan(9000)
    await expect.poll(() => sb.server.faults.hits().at(-1)?.end).toBe('sandbox-closed')
  })

  test('reset: the connection is closed with no answer', async () => {
    const sb = await sandbox()
    await sb.addFault({ route: 'create', reset: true })
    const seen = await create(sb)
    expect(seen.status).toBeUndefined()
    expect(seen.error).toMatch(/ECONNRESET|socket hang up/)
    expect(await sb.client.listPayments()).toEqual([])
  })

  test('retry-after: 429 or 503 with the header, and the JSON error', async () => {
    const sb = await sandbox()
    const trackId = await paidPayment(sb)
    await sb.addFault({ route: 'verify', retryAfter: 429, seconds: 7, times: 1 })
    const seen = await verify(sb, trackId)
    expect(seen.status).toBe(429)
    expect(seen.headers?.['retry-after']).toBe('7')
    expect(seen.json).toMatchObject({ result: 429, error: 'too_many_requests' })
    await sb.addFault({ route: 'verify', retryAfter: 503, times: 1 })
    expect((await verify(sb, trackId)).headers?.['retry-after']).toBe('5')
  })

  test('after: the create makes its payment, and its answer is lost to the fault', async () => {
    const sb = await sandbox()
    await sb.addFault({ route: 'create', status: 503, after: true, times: 1 })
    const seen = await create(sb, { description: 'order 7' })
    expect(seen).toMatchObject({ status: 503, json: { result: 503 } })
    expect(seen.json).not.toHaveProperty('trackId')
    const [made] = await sb.client.listPayments()
    expect(made).toMatchObject({ description: 'order 7', status: 'pending' })
    await expect.poll(() => sb.server.faults.hits().at(-1)).toMatchObject({ after: true, trackId: made!.trackId, route: 'create' })
    const log = await sb.client.listRequests({ path: '/api/v1/request' })
    expect(log.requests.at(-1)).toMatchObject({ status: 503, trackId: made!.trackId, fault: `status 503; answer lost, the payment was made (trackId ${made!.trackId})` })
  })

  test('after with a reset: the payment is made and the connection closed with no answer', async () => {
    const sb = await sandbox()
    await sb.addFault({ route: 'create', reset: true, after: true, times: 1 })
    const seen = await create(sb)
    expect(seen.error).toMatch(/ECONNRESET|socket hang up/)
    expect(await sb.client.listPayments()).toHaveLength(1)
  })

  test('checkout: the page itself, as a page; its status, events and controls keep working', async () => {
    const sb = await sandbox()
    const created = await sb.client.createPayment({ merchant: 'sandbox', amount: 10, callbackUrl: CALLBACK })
    if (created.result !== 100) throw new Error('create failed')
    await sb.addFault({ route: 'checkout', status: 503 })
    const page = await send(sb.url, 'GET', `/pay/${created.trackId}`)
    expect(page.status).toBe(503)
    expect(page.headers?.['content-type']).toMatch(/^text\/html/)
    expect(page.text).toContain('The checkout page is not available right now')
    expect((await send(sb.url, 'GET', `/pay/${created.trackId}/status`)).status).toBe(200)
    await sb.clearFaults()
    await sb.addFault({ route: 'checkout', html: 504 })
    expect((await send(sb.url, 'GET', `/pay/${created.trackId}`)).text).toContain('504 Gateway Time-out')
  })
})

describe('which requests a rule reaches', () => {
  test("the sandbox's own clients (the operator's mark) get real answers and spend nothing of a rule", async () => {
    const sb = await sandbox()
    const trackId = await paidPayment(sb)
    const rule = await sb.addFault({ route: 'all', status: 503, times: 1 })
    const operator = await sb.client.raw({ method: 'POST', path: '/api/v1/verify', body: { merchant: 'sandbox', trackId }, operator: true })
    expect(operator).toMatchObject({ status: 200, json: { result: 100 } })
    const page = await sb.client.raw({ method: 'GET', path: `/pay/${trackId}`, operator: true })
    expect(page.status).toBe(200)
    expect(await sb.client.listFaults()).toEqual([expect.objectContaining({ id: rule.id, matched: 0, played: 0 })])
    // The merchant's own call gets the fault.
    expect((await verify(sb, trackId)).status).toBe(503)
  })

  test('merchant and trackId narrow a rule; other merchants and payments get real answers', async () => {
    const sb = await sandbox()
    const shop = await sb.client.createMerchant({ key: 'shop_a' })
    const trackA = await paidPayment(sb, shop.key)
    const trackB = await paidPayment(sb, shop.key)
    const mine = await paidPayment(sb)
    await sb.addFault({ route: 'verify', status: 500, merchant: 'shop_a', trackId: trackA })
    expect((await verify(sb, trackA, undefined, 'shop_a')).status).toBe(500)
    expect((await verify(sb, trackB, undefined, 'shop_a')).status).toBe(200)
    expect((await verify(sb, mine)).status).toBe(200)
    await sb.addFault({ route: 'all', reset: true, merchant: 'nobody' })
    expect((await create(sb)).status).toBe(200)
  })

  test('a seeded rate faults the same requests on every run, and goes on where it was after a restart', async () => {
    const sequence = async (sb: Sandbox, n: number) => {
      const out: string[] = []
      for (let i = 0; i < n; i++) out.push((await create(sb)).status === 503 ? 'x' : '.')
      return out.join('')
    }
    const rule = { route: 'create', status: 503, rate: 0.4, seed: 1234 } as const
    const a = await sandbox()
    await a.addFault(rule)
    const whole = await sequence(a, 24)
    expect(whole).toMatch(/x/)
    expect(whole).toMatch(/\./)
    const b = await sandbox()
    await b.addFault(rule)
    expect(await sequence(b, 24)).toBe(whole)

    // The same rule, stopped after 10 requests and started again on its data file: the sequence goes on.
    const dir = await tempDir()
    const dataFile = `${dir}/data.json`
    let c = await startSandbox({ dataFile })
    await c.addFault(rule)
    const first = await sequence(c, 10)
    await c.stop()
    c = await startSandbox({ dataFile })
    try {
      expect(first + (await sequence(c, 14))).toBe(whole)
    } finally {
      await c.stop()
    }
  })

  test('rules play in the order they were added; the first whose scope takes the request plays', async () => {
    const sb = await sandbox()
    const trackId = await paidPayment(sb)
    await sb.addFault({ route: 'verify', status: 502, times: 1 })
    await sb.addFault({ route: 'verify', status: 504, times: 1 })
    expect((await verify(sb, trackId)).status).toBe(502)
    expect((await verify(sb, trackId)).status).toBe(504)
    expect((await verify(sb, trackId)).status).toBe(200)
  })
})

describe('rules are kept, shown and cleared', () => {
  test('they survive a restart with their counts; pay sandbox reset clears them with the payments', async () => {
    const dir = await tempDir()
    const dataFile = `${dir}/data.json`
    let sb = await startSandbox({ dataFile })
    const trackId = await paidPayment(sb)
    const rule = await sb.addFault({ route: 'verify', status: 503, times: 3 })
    await verify(sb, trackId)
    await sb.stop()
    sb = await startSandbox({ dataFile })
    try {
      expect(await sb.client.listFaults()).toEqual([expect.objectContaining({ id: rule.id, played: 1, times: 3 })])
      expect((await verify(sb, trackId)).status).toBe(503)
      await expect.poll(() => sb.server.faults.hits().length).toBe(2)
      const reset = await sb.client.reset()
      expect(reset.cleared).toEqual({ payments: 1, deliveries: 1, faults: 1 })
      expect(await sb.client.listFaults()).toEqual([])
      expect(sb.server.faults.hits()).toEqual([])
      expect((await create(sb)).status).toBe(200)
    } finally {
      await sb.stop()
    }
  })

  test('an import removes them too, and export files carry none', async () => {
    const sb = await sandbox()
    await sb.addFault({ route: 'verify', status: 503 })
    const file = await sb.client.exportState()
    expect(Object.keys(file)).not.toContain('faults')
    await sb.client.importState(file)
    expect(await sb.client.listFaults()).toEqual([])
  })

  test('faulted requests show in the request log with what was done; one with no answer has status 0', async () => {
    const sb = await sandbox()
    const trackId = await paidPayment(sb)
    await sb.addFault({ route: 'verify', status: 503, times: 1 })
    await sb.addFault({ route: 'verify', timeout: true, times: 1 })
    await verify(sb, trackId)
    await verify(sb, trackId, 500)
    await expect.poll(async () => (await sb.client.listRequests({ path: '/api/v1/verify' })).requests.length).toBe(2)
    const [answered, held] = (await sb.client.listRequests({ path: '/api/v1/verify' })).requests
    expect(answered).toMatchObject({ status: 503, result: 503, error: 'service_unavailable', trackId, fault: 'status 503' })
    expect(held).toMatchObject({ status: 0, trackId, fault: expect.stringMatching(/^timeout, client gave up after 0\.[5-9] s$/) })
    expect(held!.ms).toBeGreaterThanOrEqual(490)
  })

  test(`at most ${HELD_MAX} requests are held or delayed at once: past that a held one is closed and a delayed one answered at once`, async () => {
    const sb = await sandbox()
    const trackId = await paidPayment(sb)
    await sb.addFault({ route: 'verify', timeout: true, times: HELD_MAX })
    await sb.addFault({ route: 'verify', delay: '4m', times: 1 })
    await sb.addFault({ route: 'verify', timeout: true, times: 1 })
    const held = Array.from({ length: HELD_MAX }, () => verify(sb, trackId, 55_000))
    await expect.poll(async () => (await sb.client.listFaults())[0]!.played).toBe(HELD_MAX)
    const late = await verify(sb, trackId)
    expect(late).toMatchObject({ status: 200, json: { result: 100 } })
    expect(late.ms).toBeLessThan(10_000)
    const closed = await verify(sb, trackId, 55_000)
    expect(closed.error).toMatch(/socket hang up|ECONNRESET/)
    expect(closed.ms).toBeLessThan(10_000)
    // The held ones are still held, until the sandbox stops.
    await sb.stop()
    for (const seen of await Promise.all(held)) expect(seen.error).toMatch(/socket hang up|ECONNRESET/)
  })

  test('a graceful stop does not wait for held requests: it closes them', async () => {
    const sb = await startSandbox()
    const trackId = await paidPayment(sb)
    await sb.addFault({ route: 'verify', timeout: true })
    await sb.addFault({ route: 'create', delay: '4m' })
    const held = verify(sb, trackId, 60_000)
    const late = create(sb)
    await expect.poll(() => sb.server.faults.list().every((r: FaultRule) => r.played === 1)).toBe(true)
    const started = performance.now()
    await sb.stop()
    expect(performance.now() - started).toBeLessThan(10_000)
    expect((await held).error).toMatch(/socket hang up|ECONNRESET/)
    // A delay is cut short: the real answer goes at once.
    expect((await late).status).toBe(200)
  })
})
