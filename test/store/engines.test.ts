/**
 * The store's promises, the same on each engine: the data file, and a PostgreSQL database (a throwaway cluster of
 * the run's own, see test/team/postgres.ts). "Again" is what the next start finds: the data file opened anew after
 * a crash (no close), or another instance opening the same database.
 */
import { join } from 'node:path'
import { describe, expect, onTestFinished, test } from 'vitest'
import { newDelivery, notificationOf } from '../../src/callbacks/delivery.js'
import type { Delivery } from '../../src/domain/types.js'
import { parseStoreUrl, type StoreUrl } from '../../src/domain/store-url.js'
import { openStore } from '../../src/store/open.js'
import type { Store } from '../../src/store/store.js'
import { tempDir } from '../helpers.js'
import { freshDatabase } from '../team/postgres.js'
import { payment, trackIdOf } from './records.js'

interface Place {
  /** Opens a store on the place; it is let go when the test finishes. */
  open(options?: { compactAfter?: number }): Promise<Store>
}

async function filePlace(): Promise<Place> {
  const file = join(await tempDir(), 'data.json')
  return { open: (options = {}) => opened(openStore({ file, ...options })) }
}

async function postgresPlace(): Promise<Place> {
  const store = parseStoreUrl(await freshDatabase()) as StoreUrl
  return { open: (options = {}) => opened(openStore({ store, ...options })) }
}

async function opened(opening: ReturnType<typeof openStore>): Promise<Store> {
  const { store } = await opening
  onTestFinished(() => store.release())
  return store
}

const delivery = (i: number, trackId: string): Delivery =>
  newDelivery({
    id: `dlv_${String(i).padStart(12, '0')}`,
    trackId,
    url: 'http://localhost/cb',
    event: 'payment.status_changed',
    body: notificationOf({ ...payment(i), trackId, status: 'paid' }) as never,
    maxRetries: 3,
    now: '2026-01-01T00:00:00.000Z',
  })

describe.each([
  ['the data file', filePlace],
  ['PostgreSQL', postgresPlace],
])('the store on %s', (_name, place) => {
  test('a new store gets the default merchant once; every acknowledged change is there for the next start', async () => {
    const at = await place()
    const store = await at.open()
    expect(store.getMerchant('sandbox')).toMatchObject({ key: 'sandbox', enabled: true })
    await Promise.all(Array.from({ length: 50 }, (_, i) => store.putPayment(payment(i))))
    await store.commit([{ k: 'payment', v: payment(7, 'paid') }, { k: 'delivery', v: delivery(1, trackIdOf(7)) }])
    const again = await at.open()
    expect(again.listMerchants().map((m) => m.key)).toEqual(['sandbox'])
    expect(again.counts()).toEqual({ merchants: 1, payments: 50, deliveries: 1 })
    expect(again.getPayment(trackIdOf(7))).toMatchObject({ status: 'paid', refNumber: '100000000007' })
    expect(again.listDeliveries({ trackId: trackIdOf(7) }).map((d) => d.id)).toEqual([delivery(1, trackIdOf(7)).id])
  })

  test('what was read back can be changed again: the versions the next start holds are the stored ones', async () => {
    const at = await place()
    const store = await at.open()
    await store.putPayment(payment(1))
    await store.putPayment(payment(1, 'paid'))
    await store.release()
    const again = await at.open()
    await again.putPayment({ ...payment(1, 'paid'), description: 'changed after a restart' })
    const third = await at.open()
    expect(third.getPayment(trackIdOf(1))?.description).toBe('changed after a restart')
  })

  test('a reset clears payments and deliveries and keeps merchants; an import replaces them; both hold for the next start', async () => {
    const at = await place()
    const store = await at.open()
    await store.putPayment(payment(1))
    await store.putDelivery(delivery(1, trackIdOf(1)))
    await store.reset()
    expect(store.counts()).toEqual({ merchants: 1, payments: 0, deliveries: 0 })
    // A record cleared by the reset can be written anew.
    await store.putPayment(payment(2))
    const image = {
      merchants: [{ key: 'shop', name: 'Shop', enabled: true, createdAt: '2026-01-01T00:00:00.000Z', updatedAt: '2026-01-01T00:00:00.000Z' }],
      payments: [payment(3, 'paid'), payment(4)],
      deliveries: [delivery(2, trackIdOf(3))],
    }
    await store.replace(image)
    // Records the import brought can be changed next.
    await store.putPayment({ ...payment(4), description: 'after the import' })
    const again = await at.open()
    expect(again.exportImage()).toEqual({ ...image, payments: [payment(3, 'paid'), { ...payment(4), description: 'after the import' }] })
  })

  test('compacted: the next start finds everything, verify observations and the clock included', async () => {
    const at = await place()
    const store = await at.open({ compactAfter: 10 })
    for (let i = 0; i < 60; i++) await store.putPayment(payment(i))
    store.observeVerify({ trackId: trackIdOf(3), at: '2026-01-01T00:00:00.000Z', owner: true, result: 202, status: 'pending' })
    await store.putClock({ offsetMs: 60_000, holdUntil: '2026-01-01T00:01:00.000Z' })
    await store.flush()
    for (let i = 60; i < 70; i++) await store.putPayment(payment(i))
    await store.flush()
    const again = await at.open()
    expect(again.counts().payments).toBe(70)
    expect(again.verifiesOf(trackIdOf(3))?.count).toBe(1)
    expect(again.clock()).toEqual({ offsetMs: 60_000, holdUntil: '2026-01-01T00:01:00.000Z' })
  })

  test("the Bot API emulator's records are kept", async () => {
    const at = await place()
    const store = await at.open()
    const bot = { id: 1001, token: '1001:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', username: 'shop_bot', firstName: 'Shop', createdAt: '2026-01-01T00:00:00.000Z', lastUpdateId: 0 }
    await store.putTelegram({ t: 'bot', v: bot as never })
    const again = await at.open()
    expect(again.telegram.getBot(1001)).toMatchObject({ username: 'shop_bot' })
  })

  test('a change the next start would refuse is never written', async () => {
    const at = await place()
    const store = await at.open()
    await expect(store.putPayment({ ...payment(1), amount: 'x' as never })).rejects.toThrow(/could not read back/)
    const again = await at.open()
    expect(again.counts().payments).toBe(0)
  })
})
