/**
 * The store's core on an engine that other instances share (a log in memory standing in for a database): units
 * refused when based on a record another instance changed, the retry that reads again, the sync barrier, and the
 * change feed of remote changes. The file engine never conflicts; these paths are the core's, for any engine.
 */
import { describe, expect, onTestFinished, test } from 'vitest'
import type { Applied, Origin } from '../../src/store/store.js'
import { Store } from '../../src/store/store.js'
import { ConflictError } from '../../src/store/errors.js'
import { SOLE_LEADER } from '../../src/store/engine.js'
import { MemoryEngine, SharedLog } from './memory-engine.js'
import { payment, trackIdOf } from './records.js'

async function instances(names: string[]): Promise<{ log: SharedLog; stores: Array<{ store: Store<MemoryEngine>; engine: MemoryEngine }> }> {
  const log = new SharedLog()
  const stores = []
  for (const name of names) {
    const engine = new MemoryEngine(log, name)
    const { store } = await Store.open(engine)
    onTestFinished(() => store.close())
    stores.push({ store, engine })
  }
  return { log, stores }
}

const settle = <T>(p: Promise<T>) => p.then(() => 'ok' as const, (e: Error) => e)

describe('a store on an engine other instances share', () => {
  test('a unit based on a record another instance changed is refused, whole, and never shown; after sync the other change is there', async () => {
    const { log, stores } = await instances(['a', 'b'])
    const [a, b] = [stores[0]!.store, stores[1]!.store]
    await a.putPayment(payment(1))
    await b.sync()
    expect(b.getPayment(trackIdOf(1))?.status).toBe('pending')

    await a.putPayment(payment(1, 'paid'))
    // b has not seen a's change: its unit expects the version it read, and is refused with everything in it.
    const stale = settle(b.commit([{ k: 'payment', v: payment(1, 'failed') }, { k: 'payment', v: payment(2) }]))
    expect(b.latest.getPayment(trackIdOf(2))).toBeDefined()
    const refused = await stale
    expect(refused).toBeInstanceOf(ConflictError)
    expect(refused).toMatchObject({ kind: 'storageUnavailable' })
    expect(b.getPayment(trackIdOf(2))).toBeUndefined()
    expect(b.latest.getPayment(trackIdOf(2))).toBeUndefined()
    expect(log.units.flatMap((u) => u.changes)).toHaveLength(3)

    await b.sync()
    expect(b.getPayment(trackIdOf(1))?.status).toBe('paid')
    // Based on what it now holds, b's next unit is written.
    await b.putPayment({ ...payment(1, 'paid'), description: 'seen' } as never)
    await a.sync()
    expect(a.getPayment(trackIdOf(1))).toMatchObject({ status: 'paid', description: 'seen' })
  })

  test('retrying reads again once the replica caught up, and writes once', async () => {
    const { log, stores } = await instances(['a', 'b'])
    const [a, b] = [stores[0]!.store, stores[1]!.store]
    await a.putPayment(payment(1))
    await b.sync()
    await a.putPayment({ ...payment(1), amount: 50 })
    const seen: number[] = []
    const result = await b.retrying(async () => {
      const current = b.getPayment(trackIdOf(1))!
      seen.push(current.amount)
      await b.putPayment({ ...current, amount: current.amount + 1 })
      return current.amount + 1
    })
    expect(seen).toEqual([2, 50])
    expect(result).toBe(51)
    expect(log.units.filter((u) => u.by === 'b')).toHaveLength(1)
    await a.sync()
    expect(a.getPayment(trackIdOf(1))?.amount).toBe(51)
  })

  test('retrying gives up after a bound, answering the conflict', async () => {
    const { stores } = await instances(['a'])
    const { store, engine } = stores[0]!
    engine.refuse = () => 'always'
    let runs = 0
    const outcome = await settle(store.retrying(async () => (runs++, store.putPayment(payment(runs)))))
    expect(outcome).toBeInstanceOf(ConflictError)
    expect(runs).toBeGreaterThan(1)
    expect(runs).toBeLessThan(20)
    expect(store.counts().payments).toBe(0)
  })

  test('the change feed tells of other instances\' changes, in seq order, as remote; of its own as local', async () => {
    const { stores } = await instances(['a', 'b'])
    const [a, b] = [stores[0]!.store, stores[1]!.store]
    const told: Array<[number, string, Origin]> = []
    b.onApplied((applied: readonly Applied[], origin) => {
      for (const x of applied) told.push([x.seq, x.change.k === 'payment' ? x.change.v.trackId : x.change.k, origin])
    })
    await a.putPayment(payment(1))
    await a.putPayment(payment(2))
    await b.putPayment(payment(3))
    await b.sync()
    expect(told).toEqual([
      [2, trackIdOf(1), 'remote'],
      [3, trackIdOf(2), 'remote'],
      [4, trackIdOf(3), 'local'],
    ])
    await a.putPayment(payment(1, 'paid'))
    await b.sync()
    expect(told.at(-1)).toEqual([5, trackIdOf(1), 'remote'])
  })

  test('a sync waits for a pull that starts after it was asked for', async () => {
    const { stores } = await instances(['a', 'b'])
    const [a, { store: b, engine }] = [stores[0]!.store, stores[1]!]
    let release!: () => void
    engine.beforePull = () => new Promise<void>((r) => (release = r))
    const first = b.sync()
    await new Promise((r) => setTimeout(r, 20))
    expect(engine.pulls).toBe(1)
    // Acknowledged to someone while b's first pull is out: a sync asked for now must see it.
    await a.putPayment(payment(1))
    const second = b.sync()
    const third = b.sync()
    engine.beforePull = async () => {}
    release()
    await first
    await Promise.all([second, third])
    expect(engine.pulls).toBe(2)
    expect(b.getPayment(trackIdOf(1))).toBeDefined()
  })

  test('units made on top of units not yet durable: in one write they hold only if those are written; in a later one they expect what those left', async () => {
    const { stores } = await instances(['a'])
    const { store, engine } = stores[0]!
    const seen: Array<{ expects: unknown; basedOn: unknown }> = []
    engine.refuse = (unit) => {
      seen.push({ expects: unit.expects, basedOn: unit.basedOn })
      return unit.changes.some((c) => c.k === 'payment' && c.v.amount === 99) ? 'refused for the test' : undefined
    }
    // One turn: the second unit is based on the first, which is refused: so is the second.
    const first = settle(store.putPayment({ ...payment(1), amount: 99 }))
    const second = settle(store.putPayment({ ...payment(1), amount: 7 }))
    expect(await first).toBeInstanceOf(ConflictError)
    expect(await second).toBeInstanceOf(ConflictError)
    expect(seen[1]).toEqual({ expects: [], basedOn: [0] })
    expect(store.getPayment(trackIdOf(1))).toBeUndefined()
    expect(store.latest.getPayment(trackIdOf(1))).toBeUndefined()

    // A unit queued while the one it is based on is being written expects the version that one gave the record.
    seen.length = 0
    const writing = store.putPayment(payment(1))
    await new Promise((r) => setImmediate(r))
    const next = store.putPayment({ ...payment(1), amount: 8 })
    await Promise.all([writing, next])
    expect(seen.map((s) => s.expects)).toEqual([[{ key: `payment:${trackIdOf(1)}`, version: 0 }], [{ key: `payment:${trackIdOf(1)}`, version: engine.log.seq - 1 }]])
    expect(store.getPayment(trackIdOf(1))?.amount).toBe(8)
  })

  test('a pull that fails answers the sync with 503 storage_unavailable, and the next sync tries again', async () => {
    const { stores } = await instances(['a'])
    const { store, engine } = stores[0]!
    engine.failPull = new Error('connection refused')
    expect(await settle(store.sync())).toMatchObject({ kind: 'storageUnavailable', message: expect.stringMatching(/cannot reach memory:a \(connection refused\)/) })
    engine.failPull = undefined
    await store.sync()
  })

  test('an engine that does not say otherwise leads', async () => {
    const { store } = await Store.open(new MemoryEngine(new SharedLog(), 'a', null))
    onTestFinished(() => store.close())
    expect(store.leadership).toBe(SOLE_LEADER)
    expect(store.leadership.leading).toBe(true)
    let led = 0
    store.leadership.watch({ lead: () => led++, follow: () => {} })
    expect(led).toBe(1)
  })
})
