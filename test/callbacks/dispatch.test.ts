import { join } from 'node:path'
import { describe, expect, onTestFinished, test } from 'vitest'
import { startSandbox } from '../../src/index.js'
import { sandbox, tempDir } from '../helpers.js'
import { closedPortUrl, eventually, receiver } from './receiver.js'

const fast = { scheduleMs: [50, 100] }

async function payment(sb: { client: import('../../src/index.js').SandboxClient }, callbackUrl: string, amount = 25.5) {
  const created = await sb.client.createPayment({ merchant: 'sandbox', amount, callbackUrl })
  if (created.result !== 100) throw new Error(`create failed: ${JSON.stringify(created)}`)
  return created.trackId
}

describe('callback on a status change', () => {
  test('POSTs the documented JSON body and headers, and records the delivery', async () => {
    const rx = await receiver(() => ({ status: 200, body: 'thanks' }))
    const lines: string[] = []
    const sb = await sandbox({ callbacks: fast, log: (l) => lines.push(l) })
    const trackId = await payment(sb, rx.url)
    const paid = await sb.client.simulate(trackId, { outcome: 'paid', amount: 25, asset: 'BTC' })

    const [got] = await rx.waitFor(1)
    expect(got!.method).toBe('POST')
    expect(got!.path).toBe('/callback')
    expect(got!.json).toEqual({
      event: 'payment.status_changed',
      trackId,
      status: 'paid',
      amount: 25.5,
      paidAmount: 25,
      asset: 'BTC',
      occurredAt: paid.updatedAt,
      sandbox: true,
    })
    // Nothing a receiver could take as proof of payment.
    expect(got!.json).not.toHaveProperty('refNumber')
    expect(got!.json).not.toHaveProperty('result')
    expect(got!.headers['content-type']).toBe('application/json')
    expect(got!.headers['user-agent']).toMatch(/^pay-sandbox\/\d+\.\d+\.\d+/)
    expect(got!.headers['x-pay-sandbox-event']).toBe('payment.status_changed')
    expect(got!.headers['x-pay-sandbox-attempt']).toBe('1')
    expect(got!.headers['x-pay-sandbox-replay-of']).toBeUndefined()

    const delivery = await eventually(async () => {
      const [d] = await sb.client.listDeliveries({ trackId })
      return d?.state === 'delivered' ? d : undefined
    })
    expect(got!.headers['x-pay-sandbox-delivery']).toBe(delivery.id)
    expect(delivery.url).toBe(rx.url)
    expect(JSON.stringify(delivery.body)).toBe(got!.text)
    expect(delivery.headers['X-Pay-Sandbox-Delivery']).toBe(delivery.id)
    expect(delivery.attempts).toHaveLength(1)
    expect(delivery.attempts[0]).toMatchObject({ attempt: 1, status: 200, responseExcerpt: 'thanks' })
    expect(delivery.attempts[0]!.error).toBeUndefined()
    expect(delivery.nextAttemptAt).toBeUndefined()
    expect(lines.filter((l) => l.includes(' CALLBACK '))).toEqual([
      expect.stringMatching(new RegExp(`CALLBACK POST ${rx.url} 200 trackId=${trackId} status=paid delivery=${delivery.id} attempt=1/3 .* delivered$`)),
    ])
  })

  test('a failed payment says failed, without a paid amount', async () => {
    const rx = await receiver()
    const sb = await sandbox({ callbacks: fast })
    const trackId = await payment(sb, rx.url)
    await sb.client.simulate(trackId, { outcome: 'failed' })
    const [got] = await rx.waitFor(1)
    expect(got!.json).toMatchObject({ trackId, status: 'failed', amount: 25.5 })
    expect(got!.json).not.toHaveProperty('paidAmount')
  })

  test("a payment's later notification is not held up by an earlier one's retries", async () => {
    // unfinalized fails twice before it is delivered; paid (changed right after) goes out at once regardless,
    // long before unfinalized's first retry.
    let unfinalized = 0
    const rx = await receiver((_n, r) => (r.json.status === 'unfinalized' && ++unfinalized <= 2 ? { status: 500, body: 'boom' } : { status: 204 }))
    const sb = await sandbox({ callbacks: { scheduleMs: [1000, 100] } })
    const trackId = await payment(sb, rx.url)
    await sb.client.simulate(trackId, { outcome: 'unfinalized' })
    await sb.client.simulate(trackId, { outcome: 'paid' })
    const got = await rx.waitFor(4)
    const attemptsOf = (status: string) => got.filter((r) => r.json.status === status).map((r) => r.headers['x-pay-sandbox-attempt'])
    expect(attemptsOf('unfinalized')).toEqual(['1', '2', '3'])
    expect(attemptsOf('paid')).toEqual(['1'])
    const paid = got.find((r) => r.json.status === 'paid')!
    const retried = got.filter((r) => r.json.status === 'unfinalized')[1]!
    expect(paid.at).toBeLessThan(retried.at)
    const deliveries = await eventually(async () => {
      const list = await sb.client.listDeliveries({ trackId })
      return list.every((d) => d.state === 'delivered') && list.length === 2 ? list : undefined
    })
    expect(deliveries.map((d) => d.attempts.map((a) => a.status))).toEqual([[500, 500, 204], [204]])
    expect(deliveries[0]!.attempts[0]).toMatchObject({ error: 'HTTP 500', responseExcerpt: 'boom' })
  })

  test('paid arrives within moments while unfinalized keeps failing', async () => {
    const rx = await receiver((_n, r) => (r.json.status === 'unfinalized' ? { status: 500 } : { status: 200 }))
    const sb = await sandbox({ callbacks: { retries: 5, scheduleMs: [5000] } })
    const trackId = await payment(sb, rx.url)
    await sb.client.simulate(trackId, { outcome: 'unfinalized' })
    await rx.waitFor(1)
    const changed = performance.now()
    await sb.client.simulate(trackId, { outcome: 'paid' })
    // Long before unfinalized's retry, 5 s away.
    const [, paid] = await rx.waitFor(2, 4000)
    expect(paid!.json.status).toBe('paid')
    expect(paid!.at - changed).toBeLessThan(2500)
    const [first] = await sb.client.listDeliveries({ trackId })
    expect(first).toMatchObject({ state: 'pending', body: { status: 'unfinalized' } })
  })
})

