import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, onTestFinished, test } from 'vitest'
import { type Sandbox, type SandboxClient, startSandbox } from '../../src/index.js'
import { eventually, receiver } from '../callbacks/receiver.js'
import { pay, tempDir } from '../helpers.js'

async function payment(client: SandboxClient, callbackUrl = 'https://shop.example/cb', amount = 10): Promise<string> {
  const created = await client.createPayment({ merchant: 'sandbox', amount, callbackUrl })
  if (created.result !== 100) throw new Error(`create failed: ${JSON.stringify(created)}`)
  return created.trackId
}

describe('expiry (--payment-ttl 15m)', () => {
  let sb: Sandbox
  beforeAll(async () => {
    sb = await startSandbox({ paymentTtlMs: 15 * 60_000 })
  })
  afterAll(() => sb.stop())

  test('a pending payment older than the TTL expires, stamped at its deadline: a notification, verify 202 with the amount, a page without controls', async () => {
    const rx = await receiver()
    const trackId = await payment(sb.client, rx.url, 12.5)
    const unfinalized = await payment(sb.client, rx.url)
    await sb.client.simulate(unfinalized, { outcome: 'unfinalized' })
    const { payment: created } = await sb.client.getPayment(trackId)
    await sb.client.advanceClock(14 * 60_000)
    expect((await sb.client.getPayment(trackId)).payment.status).toBe('pending')
    const page = await sb.client.raw({ method: 'GET', path: `/pay/${trackId}`, headers: { accept: 'text/html' } })
    expect(page.text).toContain(`<time id="expires" datetime="${new Date(Date.parse(created.createdAt) + 900_000).toISOString()}"`)

    await sb.client.advanceClock(60_000)
    const { payment: expired } = await sb.client.getPayment(trackId)
    expect(expired.status).toBe('expired')
    expect(expired.history.at(-1)).toEqual({ status: 'expired', at: new Date(Date.parse(created.createdAt) + 900_000).toISOString(), source: 'clock' })
    expect(await sb.client.verifyPayment({ merchant: 'sandbox', trackId })).toEqual({ result: 202, amount: 12.5 })
    const got = await eventually(() => rx.received.find((r) => r.json.trackId === trackId))
    expect(got.json).toMatchObject({ status: 'expired', amount: 12.5 })
    expect(got.json).not.toHaveProperty('paidAmount')
    const after = await sb.client.raw({ method: 'GET', path: `/pay/${trackId}`, headers: { accept: 'text/html' } })
    expect(after.text).toContain('Payment expired')
    expect(after.text).not.toContain('data-outcome=')
    // The customer had paid the other one: it waits for confirmations instead.
    expect((await sb.client.getPayment(unfinalized)).payment.status).toBe('unfinalized')
  })

  test('an expired payment is final; simulate --outcome expired forces it, only from pending', async () => {
    const trackId = await payment(sb.client)
    expect((await sb.client.simulate(trackId, { outcome: 'expired' })).status).toBe('expired')
    const res = await sb.client.raw({ method: 'POST', path: `/_sandbox/payments/${trackId}/simulate`, body: { outcome: 'paid' } })
    expect(res.status).toBe(409)
    expect(res.json).toMatchObject({ error: 'invalid_transition', message: `payment ${trackId} is expired, a final state; it cannot become paid` })
    const paid = await payment(sb.client)
    await sb.client.simulate(paid, { outcome: 'unfinalized' })
    const cli = await pay(['payment', 'simulate', paid, '--outcome', 'expired', '--url', sb.url])
    expect(cli.code).toBe(5)
    expect(cli.stderr).toContain('is unfinalized; it can become paid or failed, not expired')
    const listed = await pay(['payment', 'list', '--status', 'expired', '--url', sb.url, '--json'])
    expect(JSON.parse(listed.stdout).payments.map((p: { trackId: string }) => p.trackId)).toContain(trackId)
  })
})

test('a payment past its TTL at start expires at once', async () => {
  const dataFile = join(await tempDir(), 'data.json')
  const first = await startSandbox({ dataFile })
  const trackId = await payment(first.client)
  await first.client.advanceClock(3_600_000)
  await first.stop()
  const second = await startSandbox({ dataFile, paymentTtlMs: 30 * 60_000 })
  onTestFinished(() => second.stop())
  const { payment: p } = await eventually(async () => {
    const found = await second.client.getPayment(trackId)
    return found.payment.status === 'expired' ? found : undefined
  })
  expect(p.history.at(-1)?.source).toBe('clock')
})

