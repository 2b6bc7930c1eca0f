import { existsSync, readdirSync } from 'node:fs'
import { readdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, describe, expect, test } from 'vitest'
import type { Payment } from '../../src/domain/types.js'
import { payment, trackIdOf } from './records.js'
import { openFileStore } from '../../src/store/open.js'
import type { Store } from '../../src/store/store.js'
import { tempDir } from '../helpers.js'
import { errno, type Faults, faultyFs, gate } from './faulty-fs.js'


const isJournal = (path: string) => path.endsWith('.journal')
const settle = <T>(p: Promise<T>) => p.then(() => 'ok' as const, (e: Error) => e)
const turn = () => new Promise((r) => setImmediate(r))

/** Stores a test left behind as `kill -9` would; closed after the test, so their descriptors are not left open. */
const abandoned: Store[] = []
afterEach(async () => {
  for (const store of abandoned.splice(0)) await store.close().catch(() => {})
})

/** Opens the data file again as a restart after `kill -9` would: `dead` is not closed before. */
async function reopen(file: string, dead: Store): Promise<Store> {
  abandoned.push(dead)
  const { store } = await openFileStore({ file })
  return store
}

describe('durable before visible', () => {
  test('while its journal write is under way, a change is seen by writers only; readers see it once durable', async () => {
    const file = join(await tempDir(), 'data.json')
    const faults: Faults = {}
    const { store } = await openFileStore({ file, fs: faultyFs(faults) })
    await store.putPayment(payment(1))
    const slow = gate()
    faults.sync = (path) => (isJournal(path) ? slow.wait() : undefined)
    const paid = store.putPayment({ ...payment(1, 'paid'), refNumber: '100000000001' })
    while (!slow.waiting()) await turn()
    expect(store.getPayment(trackIdOf(1))?.status).toBe('pending')
    expect(store.listPayments({ status: 'paid' })).toEqual([])
    expect(store.exportImage().payments[0]?.status).toBe('pending')
    expect(store.hasRefNumber('100000000001')).toBe(false)
    expect(store.latest.getPayment(trackIdOf(1))?.status).toBe('paid')
    expect(store.latest.hasRefNumber('100000000001')).toBe(true)
    slow.open()
    await paid
    expect(store.getPayment(trackIdOf(1))?.status).toBe('paid')
    await store.close()
  })

  test('a change whose write fails is seen by no one, and the changes queued behind it fail with it', async () => {
    const file = join(await tempDir(), 'data.json')
    const faults: Faults = {}
    const { store } = await openFileStore({ file, fs: faultyFs(faults) })
    await store.putPayment(payment(1))
    const slow = gate()
    let fail = true
    faults.sync = async (path) => {
      if (!isJournal(path)) return
      await slow.wait()
      if (fail) throw errno('EIO', 'input/output error')
    }
    const first = settle(store.putPayment({ ...payment(1, 'paid'), refNumber: '100000000001' }))
    while (!slow.waiting()) await turn()
    // Queued while the first write is out: made on top of it, so it cannot outlive it.
    const second = settle(store.putPayment(payment(2)))
    slow.open()
    expect(await first).toMatchObject({ name: 'SandboxError', kind: 'storageUnavailable' })
    expect(await second).toMatchObject({ kind: 'storageUnavailable' })
    for (const view of [store, store.latest]) {
      expect(view.getPayment(trackIdOf(1))?.status).toBe('pending')
      expect(view.getPayment(trackIdOf(2))).toBeUndefined()
      expect(view.hasRefNumber('100000000001')).toBe(false)
    }
    // The next write tries the disk again.
    fail = false
    await store.putPayment(payment(3))
    const again = await reopen(file, store)
    expect(again.listPayments().map((p) => [p.trackId, p.status])).toEqual([
      [trackIdOf(1), 'pending'],
      [trackIdOf(3), 'pending'],
    ])
    await again.close()
  })

  test('verify observations whose write fails are dropped alone: a change queued meanwhile is written and kept', async () => {
    const file = join(await tempDir(), 'data.json')
    const faults: Faults = {}
    const { store } = await openFileStore({ file, fs: faultyFs(faults) })
    await store.putPayment(payment(1))
    const slow = gate()
    let syncs = 0
    faults.sync = async (path) => {
      if (!isJournal(path)) return
      if (++syncs > 1) return
      await slow.wait()
      throw errno('EIO', 'input/output error')
    }
    store.observeVerify({ trackId: trackIdOf(1), at: new Date().toISOString(), owner: true, result: 202, status: 'pending' })
    // Observations on their own are written after a short wait.
    while (!slow.waiting()) await turn()
    const queued = settle(store.putPayment(payment(2)))
    slow.open()
    expect(await queued).toBe('ok')
    expect(store.getPayment(trackIdOf(2))?.status).toBe('pending')
    const again = await reopen(file, store)
    expect(again.listPayments().map((p) => p.trackId)).toEqual([trackIdOf(1), trackIdOf(2)])
    await again.close()
  })

  test('a compaction never saves a change that is not durable (nothing refused comes back after a crash)', async () => {
    const file = join(await tempDir(), 'data.json')
    const faults: Faults = {}
    const { store } = await openFileStore({ file, fs: faultyFs(faults), compactAfter: 1 })
    const slow = gate()
    let syncs = 0
    faults.sync = async (path) => {
      if (isJournal(path) && ++syncs === 1) await slow.wait()
    }
    // The batch of 12 payments (the only write over 1 KB) finds the disk full.
    faults.write = (path, bytes) => (isJournal(path) && bytes > 1024 ? 0 : undefined)
    const acked = store.putPayment(payment(1))
    while (!slow.waiting()) await turn()
    // Queued behind the first write; its own write will fail, after the first one triggered a compaction.
    const refused = Array.from({ length: 12 }, (_, i) => settle(store.putPayment(payment(100 + i))))
    slow.open()
    await acked
    for (const r of refused) expect(await r).toMatchObject({ kind: 'storageUnavailable' })
    await store.flush()
    const snapshot = JSON.parse(await readFile(file, 'utf8')) as { payments: Payment[] }
    expect(snapshot.payments.map((p) => p.trackId)).toEqual([trackIdOf(1)])
    const again = await reopen(file, store)
    expect(again.listPayments().map((p) => p.trackId)).toEqual([trackIdOf(1)])
    await again.close()
  })
})

