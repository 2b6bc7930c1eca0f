import { describe, expect, test } from 'vitest'
import { SandboxApiError, type Sandbox } from '../../src/index.js'
import { sandbox } from '../helpers.js'
import { closedPortUrl, eventually, receiver } from './receiver.js'

async function deliveredPayment(sb: Sandbox, callbackUrl: string): Promise<string> {
  const created = await sb.client.createPayment({ merchant: 'sandbox', amount: 40, callbackUrl })
  if (created.result !== 100) throw new Error('create failed')
  await sb.client.simulate(created.trackId, { outcome: 'unfinalized' })
  await sb.client.simulate(created.trackId, { outcome: 'paid' })
  await eventually(async () => {
    const list = await sb.client.listDeliveries({ trackId: created.trackId })
    return list.length === 2 && list.every((d) => d.state === 'delivered') ? true : undefined
  })
  return created.trackId
}

describe('replay through the sandbox', () => {
  test('sends the same body to another URL, once, as a new delivery linked to the original', async () => {
    const original = await receiver()
    const other = await receiver(() => ({ status: 202, body: 'got it again' }))
    const sb = await sandbox({ callbacks: { scheduleMs: [50] } })
    const trackId = await deliveredPayment(sb, original.url)
    const [first] = await sb.client.listDeliveries({ trackId })

    const replay = await sb.client.replayDelivery(first!.id, { to: other.url })
    expect(replay.id).not.toBe(first!.id)
    expect(replay).toMatchObject({ replayOf: first!.id, url: other.url, trackId, state: 'delivered', maxRetries: 0 })
    expect(replay.attempts).toEqual([expect.objectContaining({ attempt: 1, status: 202, responseExcerpt: 'got it again' })])

    const [got] = await other.waitFor(1)
    expect(got!.text).toBe(original.received[0]!.text)
    expect(got!.headers['x-pay-sandbox-delivery']).toBe(replay.id)
    expect(got!.headers['x-pay-sandbox-replay-of']).toBe(first!.id)
    expect(got!.headers['x-pay-sandbox-attempt']).toBe('1')
    expect(original.received).toHaveLength(2)

    const all = await sb.client.listDeliveries({ trackId })
    expect(all.map((d) => d.id)).toEqual([first!.id, all[1]!.id, replay.id])
    expect(await sb.client.getDelivery(replay.id)).toEqual(replay)
  })

  test('a trackId replays its latest delivery to the recorded URL', async () => {
    const rx = await receiver()
    const sb = await sandbox()
    const trackId = await deliveredPayment(sb, rx.url)
    const replay = await sb.client.replayDelivery(trackId)
    expect(replay.url).toBe(rx.url)
    expect(replay.body).toMatchObject({ status: 'paid' })
    const got = await rx.waitFor(3)
    expect(got[2]!.json.status).toBe('paid')
  })

  test('a replay that is not delivered is failed at once (no retries) and says why', async () => {
    const rx = await receiver()
    const sb = await sandbox({ callbacks: { scheduleMs: [50] } })
    const trackId = await deliveredPayment(sb, rx.url)
    const replay = await sb.client.replayDelivery(trackId, { to: await closedPortUrl() })
    expect(replay.state).toBe('failed')
    expect(replay.attempts).toHaveLength(1)
    expect(replay.attempts[0]!.error).toMatch(/ECONNREFUSED/)
  })

  test.each([
    ['an unknown id', 'dlv_nothing', {}, 404, /no delivery or payment with id dlv_nothing/],
    ['a payment without deliveries', 'PENDING', {}, 404, /has no callback deliveries yet/],
    ['a to that is not a URL', 'LATEST', { to: 'localhost:3000' }, 400, /to must be an .*http or https URL/],
    ['a to with another scheme', 'LATEST', { to: 'ftp://127.0.0.1/x' }, 400, /http or https URL \(got ftp:\)/],
  ])('refuses %s with a clear 4xx', async (_name, ref, body, status, message) => {
    const rx = await receiver()
    const sb = await sandbox()
    const trackId = await deliveredPayment(sb, rx.url)
    const pending = await sb.client.createPayment({ merchant: 'sandbox', amount: 1, callbackUrl: rx.url })
    const target = ref === 'PENDING' ? (pending as { trackId: string }).trackId : ref === 'LATEST' ? trackId : ref
    const error = await sb.client.replayDelivery(target, body).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(SandboxApiError)
    expect((error as SandboxApiError).statusCode).toBe(status)
    expect((error as SandboxApiError).message).toMatch(message)
  })

  test('list filters and unknown routes answer 4xx JSON, never 5xx', async () => {
    const rx = await receiver()
    const sb = await sandbox()
    const trackId = await deliveredPayment(sb, rx.url)
    expect(await sb.client.listDeliveries({ trackId, limit: 1 })).toEqual([expect.objectContaining({ body: expect.objectContaining({ status: 'paid' }) })])
    expect(await sb.client.listDeliveries({ state: 'failed' })).toEqual([])
    for (const [method, path, body, status] of [
      ['GET', '/_sandbox/deliveries?state=lost', undefined, 400],
      ['GET', '/_sandbox/deliveries?limit=0', undefined, 400],
      ['GET', '/_sandbox/deliveries/dlv_missing', undefined, 404],
      ['POST', `/_sandbox/deliveries/${trackId}/replay`, { to: '' }, 400],
      ['POST', `/_sandbox/deliveries/${trackId}/replay`, '[1,2]', 400],
    ] as const) {
      const res = await sb.client.raw({ method, path, ...(body !== undefined ? { body } : {}) })
      expect(res.status, `${method} ${path}`).toBe(status)
      expect(res.json).toMatchObject({ statusCode: status, message: expect.any(String) })
    }
  })
})