describe('confirmations', () => {
  let sb: Sandbox
  beforeAll(async () => {
    sb = await startSandbox()
  })
  afterAll(() => sb.stop())

  test('unfinalized starts at 0 of its asset’s confirmations; each block adds one; at the last it is paid by the chain and notified', async () => {
    const rx = await receiver()
    const btc = await payment(sb.client, rx.url)
    const eth = await payment(sb.client, rx.url)
    await sb.client.simulate(btc, { outcome: 'unfinalized', asset: 'BTC' })
    await sb.client.simulate(eth, { outcome: 'unfinalized', asset: 'ETH' })
    expect((await sb.client.getPayment(btc)).payment).toMatchObject({ confirmations: 0, confirmationsRequired: 2 })
    expect((await sb.client.getPayment(eth)).payment).toMatchObject({ confirmations: 0, confirmationsRequired: 3 })
    const status = await sb.client.raw({ method: 'GET', path: `/pay/${btc}/status` })
    expect(status.json).toMatchObject({ status: 'unfinalized', confirmations: 0, confirmationsRequired: 2 })

    const one = await sb.client.mine()
    expect(one.payments).toEqual(expect.arrayContaining([
      { trackId: btc, status: 'unfinalized', confirmations: 1, confirmationsRequired: 2 },
      { trackId: eth, status: 'unfinalized', confirmations: 1, confirmationsRequired: 3 },
    ]))
    expect(await sb.client.verifyPayment({ merchant: 'sandbox', trackId: btc })).toEqual({ result: 203, amount: 10 })
    await sb.client.mine()
    const paid = (await sb.client.getPayment(btc)).payment
    expect(paid).toMatchObject({ status: 'paid', confirmations: 2 })
    expect(paid.history.at(-1)?.source).toBe('chain')
    expect(await sb.client.verifyPayment({ merchant: 'sandbox', trackId: btc })).toMatchObject({ result: 100, amount: 10 })
    const statuses = await eventually(() => {
      const mine = rx.received.filter((r) => r.json.trackId === btc).map((r) => r.json.status)
      return mine.length === 2 ? mine : undefined
    })
    expect(statuses.sort()).toEqual(['paid', 'unfinalized'])
    // A block is not a status change: the ETH payment was notified once so far.
    expect(rx.received.filter((r) => r.json.trackId === eth)).toHaveLength(1)
  })

  test('simulate --outcome paid still finalizes an unfinalized payment at once; mining skips what is not unfinalized', async () => {
    const trackId = await payment(sb.client)
    await sb.client.simulate(trackId, { outcome: 'unfinalized' })
    expect((await sb.client.simulate(trackId, { outcome: 'paid' })).status).toBe('paid')
    const mined = await sb.client.mine(3)
    expect(mined.payments.map((p) => p.trackId)).not.toContain(trackId)
  })

  test('mine bodies are checked; pay chain and pay chain mine print and return the chain', async () => {
    for (const blocks of [0, 1001, 1.5]) {
      const res = await sb.client.raw({ method: 'POST', path: '/_sandbox/chain/mine', body: { blocks } })
      expect(res.status, String(blocks)).toBe(400)
    }
    const trackId = await payment(sb.client)
    await sb.client.simulate(trackId, { outcome: 'unfinalized', asset: 'ETH' })
    const mined = await pay(['chain', 'mine', '--blocks', '2', '--url', sb.url])
    expect(mined.code).toBe(0)
    expect(mined.stdout).toMatch(new RegExp(`${trackId}\\s+2 of 3\\s+unfinalized`))
    const shown = await pay(['payment', 'show', trackId, '--url', sb.url])
    expect(shown.stdout).toMatch(/confirmations\s+2 of 3/)
    const chain = await pay(['chain', '--url', sb.url, '--json'])
    expect(JSON.parse(chain.stdout)).toMatchObject({ confirmations: { BTC: 2, ETH: 3, 'USDT-TRC20': 1, LTC: 2, TRX: 1 }, unfinalized: expect.any(Number) })
  })
})

test('--confirmations sets one number for every asset, and --block-time mines on the sandbox clock', async () => {
  const sb = await startSandbox({ chain: { confirmations: 4, blockTimeMs: 60_000 } })
  onTestFinished(() => sb.stop())
  const trackId = await payment(sb.client)
  await sb.client.simulate(trackId, { outcome: 'unfinalized', asset: 'TRX' })
  expect((await sb.client.getPayment(trackId)).payment.confirmationsRequired).toBe(4)
  await sb.client.advanceClock(3 * 60_000)
  expect((await sb.client.getPayment(trackId)).payment).toMatchObject({ status: 'unfinalized', confirmations: 3 })
  await sb.client.advanceClock(60_000)
  const { payment: paid } = await sb.client.getPayment(trackId)
  expect(paid.status).toBe('paid')
  expect(Date.parse(paid.updatedAt) - Date.parse(paid.createdAt)).toBeGreaterThanOrEqual(4 * 60_000 - 1_000)
  expect((await sb.client.chain()).height).toBe(4)
})