describe('a data file that cannot be read', () => {
  /** A data file of `count` payments as the sandbox lays it out (a few MB: read in several chunks). */
  async function dataFile(count: number, change: (p: Payment, i: number) => Payment = (p) => p): Promise<string> {
    const file = join(await tempDir(), 'data.json')
    const at = '2026-01-01T00:00:00.000Z'
    const merchant = { key: 'sandbox', name: 'Sandbox merchant', enabled: true, createdAt: at, updatedAt: at }
    const payments = Array.from({ length: count }, (_, i) => JSON.stringify(change({ ...payment(i), description: 'x'.repeat(400) }, i)))
    await writeFile(file, `{\n"format": "pay-sandbox/1",\n"seq": 0,\n"merchants": [\n${JSON.stringify(merchant)}\n],\n"payments": [\n${payments.join(',\n')}\n],\n"deliveries": [\n]\n}\n`)
    return file
  }

  test('a read that fails midway stops the start with the error, whichever chunk it was', async () => {
    const file = await dataFile(8000)
    const { store } = await openFileStore({ file })
    expect(store.counts().payments).toBe(8000)
    await store.close()
    for (const nth of [1, 2, 3]) {
      const faults: Faults = { read: (path, n) => (path === file && n === nth ? Promise.reject(errno('EIO', 'input/output error')) : undefined) }
      const failed = await settle(openFileStore({ file, fs: faultyFs(faults) }))
      expect(failed, `read ${nth}`).toBeInstanceOf(Error)
      expect((failed as Error).message).toContain(`cannot read data file ${file}`)
      expect((failed as Error).message).toContain('EIO')
    }
    // The file was left as it was, and opens.
    const again = await openFileStore({ file })
    expect(again.store.counts().payments).toBe(8000)
    await again.store.close()
  })

  test('a refused record is what the start says, even when a read after it fails meanwhile', async () => {
    const file = await dataFile(8000, (p, i) => (i === 2 ? { ...p, amount: -1 } : p))
    const slow = gate()
    const faults: Faults = {
      read: async (path, n) => {
        if (path !== file || n < 2) return
        await slow.wait()
        throw errno('EIO', 'input/output error')
      },
    }
    const opening = settle(openFileStore({ file, fs: faultyFs(faults) }))
    const failed = await opening
    slow.open()
    await turn()
    expect(failed).toBeInstanceOf(Error)
    expect((failed as Error).message).toMatch(/has a record the sandbox cannot use at line 10: payments\[2\]\.amount/)
  })
})