describe('many receivers at once', () => {
  test('at most 64 attempts are out at once by default; the rest go out as slots free up', async () => {
    const rx = await receiver(() => 'hang')
    const sb = await sandbox({ callbacks: { retries: 0, timeoutMs: 300 } })
    const count = 200
    for (let i = 0; i < count; i += 20) {
      await Promise.all(
        Array.from({ length: 20 }, async () => {
          const trackId = await payment(sb, rx.url)
          await sb.client.simulate(trackId, { outcome: 'paid' })
        }),
      )
    }
    await rx.waitFor(count, 15_000)
    expect(rx.connections.max).toBeLessThanOrEqual(64)
    expect(rx.connections.max).toBeGreaterThanOrEqual(32)
    const failed = await eventually(async () => {
      const list = await sb.client.listDeliveries({ state: 'failed' })
      return list.length === count ? list : undefined
    }, 10_000)
    for (const d of failed) expect(d.attempts).toEqual([expect.objectContaining({ attempt: 1, error: 'timed out after 300 ms' })])
  }, 30_000)

  test('callbacks.concurrency sets the bound; waiting deliveries go out in order of due time', async () => {
    const rx = await receiver(() => 'hang')
    const sb = await sandbox({ callbacks: { retries: 0, timeoutMs: 200, concurrency: 2 } })
    const trackIds: string[] = []
    for (let i = 0; i < 8; i++) {
      const trackId = await payment(sb, rx.url)
      await sb.client.simulate(trackId, { outcome: 'paid' })
      trackIds.push(trackId)
    }
    const got = await rx.waitFor(8, 5000)
    expect(rx.connections.max).toBe(2)
    expect(got.map((r) => r.json.trackId)).toEqual(trackIds)
  })
})

