/**
 * A team sandbox: real `pay sandbox start --store <url>` processes on one PostgreSQL database answer as one
 * sandbox. A request to either sees every change acknowledged before it was sent, by either; a change through one
 * reaches the other's event streams at once; racing simulates have one winner; a callback goes out once.
 */
import { type ChangeEvent, followEvents } from '../sse.js'
import { describe, expect, test } from 'vitest'
import { receiver } from '../callbacks/receiver.js'
import { sandbox, spawnSandbox } from '../helpers.js'
import { freshDatabase } from './postgres.js'

const json = async (url: string, body?: unknown) => {
  const res = await fetch(url, body === undefined ? {} : { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
  return { status: res.status, json: (await res.json()) as Record<string, unknown> }
}

async function team(count: number, args: string[] = []) {
  const url = await freshDatabase()
  const instances = []
  // Started together: the first start creates the tables, under a lock the others wait for.
  for (const started of await Promise.all(Array.from({ length: count }, () => spawnSandbox(['--store', url, '--quiet', ...args])))) instances.push(started)
  return { url, instances }
}

/** Payment and delivery events of a sandbox's /_sandbox/events stream, as they come. */
async function events(base: string): Promise<string[]> {
  const seen: string[] = []
  await followEvents(`${base}/_sandbox/events`, (event, data) => {
    const change = data as ChangeEvent
    if (event === 'payment') seen.push(`${change.payment!.trackId} ${change.created ? 'created' : change.payment!.status}`)
    if (event === 'delivery') seen.push(`delivery ${change.delivery!.state}`)
  })
  return seen
}

describe('sandboxes started on one PostgreSQL database', () => {
  test('created on A, verified on B at once; paid on B, shown on A\'s event stream within a second; verify on A gives 100 with the same refNumber as B', async () => {
    const target = await receiver()
    const { instances } = await team(2)
    const [a, b] = instances as [(typeof instances)[0], (typeof instances)[0]]
    const streamA = await events(a.url)
    for (let i = 0; i < 5; i++) {
      const created = await json(`${a.url}/api/v1/request`, { merchant: 'sandbox', amount: 10 + i, callbackUrl: `${target.url}/cb` })
      expect(created.json.result).toBe(100)
      const trackId = created.json.trackId as string
      expect((await json(`${b.url}/api/v1/verify`, { merchant: 'sandbox', trackId })).json).toMatchObject({ result: 202, amount: 10 + i })
      const started = performance.now()
      expect((await json(`${b.url}/_sandbox/payments/${trackId}/simulate`, { outcome: 'paid' })).status).toBe(200)
      await expect.poll(() => streamA.includes(`${trackId} paid`), { timeout: 5_000, interval: 10 }).toBe(true)
      expect(performance.now() - started).toBeLessThan(3_000)
      const onA = (await json(`${a.url}/api/v1/verify`, { merchant: 'sandbox', trackId })).json
      const onB = (await json(`${b.url}/api/v1/verify`, { merchant: 'sandbox', trackId })).json
      expect(onA).toMatchObject({ result: 100, amount: 10 + i, refNumber: expect.any(String) })
      expect(onB.refNumber).toBe(onA.refNumber)
    }
    // Each paid payment's callback reached the receiver once, whichever instance sent it.
    await target.waitFor(5, 10_000)
    await new Promise((r) => setTimeout(r, 500))
    expect(target.received.map((r) => r.json.trackId).sort()).toEqual([...new Set(target.received.map((r) => r.json.trackId))].sort())
    expect(target.received).toHaveLength(5)
    // Health says which store, password masked, and how many instances are live.
    const health = (await json(`${a.url}/_sandbox/health`)).json
    expect(health.store).toMatchObject({ engine: 'postgres', location: expect.stringMatching(/^postgres:\/\/pay:\*\*\*@127\.0\.0\.1:\d+\/pay_/), instances: 2 })
    expect(JSON.stringify(health)).not.toContain('secret-')
    const leaders = await Promise.all([a, b].map(async (x) => ((await json(`${x.url}/_sandbox/health`)).json.store as { leading: boolean }).leading))
    expect(leaders.filter(Boolean)).toHaveLength(1)
  })

  test('racing simulates through two instances: one wins each payment, the other is refused; 200 creates spread over both are all found on both', async () => {
    const { instances } = await team(2)
    const [a, b] = instances as [(typeof instances)[0], (typeof instances)[0]]
    const creates = await Promise.all(
      Array.from({ length: 200 }, (_, i) => json(`${(i % 2 ? a : b).url}/api/v1/request`, { merchant: 'sandbox', amount: 1 + i, callbackUrl: 'http://127.0.0.1:9/cb' })),
    )
    const trackIds = creates.map((c) => c.json.trackId as string)
    expect(creates.every((c) => c.json.result === 100)).toBe(true)
    expect(new Set(trackIds).size).toBe(200)
    expect((await json(`${a.url}/_sandbox/health`)).json.counts).toMatchObject({ payments: 200 })
    expect((await json(`${b.url}/_sandbox/health`)).json.counts).toMatchObject({ payments: 200 })

    const raced = trackIds.slice(0, 20)
    const answers = await Promise.all(
      raced.flatMap((trackId) => [
        json(`${a.url}/_sandbox/payments/${trackId}/simulate`, { outcome: 'paid' }),
        json(`${b.url}/_sandbox/payments/${trackId}/simulate`, { outcome: 'failed' }),
      ]),
    )
    for (let i = 0; i < raced.length; i++) {
      const pair = [answers[2 * i]!, answers[2 * i + 1]!]
      expect(pair.map((p) => p.status).sort(), JSON.stringify(pair)).toEqual([200, 409])
      const winner = pair[0]!.status === 200 ? 'paid' : 'failed'
      const shown = await json(`${b.url}/_sandbox/payments/${raced[i]}`)
      expect((shown.json.payment as { status: string }).status).toBe(winner)
      // One change, one notification.
      expect(shown.json.deliveries).toHaveLength(1)
    }
  })

  test('three instances: created on one, paid through another, verified on the third', async () => {
    const url = await freshDatabase()
    const [a, b, c] = await Promise.all([sandbox({ store: url }), sandbox({ store: url }), sandbox({ store: url })])
    for (let i = 0; i < 10; i++) {
      const [x, y, z] = [a!, b!, c!].slice(i % 3).concat([a!, b!, c!].slice(0, i % 3))
      const created = await json(`${x!.url}/api/v1/request`, { merchant: 'sandbox', amount: 3 + i, callbackUrl: 'http://127.0.0.1:9/cb' })
      const trackId = created.json.trackId as string
      expect((await json(`${y!.url}/_sandbox/payments/${trackId}/simulate`, { outcome: 'paid' })).status).toBe(200)
      expect((await json(`${z!.url}/api/v1/verify`, { merchant: 'sandbox', trackId })).json).toMatchObject({ result: 100, amount: 3 + i })
    }
    expect(((await json(`${c!.url}/_sandbox/health`)).json.store as { instances: number }).instances).toBe(3)
  })
})
