/**
 * The PostgreSQL engine's own housekeeping: the leader compacts the shared log whoever writes, and a new instance
 * starts from the snapshot and the changes after it.
 */
import { describe, expect, onTestFinished, test } from 'vitest'
import { parseStoreUrl, type StoreUrl } from '../../src/domain/store-url.js'
import { openStore } from '../../src/store/open.js'
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