describe('a journal that fails', () => {
  test('a batch written half before the disk filled is cut off and never replayed', async () => {
    const file = join(await tempDir(), 'data.json')
    const faults: Faults = {}
    const { store } = await openFileStore({ file, fs: faultyFs(faults) })
    await store.putPayment(payment(1))
    // The next write stores its first 40 bytes, then the disk is full.
    faults.write = (path) => (isJournal(path) ? 40 : undefined)
    expect(await settle(Promise.all([store.putPayment(payment(2)), store.putPayment(payment(3))]))).toMatchObject({
      kind: 'storageUnavailable',
    })
    faults.write = undefined
    await store.putPayment(payment(4))
    const journal = await readFile(`${file}.journal`, 'utf8')
    expect(journal).not.toContain(trackIdOf(2))
    const again = await reopen(file, store)
    expect(again.listPayments().map((p) => p.trackId)).toEqual([trackIdOf(1), trackIdOf(4)])
    await again.close()
  })

  test('when cutting off a failed batch fails too, the next write repairs the journal first', async () => {
    const file = join(await tempDir(), 'data.json')
    const faults: Faults = {}
    const { store } = await openFileStore({ file, fs: faultyFs(faults) })
    await store.putPayment(payment(1))
    faults.write = (path) => (isJournal(path) ? 60 : undefined)
    let truncates = 0
    faults.truncate = () => {
      truncates++
      if (truncates <= 2) throw errno('EIO')
    }
    expect(await settle(store.putPayment(payment(2)))).toMatchObject({ kind: 'storageUnavailable' })
    faults.write = undefined
    // The repair before this write fails (second truncate): refused, nothing written after the torn bytes.
    expect(await settle(store.putPayment(payment(3)))).toMatchObject({ kind: 'storageUnavailable' })
    await store.putPayment(payment(4))
    const again = await reopen(file, store)
    expect(again.listPayments().map((p) => p.trackId)).toEqual([trackIdOf(1), trackIdOf(4)])
    await again.close()
  })

  test('a rotation that cannot open the new journal (EMFILE) keeps the old one in use; writes go on and it is retried', async () => {
    const file = join(await tempDir(), 'data.json')
    const faults: Faults = {}
    const { store } = await openFileStore({ file, fs: faultyFs(faults), compactAfter: 5 })
    let emfile = true
    let refusedOpens = 0
    faults.open = (path, flags) => {
      if (emfile && isJournal(path) && flags === 'wx') {
        refusedOpens++
        throw errno('EMFILE', 'too many open files')
      }
    }
    for (let i = 0; i < 30; i++) await store.putPayment(payment(i))
    expect(refusedOpens).toBeGreaterThan(1)
    emfile = false
    for (let i = 30; i < 40; i++) await store.putPayment(payment(i))
    await store.flush()
    const snapshot = JSON.parse(await readFile(file, 'utf8')) as { payments: Payment[] }
    expect(snapshot.payments.length).toBeGreaterThanOrEqual(30)
    expect(await readdir(join(file, '..'))).not.toContain('data.json.journal.old')
    const again = await reopen(file, store)
    expect(again.counts().payments).toBe(40)
    await again.close()
  })

  test('a snapshot that cannot be written leaves the rotated journal for replay, and is tried again later', async () => {
    const file = join(await tempDir(), 'data.json')
    const faults: Faults = {}
    const { store } = await openFileStore({ file, fs: faultyFs(faults), compactAfter: 5 })
    faults.open = (path) => {
      if (path.includes('.tmp-')) throw errno('ENOSPC')
    }
    for (let i = 0; i < 20; i++) await store.putPayment(payment(i))
    await store.flush()
    expect(await readdir(join(file, '..'))).toContain('data.json.journal.old')
    const again = await reopen(file, store)
    expect(again.counts().payments).toBe(20)
    await again.close()
  })
})

