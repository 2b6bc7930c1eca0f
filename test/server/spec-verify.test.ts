import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { type Sandbox, startSandbox } from '../../src/index.js'

const callbackUrl = 'http://127.0.0.1:9/callback'

describe('POST /api/v1/verify', () => {
  let sb: Sandbox
  const create = async (merchant = 'sandbox', amount = 25.5): Promise<string> => {
    const body = await sb.client.createPayment({ merchant, amount, callbackUrl })
    if (body.result !== 100) throw new Error(JSON.stringify(body))
    return body.trackId
  }
  const verify = async (trackId: unknown, merchant: unknown = 'sandbox') => {
    const res = await sb.client.raw({ method: 'POST', path: '/api/v1/verify', body: { merchant, trackId } })
    expect(res.status).toBe(200)
    return res.json as Record<string, unknown>
  }

  beforeAll(async () => {
    sb = await startSandbox()
    await sb.client.createMerchant({ key: 'other-shop', name: 'Other shop' })
    await sb.client.createMerchant({ key: 'off-shop', name: 'Off shop' })
  })
  afterAll(() => sb.stop())

  test('pending: 202 with the order amount only', async () => {
    const trackId = await create()
    expect(await verify(trackId)).toEqual({ result: 202, amount: 25.5 })
  })

  test('unknown trackId: 203 with message, no amount', async () => {
    expect(await verify('does-not-exist')).toEqual({ result: 203, message: 'Invalid track ID' })
    expect(await verify(undefined)).toEqual({ result: 203, message: 'Invalid track ID' })
    expect(await verify(12345)).toEqual({ result: 203, message: 'Invalid track ID' })
  })

  test("another merchant's trackId is answered exactly as an unknown one", async () => {
    const trackId = await create('other-shop')
    await sb.client.simulate(trackId, { outcome: 'paid' })
    expect(await verify(trackId, 'sandbox')).toEqual({ result: 203, message: 'Invalid track ID' })
    expect((await verify(trackId, 'other-shop')).result).toBe(100)
  })

  test('unfinalized: 203 with amount and no message', async () => {
    const trackId = await create()
    await sb.client.simulate(trackId, { outcome: 'unfinalized' })
    expect(await verify(trackId)).toEqual({ result: 203, amount: 25.5 })
  })

  test('paid: 100 with amount and refNumber, the same on every verify', async () => {
    const trackId = await create()
    await sb.client.simulate(trackId, { outcome: 'paid' })
    const first = await verify(trackId)
    expect(Object.keys(first).sort()).toEqual(['amount', 'refNumber', 'result'])
    expect(first).toMatchObject({ result: 100, amount: 25.5 })
    expect(first.refNumber).toMatch(/^\d{12}$/)
    expect(await verify(trackId)).toEqual(first)
  })

  test('unfinalized then paid keeps the amount paid and gets a refNumber', async () => {
    const trackId = await create()
    await sb.client.simulate(trackId, { outcome: 'unfinalized', amount: 20 })
    expect(await verify(trackId)).toEqual({ result: 203, amount: 20 })
    await sb.client.simulate(trackId, { outcome: 'paid' })
    expect(await verify(trackId)).toMatchObject({ result: 100, amount: 20 })
  })

  test('paid with a different amount: verify reports the amount paid, not the order amount', async () => {
    const trackId = await create('sandbox', 100)
    await sb.client.simulate(trackId, { outcome: 'paid', amount: 99.99 })
    expect(await verify(trackId)).toMatchObject({ result: 100, amount: 99.99 })
  })

  test('failed (not completed): 202 with the order amount', async () => {
    const trackId = await create()
    await sb.client.simulate(trackId, { outcome: 'failed' })
    expect(await verify(trackId)).toEqual({ result: 202, amount: 25.5 })
  })

  test('invalid key: 104; disabled merchant: 103 — before the trackId is looked at', async () => {
    const trackId = await create('off-shop')
    expect(await verify(trackId, 'nope')).toEqual({ result: 104, message: 'Invalid API key' })
    expect(await verify(trackId, null)).toEqual({ result: 104, message: 'Invalid API key' })
    await sb.client.setMerchantEnabled('off-shop', false)
    expect(await verify(trackId, 'off-shop')).toEqual({ result: 103, message: 'Merchant account is disabled' })
    expect(await verify('does-not-exist', 'off-shop')).toEqual({ result: 103, message: 'Merchant account is disabled' })
    await sb.client.setMerchantEnabled('off-shop', true)
    expect(await verify(trackId, 'off-shop')).toEqual({ result: 202, amount: 25.5 })
  })

  test('final states cannot move: a 409 naming the states, verify unchanged', async () => {
    const trackId = await create()
    await sb.client.simulate(trackId, { outcome: 'paid' })
    const before = await verify(trackId)
    const res = await sb.client.raw({ method: 'POST', path: `/_sandbox/payments/${trackId}/simulate`, body: { outcome: 'failed' } })
    expect(res.status).toBe(409)
    expect(res.json).toMatchObject({ error: 'invalid_transition', message: expect.stringContaining('paid, a final state') })
    expect(await verify(trackId)).toEqual(before)
  })

  test('every status change is recorded with its time and source', async () => {
    const trackId = await create()
    await sb.client.simulate(trackId, { outcome: 'unfinalized' })
    await sb.client.simulate(trackId, { outcome: 'paid' })
    const { payment } = await sb.client.getPayment(trackId)
    expect(payment.history.map((h) => [h.status, h.source])).toEqual([
      ['pending', 'api'],
      ['unfinalized', 'control'],
      ['paid', 'control'],
    ])
    for (const h of payment.history) expect(Number.isNaN(Date.parse(h.at))).toBe(false)
  })
})
