/**
 * The PostgreSQL engine's own housekeeping: the leader compacts the shared log whoever writes, and a new instance
 * starts from the snapshot and the changes after it.
 */
import { describe, expect, onTestFinished, test } from 'vitest'
import { parseStoreUrl, type StoreUrl } from '../../src/domain/store-url.js'
import { openStore } from '../../src/store/open.js'
import { sandbox } from '../helpers.js'
import { payment, trackIdOf } from '../store/records.js'
import { adminQuery, freshDatabase } from './postgres.js'

describe('the shared log', () => {
  test('the leader compacts it when every change comes through another instance; a new instance starts from the snapshot', async () => {
    const url = await freshDatabase()
    const store = parseStoreUrl(url) as StoreUrl
    const { store: leader } = await openStore({ store, compactAfter: 20 })
    onTestFinished(() => leader.close())
    await expect.poll(() => leader.leadership.leading).toBe(true)
    const { store: writer } = await openStore({ store, compactAfter: 20 })
    onTestFinished(() => writer.close())
    expect(writer.leadership.leading).toBe(false)
    for (let i = 0; i < 60; i++) await writer.putPayment(payment(i))
    await expect.poll(async () => {
      await leader.sync()
      return Number((await adminQuery(url, 'SELECT count(*) AS n FROM pay_snapshots')).rows[0].n)
    }).toBeGreaterThan(0)
    // The changes a snapshot holds are let go once a later snapshot holds them too.
    for (let i = 60; i < 120; i++) await writer.putPayment(payment(i))
    await expect.poll(async () => {
      await leader.sync()
      return Number((await adminQuery(url, 'SELECT min(seq) AS s FROM pay_changes')).rows[0].s)
    }).toBeGreaterThan(1)
    const { store: third, report } = await openStore({ store })
    onTestFinished(() => third.close())
    expect(report.replayed).toBeLessThan(100)
    expect(third.counts().payments).toBe(120)
    expect(third.getPayment(trackIdOf(119))).toBeDefined()
  })
})

describe('the sandbox clock of a team sandbox', () => {
  test('an advance through an instance that does not lead answers once the leader fired what it made due: the payment it expired is expired at once', async () => {
    const url = await freshDatabase()
    const a = await sandbox({ store: url, paymentTtlMs: 60_000 })
    await expect.poll(async () => ((await a.client.health()).store as { leading: boolean }).leading).toBe(true)
    const b = await sandbox({ store: url, paymentTtlMs: 60_000 })
    const created = await b.client.createPayment({ merchant: 'sandbox', amount: 5, callbackUrl: 'http://127.0.0.1:9/cb' })
    if (created.result !== 100) throw new Error(JSON.stringify(created))
    const moved = await b.client.raw({ method: 'POST', path: '/_sandbox/clock/advance', body: { ms: 120_000 } })
    expect(moved.status).toBe(200)
    expect((moved.json as { fired: number }).fired).toBeGreaterThanOrEqual(1)
    const shown = await b.client.raw({ method: 'GET', path: `/_sandbox/payments/${created.trackId}` })
    expect((shown.json as { payment: { status: string } }).payment.status).toBe('expired')
  })
})
