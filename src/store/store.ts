import { createHash } from 'node:crypto'
import { mkdir, truncate, unlink } from 'node:fs/promises'
import { dirname } from 'node:path'
import { Low } from 'lowdb'
import { SandboxError } from '../domain/outcomes.js'
import type { Delivery, Merchant, Payment, PaymentStatus } from '../domain/types.js'
import { DataFileError } from './errors.js'
import { type JournalChange, type JournalRecord, JournalWriter, readJournal, type StateImage } from './journal.js'
import { DataFileLock } from './lock.js'
import { emptySnapshot, type Snapshot, SNAPSHOT_FORMAT, SnapshotFile } from './snapshot.js'

export const DEFAULT_MERCHANT = { key: 'sandbox', name: 'Sandbox merchant' } as const

export interface StoreOptions {
  /** Path of the data file (the lowdb snapshot). The journal and lock live beside it. */
  file: string
  now?: () => Date
  /** Journal records after which a compaction starts; it also waits for as many records as are stored. */
  compactAfter?: number
}

export interface OpenReport {
  /** The data file did not exist and was created with the default merchant. */
  created: boolean
  /** Journal records replayed on top of the snapshot. */
  replayed: number
  /** Bytes of a torn final journal record (a write cut short by a crash; never acknowledged). */
  tornBytes: number
}

interface Pending {
  line: string
  undo: () => void
  resolve: () => void
  reject: (error: Error) => void
}

/**
 * The sandbox's state: in memory, with indexes, made durable by an append-only journal.
 *
 * A change is applied in memory at once (so the next request sees it) and acknowledged only after its journal
 * record is on disk. All changes made in one event-loop turn share one write and one fdatasync (group commit),
 * so the cost of a change does not depend on how much is stored. The journal is compacted into the lowdb
 * snapshot in the background once it holds half as many records as the state (so the snapshot's cost, which
 * grows with the state, is spread over as many writes), and at shutdown.
 */
export class Store {
  readonly file: string
  readonly journalPath: string
  readonly oldJournalPath: string
  private readonly db: Low<Snapshot>
  private readonly lock: DataFileLock
  private readonly now: () => Date
  private readonly compactAfter: number

  private readonly merchants = new Map<string, Merchant>()
  /** Merchants by SHA-256 of their key: a key sent by a client is never compared character by character. */
  private readonly merchantsByDigest = new Map<string, Merchant>()
  private readonly payments = new Map<string, Payment>()
  private readonly deliveries = new Map<string, Delivery>()
  private readonly deliveriesByTrackId = new Map<string, string[]>()
  private readonly refNumbers = new Set<string>()

  private journal!: JournalWriter
  private seq = 0
  private journalRecords = 0
  private queue: Pending[] = []
  private scheduled = false
  private writing: Promise<void> | undefined
  private compaction: Promise<void> | undefined
  private compactionBroken = false
  private closed = false

  private constructor(options: StoreOptions, lock: DataFileLock) {
    this.file = options.file
    this.journalPath = `${options.file}.journal`
    this.oldJournalPath = `${options.file}.journal.old`
    this.db = new Low(new SnapshotFile(options.file), emptySnapshot())
    this.lock = lock
    this.now = options.now ?? (() => new Date())
    this.compactAfter = options.compactAfter ?? 10_000
  }

  /** Opens (or creates) the data file. Throws DataFileError, naming the file, if it cannot be used. */
  static async open(options: StoreOptions): Promise<{ store: Store; report: OpenReport }> {
    await mkdir(dirname(options.file), { recursive: true }).catch((error: Error) => {
      throw new DataFileError(`cannot create the folder of data file ${options.file}: ${error.message}`)
    })
    const lock = DataFileLock.acquire(options.file, (options.now?.() ?? new Date()).toISOString())
    const store = new Store(options, lock)
    try {
      const report = await store.load()
      return { store, report }
    } catch (error) {
      lock.release()
      throw error
    }
  }

  private async load(): Promise<OpenReport> {
    const fresh = this.db.data
    await this.db.read()
    const snapshot = this.db.data
    const created = snapshot === fresh
    this.applyImage(snapshot)
    this.seq = snapshot.seq
    let replayed = 0
    let tornBytes = 0
    for (const path of [this.oldJournalPath, this.journalPath]) {
      const read = await readJournal(path)
      tornBytes += read.tornBytes
      for (const record of read.records) {
        if (record.s <= snapshot.seq) continue
        this.applyRecord(record)
        this.seq = Math.max(this.seq, record.s)
        replayed++
      }
    }
    if (created && !this.merchants.has(DEFAULT_MERCHANT.key)) {
      const at = this.now().toISOString()
      this.setMerchant({ ...DEFAULT_MERCHANT, enabled: true, createdAt: at, updatedAt: at })
    }
    if (created || replayed > 0 || tornBytes > 0) {
      // Fold the journals into a fresh snapshot before accepting requests.
      await this.writeSnapshot(this.image(this.seq))
      await truncate(this.journalPath, 0).catch(ignoreMissing)
      await unlink(this.oldJournalPath).catch(ignoreMissing)
    } else {
      await unlink(this.oldJournalPath).catch(ignoreMissing)
    }
    this.journal = await JournalWriter.open(this.journalPath)
    return { created, replayed, tornBytes }
  }