describe('clocks', () => {
  test('a wall clock set back an hour does not delay a retry, and stored times do not go backwards', async () => {
    let offset = 0
    const rx = await receiver((n) => {
      // Once the first attempt is answered and recorded, the wall clock jumps back an hour.
      if (n === 1) setTimeout(() => (offset = -3_600_000), 100)
      return n === 1 ? { status: 500 } : { status: 200 }
    })
    const sb = await sandbox({ callbacks: { retries: 1, scheduleMs: [400] }, now: () => new Date(Date.now() + offset) })
    const trackId = await payment(sb, rx.url)
    await sb.client.simulate(trackId, { outcome: 'paid' })
    const [first, second] = await rx.waitFor(2, 3000)
    expect(second!.at - first!.at).toBeGreaterThanOrEqual(380)
    const d = await eventually(async () => {
      const [x] = await sb.client.listDeliveries({ trackId })
      return x?.state === 'delivered' ? x : undefined
    })
    expect(offset).toBe(-3_600_000)
    expect(Date.parse(d.updatedAt)).toBeGreaterThanOrEqual(Date.parse(d.createdAt))
  })

  test('a delivery stored as due a day from now is due within the longest wait of the policy after a restart', async () => {
    const dataFile = join(await tempDir(), 'data.json')
    const rx = await receiver((n) => (n === 1 ? { status: 500 } : { status: 200 }))
    const first = await startSandbox({ dataFile, callbacks: { retries: 1, scheduleMs: [86_400_000] } })
    onTestFinished(() => first.stop())
    const trackId = await payment(first, rx.url)
    await first.client.simulate(trackId, { outcome: 'paid' })
    await eventually(() => (first.server.service.store.listDeliveries()[0]?.attempts.length === 1 ? true : undefined))
    await first.stop()

    const second = await startSandbox({ dataFile, callbacks: { retries: 1, scheduleMs: [300] } })
    onTestFinished(() => second.stop())
    const [, again] = await rx.waitFor(2, 3000)
    expect(again!.headers['x-pay-sandbox-attempt']).toBe('2')
  })
})

describe('retries', () => {
  test('a receiver that fails then succeeds gets the same delivery again after the scheduled wait', async () => {
    const rx = await receiver((n) => (n === 1 ? { status: 503 } : { status: 200 }))
    const sb = await sandbox({ callbacks: { retries: 2, scheduleMs: [150] } })
    const trackId = await payment(sb, rx.url)
    await sb.client.simulate(trackId, { outcome: 'paid' })
    const [first, second] = await rx.waitFor(2)
    expect(second!.text).toBe(first!.text)
    expect(second!.headers['x-pay-sandbox-delivery']).toBe(first!.headers['x-pay-sandbox-delivery'])
    expect(second!.headers['x-pay-sandbox-attempt']).toBe('2')
    expect(second!.at - first!.at).toBeGreaterThanOrEqual(130)
    const d = await eventually(async () => {
      const [x] = await sb.client.listDeliveries({ trackId })
      return x?.state === 'delivered' ? x : undefined
    })
    expect(d.attempts.map((a) => a.status)).toEqual([503, 200])
  })

  test('a receiver that hangs is timed out per attempt, retried, then marked failed', async () => {
    const rx = await receiver(() => 'hang')
    const sb = await sandbox({ callbacks: { retries: 1, timeoutMs: 200, scheduleMs: [50] } })
    const trackId = await payment(sb, rx.url)
    await sb.client.simulate(trackId, { outcome: 'paid' })
    const d = await eventually(async () => {
      const [x] = await sb.client.listDeliveries({ trackId })
      return x?.state === 'failed' ? x : undefined
    })
    expect(rx.received).toHaveLength(2)
    expect(d.attempts).toHaveLength(2)
    for (const a of d.attempts) {
      expect(a.error).toBe('timed out after 200 ms')
      expect(a.status).toBeUndefined()
      expect(a.durationMs).toBeGreaterThanOrEqual(190)
      expect(a.durationMs).toBeLessThan(1500)
    }
    expect(d.nextAttemptAt).toBeUndefined()
  })

  test('refused connections are retried per the schedule and end as failed', async () => {
    const url = await closedPortUrl()
    const sb = await sandbox({ callbacks: { retries: 2, scheduleMs: [30] } })
    const trackId = await payment(sb, url)
    await sb.client.simulate(trackId, { outcome: 'paid' })
    const d = await eventually(async () => {
      const [x] = await sb.client.listDeliveries({ trackId })
      return x?.state === 'failed' ? x : undefined
    })
    expect(d.attempts.map((a) => a.attempt)).toEqual([1, 2, 3])
    for (const a of d.attempts) expect(a.error).toMatch(/ECONNREFUSED/)
  })

  test('retries 0: one attempt only', async () => {
    const rx = await receiver(() => ({ status: 500 }))
    const sb = await sandbox({ callbacks: { retries: 0 } })
    const trackId = await payment(sb, rx.url)
    await sb.client.simulate(trackId, { outcome: 'paid' })
    const d = await eventually(async () => {
      const [x] = await sb.client.listDeliveries({ trackId })
      return x?.state === 'failed' ? x : undefined
    })
    expect(d.maxRetries).toBe(0)
    expect(d.attempts).toHaveLength(1)
    await new Promise((r) => setTimeout(r, 300))
    expect(rx.received).toHaveLength(1)
  })

  test('invalid settings are refused at start', async () => {
    await expect(startSandbox({ callbacks: { retries: -1 } })).rejects.toThrow(/retries must be a whole number/)
    await expect(startSandbox({ callbacks: { timeoutMs: 0 } })).rejects.toThrow(/timeout must be/)
  })
})

