import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, onTestFinished, test } from 'vitest'
import { type Sandbox, type SandboxClient, startSandbox } from '../../src/index.js'
import { eventually } from '../callbacks/receiver.js'
import { pay, tempDir } from '../helpers.js'
import { faultyFs, gate } from '../store/faulty-fs.js'

async function payment(client: SandboxClient, merchant = 'sandbox'): Promise<string> {
  const created = await client.createPayment({ merchant, amount: 7, callbackUrl: 'https://shop.example/cb' })
  if (created.result !== 100) throw new Error(`create failed: ${JSON.stringify(created)}`)
  return created.trackId
}

/** The journal once it holds `count` verify calls. */
function journal(client: SandboxClient, trackId: string, count: number) {
  return eventually(async () => {
    const { verifies } = await client.getPayment(trackId)
    return verifies.count >= count ? verifies : undefined
  })
}

describe('the verify journal', () => {
  let sb: Sandbox
  beforeAll(async () => {
    sb = await startSandbox()
  })
  afterAll(() => sb.stop())

  test('records every verify of an existing payment: time, key (an unknown one by its start only), result, amount, status then', async () => {
    const other = await sb.client.createMerchant({ key: 'other_shop_key' })
    const trackId = await payment(sb.client)
    await sb.client.verifyPayment({ merchant: 'sandbox', trackId })
    await sb.client.simulate(trackId, { outcome: 'paid' })
    await sb.client.verifyPayment({ merchant: 'sandbox', trackId })
    await sb.client.verifyPayment({ merchant: other.key, trackId })
    await sb.client.verifyPayment({ merchant: 'sk_live_0123456789abcdef', trackId })
    await sb.client.verifyPayment({ merchant: 'sandbox', trackId: 'no-such-track-id' })
    const { entries, count } = await journal(sb.client, trackId, 4)
    expect(count).toBe(4)
    expect(entries).toEqual([
      { trackId, at: expect.any(String), key: 'sandbox', owner: true, result: 202, amount: 7, status: 'pending' },
      { trackId, at: expect.any(String), key: 'sandbox', owner: true, result: 100, amount: 7, status: 'paid' },
      { trackId, at: expect.any(String), key: 'other_shop_key', owner: false, result: 203, status: 'paid' },
      { trackId, at: expect.any(String), keyHint: 'sk_l… (24 characters)', owner: false, result: 104, status: 'paid' },
    ])
    const shown = await pay(['payment', 'show', trackId, '--url', sb.url])
    expect(shown.stdout).toMatch(/Verify calls\nAT\s+KEY\s+RESULT\s+AMOUNT\s+STATUS THEN\n.*sandbox\s+202\s+7\s+pending/)
    expect(shown.stdout).toMatch(/sk_l… \(24 characters\) \(not the merchant's\)\s+104/)
    const page = await sb.client.raw({ method: 'GET', path: `/inspect/payments/${trackId}`, headers: { accept: 'text/html' } })
    expect(page.text).toContain('<h2 id="verifies-heading">Verify calls</h2>')
    expect(page.text).toContain('4 in all')
    expect(page.text).toContain('<code>sk_l… (24 characters)</code> <span class="flag">unknown key</span>')
  })

  test('keeps the latest 50 of a payment, and the count of all', async () => {
    const trackId = await payment(sb.client)
    for (let i = 0; i < 60; i++) await sb.client.verifyPayment({ merchant: i < 10 ? 'wrong_key_x' : 'sandbox', trackId })
    const { entries, count } = await journal(sb.client, trackId, 60)
    expect(count).toBe(60)
    expect(entries).toHaveLength(50)
    expect(entries.every((e) => e.owner)).toBe(true)
  })

  test('pay payment wait --verified: exit 0 once the merchant verified the current status, 6 on timeout, --result must match', async () => {
    const trackId = await payment(sb.client)
    await sb.client.verifyPayment({ merchant: 'sandbox', trackId })
    await sb.client.simulate(trackId, { outcome: 'paid' })
    // The verify of the pending payment came before the change: it does not count.
    const early = await pay(['payment', 'wait', trackId, '--verified', '--timeout', '300ms', '--url', sb.url])
    expect(early.code).toBe(6)
    expect(early.stderr).toContain(`payment ${trackId} is still paid after 300ms (waiting for its merchant to verify its paid status (1 verify calls so far))`)
    const waiting = pay(['payment', 'wait', trackId, '--status', 'paid', '--verified', '--result', '100', '--timeout', '10s', '--url', sb.url, '--json'])
    await new Promise((r) => setTimeout(r, 300))
    await sb.client.verifyPayment({ merchant: 'sandbox', trackId })
    const done = await waiting
    expect(done.code).toBe(0)
    expect(JSON.parse(done.stdout)).toMatchObject({ status: 'paid', verifiedBy: { owner: true, result: 100, status: 'paid' } })
    const wrong = await pay(['payment', 'wait', trackId, '--verified', '--result', '202', '--timeout', '200ms', '--url', sb.url])
    expect(wrong.code).toBe(6)
  })
})

test('a verify answers without waiting for the journal, and its entry shows only once written', async () => {
  const slow = gate()
  let holding = false
  const sb = await startSandbox({
    storeFs: faultyFs({
      sync: async (path) => {
        if (holding && path.endsWith('.journal')) await slow.wait()
      },
    }),
  })
  onTestFinished(() => sb.stop())
  const trackId = await payment(sb.client)
  holding = true
  // Answered while the journal's sync is held: a verify that waited for it would not answer until it is let go.
  const held = new Promise<never>((_, reject) => setTimeout(() => reject(new Error('the verify waited for the journal')), 10_000).unref())
  expect(await Promise.race([sb.client.verifyPayment({ merchant: 'sandbox', trackId }), held])).toEqual({ result: 202, amount: 7 })
  await eventually(() => (slow.waiting() ? true : undefined))
  expect((await sb.client.getPayment(trackId)).verifies.count).toBe(0)
  slow.open()
  expect((await journal(sb.client, trackId, 1)).entries[0]).toMatchObject({ result: 202, owner: true })
})

test('the verify journal is kept in the data file across a restart', async () => {
  const dataFile = join(await tempDir(), 'data.json')
  const first = await startSandbox({ dataFile })
  const trackId = await payment(first.client)
  await first.client.verifyPayment({ merchant: 'sandbox', trackId })
  await first.client.verifyPayment({ merchant: 'sandbox', trackId })
  await first.stop()
  const second = await startSandbox({ dataFile })
  onTestFinished(() => second.stop())
  expect((await second.client.getPayment(trackId)).verifies).toMatchObject({ count: 2, entries: [{ result: 202 }, { result: 202 }] })
})
