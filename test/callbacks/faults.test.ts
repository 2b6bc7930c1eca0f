import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, onTestFinished, test } from 'vitest'
import { type Sandbox, type SandboxClient, startSandbox } from '../../src/index.js'
import { pay, tempDir } from '../helpers.js'
import { eventually, receiver } from './receiver.js'

async function payment(client: SandboxClient, callbackUrl: string): Promise<string> {
  const created = await client.createPayment({ merchant: 'sandbox', amount: 10, callbackUrl })
  if (created.result !== 100) throw new Error(`create failed: ${JSON.stringify(created)}`)
  return created.trackId
}

const settle = () => new Promise((r) => setTimeout(r, 150))

describe('callback faults asked for by simulate', () => {
  let sb: Sandbox
  beforeAll(async () => {
    sb = await startSandbox({ callbacks: { retries: 2, scheduleMs: [1_000, 5_000], timeoutMs: 2_000 } })
  })
  afterAll(() => sb.stop())

  test('drop: recorded as dropped with its reason, never sent', async () => {
    const rx = await receiver()
    const trackId = await payment(sb.client, rx.url)
    await sb.client.simulate(trackId, { outcome: 'paid', callback: 'drop' })
    await settle()
    expect(rx.received).toHaveLength(0)
    const [d] = await sb.client.listDeliveries({ trackId })
    expect(d).toMatchObject({ state: 'dropped', attempts: [], fault: { mode: 'drop', reason: 'requested by simulate' } })
    expect(d).not.toHaveProperty('nextAttemptAt')
  })

  test('delay: sent once the sandbox clock passes the delay, not before', async () => {
    const rx = await receiver()
    const trackId = await payment(sb.client, rx.url)
    await sb.client.simulate(trackId, { outcome: 'paid', callback: 'delay=10m' })
    await settle()
    expect(rx.received).toHaveLength(0)
    const [pending] = await sb.client.listDeliveries({ trackId })
    expect(pending).toMatchObject({ state: 'pending', fault: { mode: 'delay', delayMs: 600_000 } })
    await sb.client.advanceClock(599_000)
    await settle()
    expect(rx.received).toHaveLength(0)
    await sb.client.advanceClock(1_000)
    await rx.waitFor(1)
    expect(rx.received[0]!.json.status).toBe('paid')
  })

  test('duplicate=3: the same body three times, one delivery id, attempts 1 to 3', async () => {
    const rx = await receiver()
    const trackId = await payment(sb.client, rx.url)
    await sb.client.simulate(trackId, { outcome: 'paid', callback: 'duplicate=3' })
    const got = await rx.waitFor(3)
    // Recorded once the third answer is in (which the receiver has seen first).
    const d = await eventually(async () => {
      const [x] = await sb.client.listDeliveries({ trackId })
      return x?.state === 'delivered' ? x : undefined
    })
    await settle()
    expect(rx.received).toHaveLength(3)
    expect(new Set(got.map((r) => r.text)).size).toBe(1)
    expect(new Set(got.map((r) => r.headers['x-pay-sandbox-delivery'])).size).toBe(1)
    expect(got.map((r) => r.headers['x-pay-sandbox-attempt'])).toEqual(['1', '2', '3'])
    expect(d).toMatchObject({ state: 'delivered', fault: { mode: 'duplicate', copies: 3 } })
  })

  test('duplicate copies all go even when answered non-2xx, then the retries of the policy follow', async () => {
    const rx = await receiver(() => ({ status: 500 }))
    const trackId = await payment(sb.client, rx.url)
    await sb.client.simulate(trackId, { outcome: 'paid', callback: 'duplicate=2' })
    const recorded = (n: number) =>
      eventually(async () => {
        const [x] = await sb.client.listDeliveries({ trackId })
        return x && x.attempts.length >= n ? x : undefined
      })
    await recorded(2)
    await sb.client.advanceClock(1_000)
    await recorded(3)
    await sb.client.advanceClock(5_000)
    const d = await eventually(async () => {
      const [x] = await sb.client.listDeliveries({ trackId })
      return x?.state === 'failed' ? x : undefined
    })
    expect(d.attempts.map((a) => a.attempt)).toEqual([1, 2, 3, 4])
  })

  test('reorder: held back, and sent right after the payment’s next notification', async () => {
    const rx = await receiver()
    const trackId = await payment(sb.client, rx.url)
    await sb.client.simulate(trackId, { outcome: 'unfinalized', callback: 'reorder' })
    await settle()
    expect(rx.received).toHaveLength(0)
    await sb.client.simulate(trackId, { outcome: 'paid' })
    const got = await rx.waitFor(2)
    expect(got.map((r) => r.json.status)).toEqual(['paid', 'unfinalized'])
  })

  test('a held notification goes when the next one is dropped', async () => {
    const rx = await receiver()
    const trackId = await payment(sb.client, rx.url)
    await sb.client.simulate(trackId, { outcome: 'unfinalized', callback: 'reorder' })
    await sb.client.simulate(trackId, { outcome: 'paid', callback: 'drop' })
    const [got] = await rx.waitFor(1)
    // Recorded once its answer is in (which the receiver has seen first).
    await expect.poll(async () => (await sb.client.listDeliveries({ trackId }))[0]?.state).toBe('delivered')
    await settle()
    expect(rx.received).toHaveLength(1)
    expect(got!.json.status).toBe('unfinalized')
    expect((await sb.client.listDeliveries({ trackId })).map((d) => [d.body.status, d.state])).toEqual([
      ['unfinalized', 'delivered'],
      ['paid', 'dropped'],
    ])
  })

  test('a mode that is not one, and reorder of a final outcome, are 400 invalid_field and change nothing', async () => {
    const trackId = await payment(sb.client, 'https://shop.example/cb')
    for (const callback of ['lose', 'delay=', 'duplicate=1', 'duplicate=21', 'delay=25h']) {
      const res = await sb.client.raw({ method: 'POST', path: `/_sandbox/payments/${trackId}/simulate`, body: { outcome: 'paid', callback } })
      expect(res.status, callback).toBe(400)
    }
    const res = await sb.client.raw({ method: 'POST', path: `/_sandbox/payments/${trackId}/simulate`, body: { outcome: 'paid', callback: 'reorder' } })
    expect(res.status).toBe(400)
    expect(res.json).toMatchObject({ error: 'invalid_field', message: expect.stringMatching(/reorder holds a notification back .* a paid payment has no next one/) })
    expect((await sb.client.getPayment(trackId)).payment.status).toBe('pending')
  })

  test('pay payment simulate --callback, and pay callback list / show say what was done and why', async () => {
    const trackId = await payment(sb.client, 'https://shop.example/cb')
    const bad = await pay(['payment', 'simulate', trackId, '--outcome', 'paid', '--callback', 'lose', '--url', sb.url])
    expect(bad.code).toBe(2)
    expect(bad.stderr).toMatch(/--callback: callback mode must be send, drop, delay=<duration>/)
    const ok = await pay(['payment', 'simulate', trackId, '--outcome', 'paid', '--callback', 'drop', '--url', sb.url])
    expect(ok.code).toBe(0)
    const list = await pay(['callback', 'list', '--track-id', trackId, '--url', sb.url])
    expect(list.stdout.split('\n')[1]).toMatch(/\bpaid\s+dropped\s+0\/3\s+—\s+drop\s+https:\/\/shop\.example\/cb/)
    const [d] = await sb.client.listDeliveries({ trackId })
    const show = await pay(['callback', 'show', d!.id, '--url', sb.url])
    expect(show.stdout).toMatch(/fault\s+drop \(requested by simulate\)/)
  })
})

