/**
 * The service's read-modify-writes when the store refuses a unit because a record it was based on changed
 * meanwhile (an engine shared by several instances; the data file never does): each runs again on what the replica
 * holds once it has caught up, so racing simulates have one winner and nothing is written twice.
 */
import { describe, expect, onTestFinished, test } from 'vitest'
import { CallbackDispatcher } from '../../src/callbacks/dispatcher.js'
import { SandboxError } from '../../src/domain/outcomes.js'
import { SandboxService } from '../../src/service/sandbox.js'
import { Store } from '../../src/store/store.js'
import { conflictOnce, MemoryEngine, SharedLog } from '../store/memory-engine.js'

async function instance(log: SharedLog, name: string) {
  const engine = new MemoryEngine(log, name)
  const { store } = await Store.open(engine)
  onTestFinished(() => store.close())
  const service = new SandboxService(store)
  // Records each notification with its payment's change; it sends none (it is not told to lead).
  const callbacks = new CallbackDispatcher({ store })
  onTestFinished(() => callbacks.stop())
  service.onPaymentChanged(callbacks)
  const told: string[] = []
  service.onPaymentChanged({
    paymentCreated: (p) => told.push(`created ${p.trackId}`),
    paymentChanged: (p, { previous }) => told.push(`${previous.status}→${p.status}`),
  })
  return { engine, store, service, told }
}

const body = { merchant: 'sandbox', amount: 10, callbackUrl: 'http://localhost:9/cb' }

describe('read-modify-writes on a shared engine', () => {
  test('a simulate refused once, with nothing else changed, runs again and is written once, its notification with it', async () => {
    const log = new SharedLog()
    const a = await instance(log, 'a')
    const created = await a.service.create(body)
    if (created.result !== 100) throw new Error('not created')
    a.engine.refuse = conflictOnce(`payment:${created.trackId}`)
    const writesBefore = a.engine.writes

    const paid = await a.service.simulate(created.trackId, { outcome: 'paid', source: 'control' })

    expect(paid.status).toBe('paid')
    expect(a.engine.writes - writesBefore).toBe(2)
    const units = log.units.filter((u) => u.changes.some((c) => c.k === 'payment' && c.v.trackId === created.trackId))
    expect(units.map((u) => u.changes.map((c) => c.k))).toEqual([['payment'], ['payment', 'delivery']])
    expect(a.store.listDeliveries({ trackId: created.trackId })).toHaveLength(1)
    expect(a.told).toEqual([`created ${created.trackId}`, 'pending→paid'])
  })

  test('racing simulates through two instances: one wins; the other runs again on the winner\'s payment and is refused', async () => {
    const log = new SharedLog()
    const a = await instance(log, 'a')
    const b = await instance(log, 'b')
    const created = await a.service.create(body)
    if (created.result !== 100) throw new Error('not created')
    await b.store.sync()
    expect(b.service.requirePayment(created.trackId).status).toBe('pending')

    await a.service.simulate(created.trackId, { outcome: 'paid', source: 'control' })
    // b has not caught up: its failed is based on the pending payment, refused, and run again on the paid one.
    const lost = await b.service.simulate(created.trackId, { outcome: 'failed', source: 'control' }).catch((e: unknown) => e)

    expect(lost).toBeInstanceOf(SandboxError)
    expect(lost).toMatchObject({ kind: 'invalidTransition' })
    expect(b.service.requirePayment(created.trackId).status).toBe('paid')
    const changes = log.units.flatMap((u) => u.changes)
    expect(changes.filter((c) => c.k === 'payment').map((c) => c.k === 'payment' && c.v.status)).toEqual(['pending', 'paid'])
    expect(changes.filter((c) => c.k === 'delivery')).toHaveLength(1)
    // b's listeners heard of a's change through the feed, as if b had made it.
    expect(b.told).toEqual([`created ${created.trackId}`, 'pending→paid'])
  })

  test('a merchant created through two instances at once: one is created, the other told it exists', async () => {
    const log = new SharedLog()
    const a = await instance(log, 'a')
    const b = await instance(log, 'b')
    await a.service.createMerchant({ key: 'shop', name: 'Shop' })
    const second = await b.service.createMerchant({ key: 'shop', name: 'Other shop' }).catch((e: unknown) => e)
    expect(second).toMatchObject({ kind: 'conflict', message: 'a merchant with key shop already exists' })
    expect(b.service.listMerchants().find((m) => m.key === 'shop')?.name).toBe('Shop')
  })
})