  // ── reads ─────────────────────────────────────────────────────────────

  /** Looks a merchant up by API key without comparing the key itself to stored keys. */
  getMerchant(key: string): Merchant | undefined {
    // Only digests are compared: how long a comparison takes says nothing about the stored keys.
    return this.merchantsByDigest.get(keyDigest(key))
  }

  listMerchants(): Merchant[] {
    return [...this.merchants.values()]
  }

  getPayment(trackId: string): Payment | undefined {
    return this.payments.get(trackId)
  }

  /** Payments in creation order, newest last. */
  listPayments(filter: { status?: PaymentStatus; merchant?: string } = {}): Payment[] {
    const out: Payment[] = []
    for (const p of this.payments.values()) {
      if (filter.status && p.status !== filter.status) continue
      if (filter.merchant && p.merchant !== filter.merchant) continue
      out.push(p)
    }
    return out
  }

  hasRefNumber(refNumber: string): boolean {
    return this.refNumbers.has(refNumber)
  }

  getDelivery(id: string): Delivery | undefined {
    return this.deliveries.get(id)
  }

  /** Deliveries in creation order; with a trackId, only that payment's. */
  listDeliveries(filter: { trackId?: string } = {}): Delivery[] {
    if (filter.trackId === undefined) return [...this.deliveries.values()]
    const ids = this.deliveriesByTrackId.get(filter.trackId) ?? []
    return ids.map((id) => this.deliveries.get(id)).filter((d): d is Delivery => d !== undefined)
  }

  counts(): { merchants: number; payments: number; deliveries: number } {
    return { merchants: this.merchants.size, payments: this.payments.size, deliveries: this.deliveries.size }
  }

  exportImage(): StateImage {
    return { merchants: this.listMerchants(), payments: [...this.payments.values()], deliveries: this.listDeliveries() }
  }

  // ── writes: each resolves once durable ────────────────────────────────

  putMerchant(merchant: Merchant): Promise<void> {
    const before = this.merchants.get(merchant.key)
    this.setMerchant(merchant)
    return this.commit({ k: 'merchant', v: merchant }, () => {
      if (before) this.setMerchant(before)
      else {
        this.merchants.delete(merchant.key)
        this.merchantsByDigest.delete(keyDigest(merchant.key))
      }
    })
  }

  putPayment(payment: Payment): Promise<void> {
    const before = this.payments.get(payment.trackId)
    this.setPayment(payment)
    return this.commit({ k: 'payment', v: payment }, () => {
      if (before) this.setPayment(before)
      else this.payments.delete(payment.trackId)
      if (payment.refNumber && before?.refNumber !== payment.refNumber) this.refNumbers.delete(payment.refNumber)
    })
  }

  putDelivery(delivery: Delivery): Promise<void> {
    const before = this.deliveries.get(delivery.id)
    this.setDelivery(delivery)
    return this.commit({ k: 'delivery', v: delivery }, () => {
      if (before) this.setDelivery(before)
      else this.removeDelivery(delivery)
    })
  }

  /** Clears payments and deliveries; merchants stay. */
  reset(): Promise<void> {
    const before = this.exportImage()
    this.clearActivity()
    return this.commit({ k: 'reset' }, () => this.restore(before))
  }

  /** Replaces the whole state (import). */
  replace(image: StateImage): Promise<void> {
    const before = this.exportImage()
    this.restore(image)
    return this.commit({ k: 'replace', v: image }, () => this.restore(before))
  }

  private commit(change: JournalChange, undo: () => void): Promise<void> {
    if (this.closed) return Promise.reject(new SandboxError('storageUnavailable', 'the sandbox is shutting down'))
    this.seq++
    const line = `${JSON.stringify({ s: this.seq, ...change })}\n`
    return new Promise<void>((resolve, reject) => {
      this.queue.push({ line, undo, resolve, reject })
      if (!this.scheduled) {
        this.scheduled = true
        setImmediate(() => {
          this.scheduled = false
          this.writing ??= this.drain().finally(() => {
            this.writing = undefined
          })
        })
      }
    })
  }