describe('reading back what was written', () => {
  test('a journal grows no larger than the size limit: it is compacted by size as well as by count', async () => {
    const file = join(await tempDir(), 'data.json')
    const { store } = await openFileStore({ file, compactAfterBytes: 64 * 1024 })
    const description = 'd'.repeat(900)
    for (let i = 0; i < 300; i++) await store.putPayment({ ...payment(i), description })
    await store.flush()
    expect(store.engine.journalBytes).toBeLessThan(80 * 1024)
    await store.close()
  })

  test('a large snapshot is synced every few megabytes as it is written, so its last sync has little left to flush', async () => {
    const file = join(await tempDir(), 'data.json')
    const faults: Faults = {}
    const { store } = await openFileStore({ file, fs: faultyFs(faults) })
    // Syncs of the snapshot's temporary file, and the bytes written to it before each.
    const syncedAt: number[] = []
    let written = 0
    faults.write = (path, bytes) => void (path.includes('.tmp-') && (written += bytes))
    faults.sync = (path) => void (path.includes('.tmp-') && syncedAt.push(written))
    const description = 'd'.repeat(1000)
    // An import is written as a snapshot of its own: 12 MB of payments.
    await store.replace({ merchants: store.listMerchants(), payments: Array.from({ length: 12_000 }, (_, i) => ({ ...payment(i), description })), deliveries: [] })
    expect(written).toBeGreaterThan(12 * 1024 * 1024)
    expect(syncedAt.length).toBeGreaterThanOrEqual(3)
    const steps = syncedAt.map((at, i) => at - (syncedAt[i - 1] ?? 0))
    expect(Math.max(...steps)).toBeLessThanOrEqual(4 * 1024 * 1024 + 1024 * 1024)
    const again = await reopen(file, store)
    expect(again.counts().payments).toBe(12_000)
    await again.close()
  })

  test('stale temporary snapshot files left by a crash are removed at start', async () => {
    const dir = await tempDir()
    const file = join(dir, 'data.json')
    const { store } = await openFileStore({ file })
    await store.close()
    await writeFile(join(dir, 'data.json.tmp-99999'), '{"format": "pay-sandbox/1", "seq"')
    await writeFile(join(dir, 'other.json.tmp-99999'), 'not ours')
    const { store: again, report } = await openFileStore({ file })
    expect(report.removedTemps).toBe(1)
    expect((await readdir(dir)).sort()).toEqual(['data.json', 'data.json.journal', 'data.json.lock', 'other.json.tmp-99999'])
    await again.close()
  })
})

describe('descriptors', () => {
  const openDescriptors = () => readdirSync('/proc/self/fd').length

  test.skipIf(!existsSync('/proc/self/fd'))('a close whose final snapshot cannot be written still lets go of the journal', async () => {
    const attempt = async (): Promise<Store> => {
      const file = join(await tempDir(), 'data.json')
      const faults: Faults = {}
      const { store } = await openFileStore({ file, fs: faultyFs(faults) })
      await store.putPayment(payment(1))
      faults.open = (path) => {
        if (path.includes('.tmp-')) throw errno('ENOSPC')
      }
      expect(await settle(store.close())).toMatchObject({ code: 'ENOSPC' })
      // Nothing was lost: the journal is replayed by the next start.
      const again = await reopen(file, store)
      expect(again.counts().payments).toBe(1)
      await again.close()
      return store
    }
    await attempt()
    const before = openDescriptors()
    // Held until counted, so the garbage collector cannot close what close() left open.
    const stores: Store[] = []
    for (let i = 0; i < 20; i++) stores.push(await attempt())
    expect(openDescriptors() - before).toBeLessThan(3)
    expect(stores).toHaveLength(20)
  })
})

describe('a start the disk or the descriptors refuse', () => {
  const rows: Array<{ name: string; faults: Faults; message: (file: string) => string }> = [
    {
      name: 'the data file cannot be written (ENOSPC): the disk is full, and what to do',
      faults: { write: (path) => (path.includes('.tmp-') ? 0 : undefined) },
      message: (file) => `cannot write data file ${file}, so it was left as it was: the disk is full (ENOSPC): free some space on it, or start on another disk with --data <file>`,
    },
    {
      name: 'the journal cannot be opened (EMFILE): too many open files, and how to raise the limit',
      faults: {
        open: (path, flags) => {
          if (isJournal(path) && flags === 'a') throw errno('EMFILE', 'too many open files')
        },
      },
      message: (file) => `cannot write journal ${file}.journal: too many open files (EMFILE): raise the limit of open files, e.g. \`ulimit -n 1024\`, and start again`,
    },
  ]
  for (const row of rows) {
    test(`${row.name}; the lock is let go`, async () => {
      const dir = await tempDir()
      const file = join(dir, 'data.json')
      await expect(openFileStore({ file, fs: faultyFs(row.faults) })).rejects.toThrow(row.message(file))
      expect(await readdir(dir)).not.toContain('data.json.lock')
    })
  }
})
