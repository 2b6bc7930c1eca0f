/**
 * Work done once across a team sandbox: one instance leads (PostgreSQL advisory lock) and sends every callback,
 * whoever recorded it. `kill -9` of the leader under load: every acknowledged payment is verifiable on the
 * survivor, which takes the lead within seconds and sends the pending retries, with the same delivery ids.
 */
import { describe, expect, test } from 'vitest'
import { receiver } from '../callbacks/receiver.js'
import { spawnSandbox } from '../helpers.js'
import { freshDatabase } from './postgres.js'

const json = async (url: string, body?: unknown) => {
  const res = await fetch(url, body === undefined ? {} : { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
  return { status: res.status, json: (await res.json()) as Record<string, unknown> }
}

const leading = async (url: string) => ((await json(`${url}/_sandbox/health`)).json.store as { leading: boolean }).leading

describe('the leader of a team sandbox', () => {
  test('kill -9 of the leader under load: nothing acknowledged is lost, the survivor leads within seconds and sends the pending retries with the same delivery ids', async () => {
    // Every first attempt fails: each paid payment leaves a retry pending, 2 s later.
    const target = await receiver((_n, req) => (target.received.filter((r) => r.json.trackId === req.json.trackId).length === 1 ? { status: 500 } : { status: 200 }))
    const url = await freshDatabase()
    const args = ['--store', url, '--quiet', '--callback-schedule', '2s', '--callback-retries', '3']
    const a = await spawnSandbox(args)
    // The first to start leads.
    await expect.poll(() => leading(a.url)).toBe(true)
    const b = await spawnSandbox(args)
    expect(await leading(b.url)).toBe(false)

    // Load through the survivor-to-be while the leader sends.
    const acknowledged: string[] = []
    let stop = false
    const load = (async () => {
      while (!stop) {
        const created = await json(`${b.url}/api/v1/request`, { merchant: 'sandbox', amount: 1, callbackUrl: `${target.url}/cb` }).catch(() => undefined)
        const trackId = created?.json.trackId as string | undefined
        if (!trackId) continue
        const paid = await json(`${b.url}/_sandbox/payments/${trackId}/simulate`, { outcome: 'paid' }).catch(() => undefined)
        if (paid?.status === 200) acknowledged.push(trackId)
      }
    })()
    // The leader has made first attempts (all refused) for some of them.
    await expect.poll(() => target.received.length, { timeout: 20_000 }).toBeGreaterThanOrEqual(5)
    a.child.kill('SIGKILL')
    process.kill(a.pid, 'SIGKILL')
    const killedAt = performance.now()
    await expect.poll(() => leading(b.url), { timeout: 20_000, interval: 100 }).toBe(true)
    const takeover = performance.now() - killedAt
    stop = true
    await load

    // Every acknowledged payment is paid on the survivor, and its notification is delivered, by the survivor when
    // the leader died first.
    for (const trackId of acknowledged) expect((await json(`${b.url}/api/v1/verify`, { merchant: 'sandbox', trackId })).json.result).toBe(100)
    await expect
      .poll(
        async () => {
          const payments = await Promise.all(acknowledged.map(async (trackId) => (await json(`${b.url}/_sandbox/payments/${trackId}`)).json.deliveries as Array<{ state: string }>))
          return payments.filter((deliveries) => deliveries.length !== 1 || deliveries[0]!.state !== 'delivered').length
        },
        { timeout: 30_000, interval: 250 },
      )
      .toBe(0)
    // Each payment's attempts, whoever sent them, carry its one delivery id.
    const byTrackId = new Map<string, Set<string>>()
    for (const r of target.received) {
      const ids = byTrackId.get(r.json.trackId as string) ?? new Set()
      ids.add(String(r.headers['x-pay-sandbox-delivery']))
      byTrackId.set(r.json.trackId as string, ids)
    }
    for (const trackId of acknowledged) expect(byTrackId.get(trackId)?.size, trackId).toBe(1)
    // Retries of first attempts the dead leader made were sent by the survivor.
    const retried = [...byTrackId.keys()].filter((trackId) => target.received.filter((r) => r.json.trackId === trackId).length >= 2)
    expect(retried.length).toBeGreaterThanOrEqual(5)
    // The lock goes with the killed leader's session: the survivor's next try, within a second, takes it.
    expect(takeover).toBeLessThan(10_000)
  })
})