  /** Writes queued changes, one append per batch, until the queue is empty. */
  private async drain(): Promise<void> {
    while (this.queue.length > 0) {
      const batch = this.queue
      this.queue = []
      try {
        await this.journal.append(batch.map((p) => p.line).join(''))
      } catch (error) {
        for (let i = batch.length - 1; i >= 0; i--) batch[i]!.undo()
        const failure = new SandboxError(
          'storageUnavailable',
          `could not save to ${this.journalPath} (${(error as Error).message}); nothing was stored`,
        )
        for (const p of batch) p.reject(failure)
        continue
      }
      this.journalRecords += batch.length
      for (const p of batch) p.resolve()
      if (this.shouldCompact()) await this.startCompaction()
    }
  }

  private shouldCompact(): boolean {
    if (this.compaction || this.compactionBroken) return false
    const stored = this.merchants.size + this.payments.size + this.deliveries.size
    return this.journalRecords >= Math.max(this.compactAfter, stored / 2)
  }

  /** Moves the journal aside and writes the snapshot from it in the background; new changes go on meanwhile. */
  private async startCompaction(): Promise<void> {
    try {
      await this.journal.rotate(this.oldJournalPath)
    } catch {
      this.compactionBroken = true
      return
    }
    this.journalRecords = 0
    const image = this.image(this.seq)
    this.compaction = this.writeSnapshot(image)
      .then(() => unlink(this.oldJournalPath))
      .catch(() => {
        // The old journal stays and is replayed at the next start; no further compaction until then.
        this.compactionBroken = true
      })
      .finally(() => {
        this.compaction = undefined
      })
  }

  private async writeSnapshot(image: Snapshot): Promise<void> {
    this.db.data = image
    await this.db.write()
  }

  /** Waits for pending writes and compaction: afterwards every change made so far is durable. */
  async flush(): Promise<void> {
    while (this.writing || this.scheduled || this.queue.length > 0 || this.compaction) {
      await (this.writing ?? this.compaction ?? new Promise((r) => setImmediate(r)))
    }
  }

  /** Flushes, writes the full state to the data file, empties the journal and releases the lock. */
  async close(): Promise<void> {
    if (this.closed) return
    await this.flush()
    this.closed = true
    try {
      await this.writeSnapshot(this.image(this.seq))
      await this.journal.close()
      await truncate(this.journalPath, 0)
      await unlink(this.oldJournalPath).catch(ignoreMissing)
    } finally {
      this.lock.release()
    }
  }

  /** Lets the lock record the URL, so a second start on this file can name it. */
  setUrl(url: string): void {
    this.lock.setUrl(url)
  }

  get journalBytes(): number {
    return this.journal.bytes
  }

  /** Journal writes (each one append and one fdatasync) since open. */
  get journalWrites(): number {
    return this.journal.writes
  }

  // ── in-memory state ───────────────────────────────────────────────────

  private image(seq: number): Snapshot {
    return { format: SNAPSHOT_FORMAT, seq, ...this.exportImage() }
  }

  private applyImage(image: StateImage): void {
    for (const m of image.merchants) this.setMerchant(m)
    for (const p of image.payments) this.setPayment(p)
    for (const d of image.deliveries) this.setDelivery(d)
  }

  private applyRecord(record: JournalRecord): void {
    switch (record.k) {
      case 'merchant':
        return this.setMerchant(record.v)
      case 'payment':
        return this.setPayment(record.v)
      case 'delivery':
        return this.setDelivery(record.v)
      case 'reset':
        return this.clearActivity()
      case 'replace':
        return this.restore(record.v)
    }
  }

  private restore(image: StateImage): void {
    this.merchants.clear()
    this.merchantsByDigest.clear()
    this.clearActivity()
    this.applyImage(image)
  }

  private clearActivity(): void {
    this.payments.clear()
    this.deliveries.clear()
    this.deliveriesByTrackId.clear()
    this.refNumbers.clear()
  }

  private setMerchant(m: Merchant): void {
    this.merchants.set(m.key, m)
    this.merchantsByDigest.set(keyDigest(m.key), m)
  }

  private setPayment(p: Payment): void {
    this.payments.set(p.trackId, p)
    if (p.refNumber) this.refNumbers.add(p.refNumber)
  }

  private setDelivery(d: Delivery): void {
    if (!this.deliveries.has(d.id)) {
      const ids = this.deliveriesByTrackId.get(d.trackId)
      if (ids) ids.push(d.id)
      else this.deliveriesByTrackId.set(d.trackId, [d.id])
    }
    this.deliveries.set(d.id, d)
  }

  private removeDelivery(d: Delivery): void {
    this.deliveries.delete(d.id)
    const ids = this.deliveriesByTrackId.get(d.trackId)
    if (ids) this.deliveriesByTrackId.set(d.trackId, ids.filter((id) => id !== d.id))
  }
}

function keyDigest(key: string): string {
  return createHash('sha256').update(key).digest('base64')
}

function ignoreMissing(error: NodeJS.ErrnoException): void {
  if (error.code !== 'ENOENT') throw error
}
