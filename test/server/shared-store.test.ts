/**
 * Two sandboxes on one shared store engine (a log in memory standing in for a database), each with its own replica:
 * a request to either sees every change acknowledged before it was sent (the sync barrier before each request), a
 * change through one reaches the other's listeners and job runners through the change feed, and only the leader
 * sends callbacks.
 */
import { type ChangeEvent, followEvents } from '../sse.js'
import { describe, expect, test } from 'vitest'
import { sandbox } from '../helpers.js'
import { receiver } from '../callbacks/receiver.js'
import { MemoryEngine, SharedLog } from '../store/memory-engine.js'

const json = async (url: string, body?: unknown) => {
  const res = await fetch(url, body === undefined ? {} : { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
  return { status: res.status, json: (await res.json()) as Record<string, unknown> }
}

describe('sandboxes sharing one store', () => {
  test('created through one, found, paid and verified through the other at once: each request sees what was acknowledged before it', async () => {
    const log = new SharedLog()
    const a = await sandbox({ port: 0, storeEngine: new MemoryEngine(log, 'a') })
    const b = await sandbox({ port: 0, storeEngine: new MemoryEngine(log, 'b', false) })
    for (let i = 0; i < 20; i++) {
      const created = await json(`${a.url}/api/v1/request`, { merchant: 'sandbox', amount: 10 + i, callbackUrl: 'http://127.0.0.1:9/cb' })
      const trackId = created.json.trackId as string
      expect(created.json.result).toBe(100)
      expect((await json(`${b.url}/api/v1/verify`, { merchant: 'sandbox', trackId })).json).toMatchObject({ result: 202, amount: 10 + i })
      expect((await json(`${b.url}/_sandbox/payments/${trackId}/simulate`, { outcome: 'paid' })).status).toBe(200)
      const verified = await json(`${a.url}/api/v1/verify`, { merchant: 'sandbox', trackId })
      expect(verified.json).toMatchObject({ result: 100, amount: 10 + i })
      expect(verified.json.refNumber).toEqual(expect.any(String))
      expect(verified.json.refNumber).toBe((await json(`${b.url}/api/v1/verify`, { merchant: 'sandbox', trackId })).json.refNumber)
    }
  })

  test('a notification recorded through the instance that does not lead is sent once, by the leader', async () => {
    const log = new SharedLog(true)
    const target = await receiver()
    const a = await sandbox({ port: 0, storeEngine: new MemoryEngine(log, 'a') })
    const b = await sandbox({ port: 0, storeEngine: new MemoryEngine(log, 'b', false) })
    const created = await json(`${b.url}/api/v1/request`, { merchant: 'sandbox', amount: 10, callbackUrl: `${target.url}/cb` })
    const trackId = created.json.trackId as string
    expect((await json(`${b.url}/_sandbox/payments/${trackId}/simulate`, { outcome: 'paid' })).status).toBe(200)
    const [sent] = await target.waitFor(1, 10_000)
    expect(sent?.json).toMatchObject({ trackId, status: 'paid' })
    // The attempt is recorded by the leader, and b sees it.
    await expect.poll(async () => ((await json(`${b.url}/_sandbox/payments/${trackId}`)).json.deliveries as Array<{ state: string }> | undefined)?.[0]?.state, { timeout: 10_000 }).toBe('delivered')
    expect((await json(`${a.url}/_sandbox/payments/${trackId}`)).json.deliveries).toHaveLength(1)
    await new Promise((r) => setTimeout(r, 500))
    expect(target.received).toHaveLength(1)
  })

  test("one instance's change stream shows a payment created and paid through the other, without a request to it", async () => {
    const log = new SharedLog(true)
    const a = await sandbox({ port: 0, storeEngine: new MemoryEngine(log, 'a') })
    const b = await sandbox({ port: 0, storeEngine: new MemoryEngine(log, 'b', false) })
    const events: string[] = []
    await followEvents(`${a.url}/_sandbox/events`, (event, data) => {
      const change = data as ChangeEvent
      if (event === 'payment') events.push(change.created ? 'created' : change.payment!.status)
      if (event === 'delivery') events.push(`delivery ${change.delivery!.state}`)
    })
    const created = await json(`${b.url}/api/v1/request`, { merchant: 'sandbox', amount: 10, callbackUrl: 'http://127.0.0.1:9/cb' })
    await json(`${b.url}/_sandbox/payments/${created.json.trackId as string}/simulate`, { outcome: 'paid' })
    await expect.poll(() => events.slice(0, 3), { timeout: 10_000 }).toEqual(['created', 'paid', 'delivery pending'])
  })

  test("a clock move through one instance is the other's too: it shows there, and the leader's retry it made due goes at once", async () => {
    const log = new SharedLog(true)
    const target = await receiver((n) => (n === 1 ? { status: 500 } : { status: 200 }))
    const a = await sandbox({ port: 0, storeEngine: new MemoryEngine(log, 'a'), callbacks: { scheduleMs: [3_600_000], retries: 1 } })
    const b = await sandbox({ port: 0, storeEngine: new MemoryEngine(log, 'b', false), callbacks: { scheduleMs: [3_600_000], retries: 1 } })
    const created = await json(`${b.url}/api/v1/request`, { merchant: 'sandbox', amount: 10, callbackUrl: `${target.url}/cb` })
    const trackId = created.json.trackId as string
    await json(`${b.url}/_sandbox/payments/${trackId}/simulate`, { outcome: 'paid' })
    // The leader's first attempt fails; its retry is an hour away on the sandbox clock.
    await target.waitFor(1, 10_000)
    await expect.poll(async () => ((await json(`${a.url}/_sandbox/payments/${trackId}`)).json.deliveries as Array<{ attempts?: unknown[] }>)[0]?.attempts?.length).toBe(1)

    expect((await json(`${b.url}/_sandbox/clock/advance`, { ms: 2 * 3_600_000 })).status).toBe(200)
    const seen = (await json(`${a.url}/_sandbox/clock`)).json
    expect(seen.aheadMs).toBeGreaterThanOrEqual(2 * 3_600_000 - 1_000)
    await target.waitFor(2, 10_000)
    await expect.poll(async () => ((await json(`${b.url}/_sandbox/payments/${trackId}`)).json.deliveries as Array<{ state: string }>)[0]?.state).toBe('delivered')
    expect(target.received).toHaveLength(2)
  })

  test('a store that cannot be reached answers 503 storage_unavailable, and the next request goes through once it can', async () => {
    const log = new SharedLog()
    const engine = new MemoryEngine(log, 'a')
    const a = await sandbox({ port: 0, storeEngine: engine })
    engine.failPull = new Error('connection refused')
    const refused = await json(`${a.url}/api/v1/verify`, { merchant: 'sandbox', trackId: 'x' })
    expect(refused.status).toBe(503)
    expect(refused.json).toMatchObject({ result: 503, error: 'storage_unavailable', message: expect.stringMatching(/connection refused/) })
    expect((await json(`${a.url}/_sandbox/health`)).status).toBe(503)
    engine.failPull = undefined
    expect((await json(`${a.url}/api/v1/verify`, { merchant: 'sandbox', trackId: 'x' })).json).toMatchObject({ result: 203 })
  })
})