describe('restarts and stopping', () => {
  test('a pending retry survives a restart and is sent by the next sandbox on the same data file', async () => {
    const dataFile = join(await tempDir(), 'data.json')
    const rx = await receiver((n) => (n === 1 ? { status: 500 } : { status: 200 }))
    const policy = { retries: 3, scheduleMs: [400] }
    const first = await startSandbox({ dataFile, callbacks: policy })
    onTestFinished(() => first.stop())
    const trackId = await payment(first, rx.url)
    await first.client.simulate(trackId, { outcome: 'paid' })
    await rx.waitFor(1)
    await eventually(() => (first.server.service.store.listDeliveries()[0]?.attempts.length === 1 ? true : undefined))
    await first.stop()
    await new Promise((r) => setTimeout(r, 500))
    expect(rx.received).toHaveLength(1)

    const second = await startSandbox({ dataFile, callbacks: policy })
    onTestFinished(() => second.stop())
    const [one, two] = await rx.waitFor(2, 3000)
    expect(two!.headers['x-pay-sandbox-delivery']).toBe(one!.headers['x-pay-sandbox-delivery'])
    expect(two!.headers['x-pay-sandbox-attempt']).toBe('2')
    const d = await eventually(async () => {
      const [x] = await second.client.listDeliveries({ trackId })
      return x?.state === 'delivered' ? x : undefined
    })
    expect(d.attempts.map((a) => a.status)).toEqual([500, 200])
  })

  test('stop does not wait for a retry, and an attempt in flight is aborted and stays pending', async () => {
    const dataFile = join(await tempDir(), 'data.json')
    let hang = true
    const rx = await receiver(() => (hang ? 'hang' : { status: 200 }))
    const first = await startSandbox({ dataFile, callbacks: { timeoutMs: 30_000, scheduleMs: [30_000] } })
    onTestFinished(() => first.stop())
    const trackId = await payment(first, rx.url)
    await first.client.simulate(trackId, { outcome: 'paid' })
    await rx.waitFor(1)
    const started = performance.now()
    await first.stop()
    expect(performance.now() - started).toBeLessThan(2000)

    hang = false
    const second = await startSandbox({ dataFile, callbacks: { scheduleMs: [50] } })
    onTestFinished(() => second.stop())
    const got = await rx.waitFor(2)
    // The aborted try was not counted: the resumed one is attempt 1 again.
    expect(got[1]!.headers['x-pay-sandbox-attempt']).toBe('1')
    const d = await eventually(async () => {
      const [x] = await second.client.listDeliveries({ trackId })
      return x?.state === 'delivered' ? x : undefined
    })
    expect(d.attempts).toHaveLength(1)
  })
})

test('API replies are not slowed by a receiver that hangs', async () => {
  const rx = await receiver(() => 'hang')
  const sb = await sandbox({ callbacks: { timeoutMs: 20_000 } })
  const durations: number[] = []
  for (let i = 0; i < 10; i++) {
    const trackId = await payment(sb, rx.url)
    const started = performance.now()
    await sb.client.simulate(trackId, { outcome: 'paid' })
    durations.push(performance.now() - started)
  }
  await rx.waitFor(10)
  // Generous bound: a blocked reply would take the 20 s timeout.
  expect(Math.max(...durations)).toBeLessThan(5000)
  const verify = await sb.client.verifyPayment({ merchant: 'sandbox', trackId: rx.received[0]!.json.trackId as string })
  expect(verify.result).toBe(100)
})
