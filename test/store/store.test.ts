import { appendFile, readFile, stat, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import type { Payment } from '../../src/domain/types.js'
import { payment, trackIdOf } from './records.js'
import { DataFileError } from '../../src/store/errors.js'
import { openFileStore } from '../../src/store/open.js'
import { tempDir } from '../helpers.js'


describe('Store', () => {
  test('a new data file gets the default merchant and is readable JSON with one record per line', async () => {
    const file = join(await tempDir(), 'data.json')
    const { store, report } = await openFileStore({ file })
    expect(report.created).toBe(true)
    expect(store.getMerchant('sandbox')).toMatchObject({ key: 'sandbox', name: 'Sandbox merchant', enabled: true })
    await store.putPayment(payment(1))
    await store.close()
    const text = await readFile(file, 'utf8')
    const data = JSON.parse(text) as { format: string; payments: Payment[] }
    expect(data.format).toBe('pay-sandbox/1')
    expect(data.payments.map((p) => p.trackId)).toEqual([trackIdOf(1)])
    expect(text.split('\n').some((line) => line.startsWith(`{"trackId":"${trackIdOf(1)}"`))).toBe(true)
  })

  test('a change is durable in the journal before it resolves, and replayed after a crash', async () => {
    const file = join(await tempDir(), 'data.json')
    const { store } = await openFileStore({ file })
    await Promise.all(Array.from({ length: 200 }, (_, i) => store.putPayment(payment(i))))
    await store.putPayment({ ...payment(7, 'paid'), refNumber: '123456789012' })
    await store.putMerchant({ key: 'shop', name: 'Shop', enabled: false, createdAt: '2026-01-01T00:00:00.000Z', updatedAt: '2026-01-01T00:00:00.000Z' })
    const journal = await readFile(`${file}.journal`, 'utf8')
    // The first line names the data file the journal belongs to; then one line per change.
    expect(JSON.parse(journal.split('\n')[0]!)).toMatchObject({ journal: 'pay-sandbox/1', after: 0 })
    expect(journal.trim().split('\n')).toHaveLength(203)
    // No close(): the process "dies" here. A new store on the same file replays the journal.
    const { store: again, report } = await openFileStore({ file })
    expect(report.replayed).toBe(202)
    expect(again.counts()).toEqual({ merchants: 2, payments: 200, deliveries: 0 })
    expect(again.getPayment(trackIdOf(7))).toMatchObject({ status: 'paid', refNumber: '123456789012' })
    expect(again.hasRefNumber('123456789012')).toBe(true)
    expect(again.getMerchant('shop')?.enabled).toBe(false)
    // Replay folded the journal into the snapshot: the journal holds only its header line again.
    expect((await readFile(`${file}.journal`, 'utf8')).trim().split('\n')).toHaveLength(1)
    await again.close()
    await store.close().catch(() => {})
  })

  test('changes made in one event-loop turn share one journal write', async () => {
    const file = join(await tempDir(), 'data.json')
    const { store } = await openFileStore({ file })
    const writes = store.engine.journalWrites
    await Promise.all([store.putPayment(payment(1)), store.putPayment(payment(2)), store.putPayment(payment(3))])
    expect(store.engine.journalWrites).toBe(writes + 1)
    await store.putPayment(payment(4))
    expect(store.engine.journalWrites).toBe(writes + 2)
    const lines = (await readFile(`${file}.journal`, 'utf8')).trim().split('\n').slice(1)
    expect(lines.map((l) => (JSON.parse(l) as { s: number }).s)).toEqual([1, 2, 3, 4])
    await store.close()
  })

  test('compaction folds the journal into the snapshot in the background; nothing is lost', async () => {
    const file = join(await tempDir(), 'data.json')
    const { store } = await openFileStore({ file, compactAfter: 50 })
    for (let i = 0; i < 500; i++) await store.putPayment(payment(i))
    await store.flush()
    const journalLines = (await readFile(`${file}.journal`, 'utf8')).split('\n').filter(Boolean).length
    expect(journalLines).toBeLessThan(500)
    const snapshot = JSON.parse(await readFile(file, 'utf8')) as { seq: number; payments: Payment[] }
    expect(snapshot.payments.length + journalLines).toBeGreaterThanOrEqual(500)
    const { store: again } = await openFileStore({ file })
    expect(again.counts().payments).toBe(500)
    await again.close()
    await store.close().catch(() => {})
  })

  test('a corrupt data file stops start-up with a message naming it, and is left untouched', async () => {
    const file = join(await tempDir(), 'data.json')
    await writeFile(file, '{"format": "pay-sandbox/1", "seq": 3, "merchants": [')
    const error = await openFileStore({ file }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(DataFileError)
    expect((error as Error).message).toContain(file)
    expect((error as Error).message).toMatch(/not valid JSON.*left untouched/)
    expect(await readFile(file, 'utf8')).toBe('{"format": "pay-sandbox/1", "seq": 3, "merchants": [')
    // The lock was released: a repaired file opens.
    await writeFile(file, '{"format": "pay-sandbox/1", "seq": 0, "merchants": [], "payments": [], "deliveries": []}')
    const { store } = await openFileStore({ file })
    await store.close()
  })

  test('a JSON file that is not ours is refused', async () => {
    const file = join(await tempDir(), 'package.json')
    await writeFile(file, '{"name": "something-else"}')
    await expect(openFileStore({ file })).rejects.toThrow(/is not a pay sandbox data file \(format is undefined/)
  })

  test('a torn final journal record (never acknowledged) is dropped and reported', async () => {
    const file = join(await tempDir(), 'data.json')
    const { store } = await openFileStore({ file })
    await store.putPayment(payment(1))
    await appendFile(`${file}.journal`, '{"s":99,"k":"payment","v":{"trackId":"tor')
    const { store: again, report } = await openFileStore({ file })
    expect(report.tornBytes).toBeGreaterThan(0)
    expect(again.getPayment(trackIdOf(1))).toBeDefined()
    expect(again.counts().payments).toBe(1)
    await again.close()
    await store.close().catch(() => {})
  })

  test('a damaged record in the middle of the journal stops start-up and nothing is overwritten', async () => {
    const file = join(await tempDir(), 'data.json')
    const { store } = await openFileStore({ file })
    await store.putPayment(payment(1))
    await appendFile(`${file}.journal`, 'garbage\n{"s":50,"k":"payment","v":{}}\n')
    const journal = await readFile(`${file}.journal`, 'utf8')
    const snapshot = await readFile(file, 'utf8')
    await expect(openFileStore({ file })).rejects.toThrow(/journal .*data\.json\.journal is damaged at line 3/)
    expect(await readFile(`${file}.journal`, 'utf8')).toBe(journal)
    expect(await readFile(file, 'utf8')).toBe(snapshot)
    await store.close().catch(() => {})
  })

  test('a change the next start would refuse is never written: it fails, and the state and journal stay as they were', async () => {
    const file = join(await tempDir(), 'data.json')
    const { store } = await openFileStore({ file })
    await store.putPayment(payment(1))
    const journal = await readFile(`${file}.journal`, 'utf8')
    await expect(store.putClock({ offsetMs: 1e308 })).rejects.toThrow(
      'refused to save a record the sandbox could not read back: clock.offsetMs must be an offset from 0 to 253370764800000 ms',
    )
    await expect(store.putPayment({ ...payment(2), createdAt: '+010000-01-01T00:00:00.000Z' })).rejects.toThrow(/payment\.createdAt must be a time as the sandbox writes it/)
    await expect(store.putPayment({ ...payment(3), status: 'paid' })).rejects.toThrow(/payment\.status is paid but its last history entry is pending/)
    store.observeVerify({ trackId: trackIdOf(1), at: 'yesterday', owner: true, result: 202, status: 'pending' })
    await store.flush()
    expect(store.clock()).toBeUndefined()
    expect(store.counts().payments).toBe(1)
    expect(store.verifiesOf(trackIdOf(1))).toBeUndefined()
    expect(await readFile(`${file}.journal`, 'utf8')).toBe(journal)
    // What was written starts again.
    await store.putPayment(payment(4))
    const { store: again } = await openFileStore({ file })
    expect(again.counts().payments).toBe(2)
    await again.close()
    await store.close().catch(() => {})
  })

  test('API keys are found only by their exact value', async () => {
    const file = join(await tempDir(), 'data.json')
    const { store } = await openFileStore({ file })
    expect(store.getMerchant('sandbox')?.key).toBe('sandbox')
    for (const wrong of ['Sandbox', 'sandbox ', 'sandbo', '']) expect(store.getMerchant(wrong)).toBeUndefined()
    await store.close()
  })
})