describe('callback faults of the whole sandbox', () => {
  test('--callback-mode: every notification without its own mode, recorded as the sandbox default', async () => {
    const rx = await receiver()
    const sb = await startSandbox({ callbackFaults: { mode: { mode: 'duplicate', copies: 2 } } })
    onTestFinished(() => sb.stop())
    const trackId = await payment(sb.client, rx.url)
    await sb.client.simulate(trackId, { outcome: 'paid' })
    await rx.waitFor(2)
    const [d] = await sb.client.listDeliveries({ trackId })
    expect(d!.fault).toEqual({ mode: 'duplicate', copies: 2, reason: 'sandbox default' })
    const other = await payment(sb.client, rx.url)
    await sb.client.simulate(other, { outcome: 'paid', callback: 'send' })
    await rx.waitFor(3)
    const [sent] = await sb.client.listDeliveries({ trackId: other })
    expect(sent).not.toHaveProperty('fault')
  })

  test('--callback-chaos with a seed: the same faults for the same notifications, another seed differs', async () => {
    const faultsOf = async (seed: number) => {
      const sb = await startSandbox({ callbackFaults: { chaos: { rate: 0.5, seed } } })
      onTestFinished(() => sb.stop())
      const picked: string[] = []
      for (let i = 0; i < 12; i++) {
        const trackId = await payment(sb.client, 'https://shop.example/cb')
        await sb.client.simulate(trackId, { outcome: i % 2 === 0 ? 'unfinalized' : 'paid' })
        const [d] = await sb.client.listDeliveries({ trackId })
        picked.push(d!.fault ? `${d!.fault.mode}:${d!.fault.reason}` : 'send')
      }
      return picked
    }
    const first = await faultsOf(42)
    expect(first.some((f) => f !== 'send')).toBe(true)
    expect(first.filter((f) => f !== 'send').every((f) => f.endsWith(':chaos seed 42'))).toBe(true)
    expect(await faultsOf(42)).toEqual(first)
    expect((await faultsOf(7)).map((f) => f.split(':')[0])).not.toEqual(first.map((f) => f.split(':')[0]))
  })
})

test('a restart keeps a dropped notification dropped, and a delayed or held one pending; both go when due', async () => {
  const dataFile = join(await tempDir(), 'data.json')
  const rx = await receiver()
  const first = await startSandbox({ dataFile })
  const dropped = await payment(first.client, rx.url)
  const delayed = await payment(first.client, rx.url)
  const held = await payment(first.client, rx.url)
  await first.client.simulate(dropped, { outcome: 'paid', callback: 'drop' })
  await first.client.simulate(delayed, { outcome: 'paid', callback: 'delay=1h' })
  await first.client.simulate(held, { outcome: 'unfinalized', callback: 'reorder' })
  await first.stop()

  const second = await startSandbox({ dataFile })
  onTestFinished(() => second.stop())
  await settle()
  expect(rx.received).toHaveLength(0)
  await second.client.advanceClock(3_600_000)
  await rx.waitFor(1)
  expect(rx.received.map((r) => r.json.trackId)).toEqual([delayed])
  await second.client.simulate(held, { outcome: 'paid' })
  await rx.waitFor(3)
  expect(rx.received.slice(1).map((r) => [r.json.trackId, r.json.status])).toEqual([
    [held, 'paid'],
    [held, 'unfinalized'],
  ])
  const [d] = await second.client.listDeliveries({ trackId: dropped })
  expect(d!.state).toBe('dropped')
})
