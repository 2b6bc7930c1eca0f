import { basename, join } from 'node:path'
import { Low } from 'lowdb'
import { SandboxError } from '../domain/outcomes.js'
import { journalRecordProblem } from '../domain/record-schema.js'
import type { ClockRecord, Delivery, Merchant, Payment, PaymentStatus, VerifyEntry, VerifyJournal } from '../domain/types.js'
import type { FaultRule } from '../domain/api-fault.js'
import type { FaultChange, FaultHit } from '../domain/api-fault-hit.js'
import { DataFileError, fsProblem } from './errors.js'
import { isMissing, nodeFs, type StoreFs } from './fs.js'
import { dirOf, syncDir } from './fsutil.js'
import { type Durability, JOURNAL_FORMAT, type JournalHeader, JournalWriter, readJournal } from './journal.js'
import { DataFileLock, realDataPath } from './lock.js'
import { PendingView } from './pending.js'
import { emptySnapshot, isSnapshotTemp, newStoreId, type Snapshot, type SnapshotData, SNAPSHOT_FORMAT, SnapshotFile } from './snapshot.js'
import { type Change, type SandboxRecords, State, type StateImage, type StateReader } from './state.js'
import type { TelegramReader } from './telegram-state.js'
import type { TelegramChange, TelegramImage } from '../domain/telegram-records.js'

export type { StateImage, StateReader } from './state.js'

export const DEFAULT_MERCHANT = { key: 'sandbox', name: 'Sandbox merchant' } as const

export interface StoreOptions {
  /** Path of the data file (the lowdb snapshot). The journal and lock live beside its real path. */
  file: string
  now?: () => Date
  /** Journal records after which a compaction starts; it also waits for as many records as are stored. */
  compactAfter?: number
  /** Journal size after which a compaction starts, whatever the number of records. Default 64 MB. */
  compactAfterBytes?: number
  /** The file system; tests wrap it to inject faults. */
  fs?: StoreFs
  /** When a write is acknowledged: after its fdatasync (`disk`, the default), or once the OS has it (`os`). */
  durability?: Durability
}

export interface OpenReport {
  /** The data file did not exist and was created with the default merchant. */
  created: boolean
  /** Journal records replayed on top of the snapshot. */
  replayed: number
  /** Bytes of a torn final journal record (a write cut short by a crash; never acknowledged). */
  tornBytes: number
  /** Temporary files of snapshot writes cut short by a crash, removed at start. */
  removedTemps: number
}

interface Pending {
  seq: number
  change: Change
  resolve: () => void
  reject: (error: Error) => void
}

const COMPACT_AFTER_BYTES = 64 * 1024 * 1024
const SNAPSHOT_RETRY_MS = { first: 1_000, max: 60_000 }
/** An observation waits this long for a change to share a write with, then is written on its own. */
const OBSERVATION_WAIT_MS = 25
/** Observations waiting beyond this many are dropped, the oldest first (the disk is failing, or far behind). */
const OBSERVATIONS_MAX = 100_000

/**
 * The sandbox's state: in memory, with indexes, made durable by an append-only journal.
 *
 * Two versions of the state exist. The durable one is what every reader sees (the get/list methods): a change
 * joins it only once its journal record is on disk, so nothing is ever shown that a crash could take back, and
 * a change whose write failed is never seen by anyone. `latest` adds the changes still being written; writers
 * consult it where those must count. All changes queued in one event-loop turn share one write and one
 * fdatasync (group commit). The journal is compacted into the lowdb snapshot in the background once it holds
 * half as many records as the state (so the snapshot's cost, which grows with the state, is spread over as many
 * writes) or grows past a size, and at shutdown. An import is written as a snapshot of its own.
 */
export class Store {
  readonly file: string
  readonly journalPath: string
  readonly oldJournalPath: string
  /** The durable state with the pending changes laid over it: for writers only. */
  readonly latest: StateReader
  private readonly fs: StoreFs
  private readonly db: Low<SnapshotData>
  private readonly lock: DataFileLock
  private readonly now: () => Date
  private readonly durability: Durability
  private readonly compactAfter: number
  private readonly compactAfterBytes: number
  private readonly durable = new State()
  private readonly pending: PendingView

  private journal!: JournalWriter
  private storeId = ''
  /** Last sequence number given to a change, and the last one that is durable. */
  private seq = 0
  private durableSeq = 0
  private journalRecords = 0
  private queue: Pending[] = []
  /** Observations (verify calls): written with the next batch, never holding an answer, never failing one. */
  private observations: Change[] = []
  private observationTimer: NodeJS.Timeout | undefined
  private observationsDue = false
  private scheduled = false
  private writing: Promise<void> | undefined
  private compaction: Promise<void> | undefined
  /** A rotated journal whose records are not yet in a snapshot. */
  private oldJournal = false
  private snapshotRetryAt = 0
  private snapshotRetryMs = SNAPSHOT_RETRY_MS.first
  private closed = false

  private constructor(options: StoreOptions & { file: string; fs: StoreFs }, lock: DataFileLock) {
    this.fs = options.fs
    this.file = options.file
    this.journalPath = `${options.file}.journal`
    this.oldJournalPath = `${options.file}.journal.old`
    this.db = new Low(new SnapshotFile(this.fs, options.file), emptySnapshot())
    this.lock = lock
    this.now = options.now ?? (() => new Date())
    this.durability = options.durability ?? 'disk'
    this.compactAfter = options.compactAfter ?? 10_000
    this.compactAfterBytes = options.compactAfterBytes ?? COMPACT_AFTER_BYTES
    this.pending = new PendingView(this.durable)
    this.latest = this.pending
  }

  /** Opens (or creates) the data file. Throws DataFileError, naming the file, if it cannot be used. */
  static async open(options: StoreOptions): Promise<{ store: Store; report: OpenReport }> {
    const fs = options.fs ?? nodeFs
    await fs.mkdir(dirOf(options.file), { recursive: true }).catch((error: Error) => {
      throw new DataFileError(`cannot create the folder of data file ${options.file}: ${fsProblem(error)}`)
    })
    let file: string
    try {
      file = realDataPath(options.file)
    } catch (error) {
      throw new DataFileError(`cannot resolve data file ${options.file}: ${(error as Error).message}`)
    }
    const lock = DataFileLock.acquire(file, (options.now?.() ?? new Date()).toISOString())
    const store = new Store({ ...options, file, fs }, lock)
    try {
      const report = await store.load()
      return { store, report }
    } catch (error) {
      lock.release()
      throw error
    }
  }

  private async load(): Promise<OpenReport> {
    const removedTemps = await this.removeTemps()
    const fresh = this.db.data
    await this.db.read()
    const snapshot = this.db.data
    const created = snapshot === fresh
    this.durable.apply({ k: 'replace', v: snapshot })
    this.durable.telegram.load(snapshot)
    this.durable.loadRecords(snapshot)
    this.storeId = snapshot.store ?? newStoreId()
    let seq = snapshot.seq
    let covered = snapshot.seq
    let replayed = 0
    let tornBytes = 0
    let journalsToFold = false
    for (const path of [this.oldJournalPath, this.journalPath]) {
      const read = await readJournal(this.fs, path, {
        header: (header) => this.checkJournal(path, header, snapshot, created, covered),
        record: (record) => {
          if (record.s <= snapshot.seq) return
          const { s, ...change } = record
          this.durable.apply(change as Change)
          seq = Math.max(seq, s)
          replayed++
        },
      })
      tornBytes += read.tornBytes
      covered = Math.max(covered, read.lastSeq, read.header?.after ?? 0)
      if (read.records > 0 || read.tornBytes > 0 || (path === this.oldJournalPath && read.header !== undefined)) journalsToFold = true
    }
    if (created && !this.durable.hasMerchantKey(DEFAULT_MERCHANT.key)) {
      const at = this.now().toISOString()
      this.durable.apply({ k: 'merchant', v: { ...DEFAULT_MERCHANT, enabled: true, createdAt: at, updatedAt: at } })
    }
    this.seq = seq
    this.durableSeq = seq
    if (created || journalsToFold || snapshot.store === undefined) {
      // Fold the journals into a fresh snapshot before accepting requests.
      await this.writeSnapshot(this.durable.fullImage(), seq).catch((error: Error) => {
        throw new DataFileError(`cannot write data file ${this.file}, so it was left as it was: ${fsProblem(error)}`)
      })
      try {
        const handle = await this.fs.open(this.journalPath, 'w')
        await handle.close()
        await this.fs.unlink(this.oldJournalPath).catch(ignoreMissing)
      } catch (error) {
        throw new DataFileError(`cannot empty journal ${this.journalPath} after saving it in ${this.file}: ${fsProblem(error)}`)
      }
    }
    try {
      this.journal = await JournalWriter.open(this.fs, this.journalPath, this.header(), this.durability)
    } catch (error) {
      throw new DataFileError(`cannot write journal ${this.journalPath}: ${fsProblem(error)}`)
    }
    return { created, replayed, tornBytes, removedTemps }
  }

  /** A journal must belong to this data file and continue it without a gap. */
  private checkJournal(path: string, header: JournalHeader | undefined, snapshot: Snapshot, created: boolean, covered: number): void {
    if (header === undefined) return // empty, or written before journals had headers
    const refuse = (why: string) =>
      new DataFileError(
        `journal ${path} does not belong with data file ${this.file}: ${why}. Both were left untouched; acknowledged ` +
          'changes may be in that journal. Put back the data file it belongs to, or move the journal away to start ' +
          'without its changes, or start on another file with --data <file>.',
      )
    if (created) throw refuse('the data file is missing')
    if (header.store !== snapshot.store) {
      throw refuse(`it was written for data file id ${header.store}, and ${this.file} has id ${snapshot.store ?? '(none)'}`)
    }
    if (header.after > covered) {
      throw refuse(
        `it continues from change ${header.after}, but the data file only holds changes up to ${covered} ` +
          '(the data file was replaced by an older copy)',
      )
    }
  }

  private header(): JournalHeader {
    return { journal: JOURNAL_FORMAT, store: this.storeId, after: this.durableSeq }
  }

  /** Snapshot writes cut short by a crash leave `<data file>.tmp-<pid>`; the lock says none is under way. */
  private async removeTemps(): Promise<number> {
    const name = basename(this.file)
    let removed = 0
    const entries = await this.fs.readdir(dirOf(this.file)).catch(() => [] as string[])
    for (const entry of entries) {
      if (!isSnapshotTemp(entry, name)) continue
      await this.fs
        .unlink(join(dirOf(this.file), entry))
        .then(() => removed++)
        .catch(() => {})
    }
    return removed
  }

  // ── reads: the durable state ──────────────────────────────────────────

  /** Looks a merchant up by API key without comparing the key itself to stored keys. */
  getMerchant(key: string): Merchant | undefined {
    return this.durable.getMerchant(key)
  }

  listMerchants(): Merchant[] {
    return this.durable.listMerchants()
  }

  getPayment(trackId: string): Payment | undefined {
    return this.durable.getPayment(trackId)
  }

  /** Payments in creation order, newest last. */
  listPayments(filter: { status?: PaymentStatus; merchant?: string } = {}): Payment[] {
    return this.durable.listPayments(filter)
  }

  hasRefNumber(refNumber: string): boolean {
    return this.durable.hasRefNumber(refNumber)
  }

  getDelivery(id: string): Delivery | undefined {
    return this.durable.getDelivery(id)
  }

  /** Deliveries in creation order; with a trackId, only that payment's. */
  listDeliveries(filter: { trackId?: string } = {}): Delivery[] {
    return this.durable.listDeliveries(filter.trackId)
  }

  counts(): { merchants: number; payments: number; deliveries: number } {
    return this.durable.counts()
  }

  exportImage(): StateImage {
    return this.durable.image()
  }

  /** The sandbox clock as last saved; undefined when it was never moved. */
  clock(): ClockRecord | undefined {
    return this.durable.clock
  }

  /** A payment's verify journal as written (an entry shows only once it is on disk). */
  verifiesOf(trackId: string): VerifyJournal | undefined {
    return this.durable.verifiesOf(trackId)
  }

  /** The API fault rules as written, oldest first. */
  faultRules(): FaultRule[] {
    return this.durable.faultRules()
  }

  /** The latest faults played, as written, oldest first. */
  faultHits(): FaultHit[] {
    return this.durable.faultHits()
  }

  /** The Bot API emulator's durable records. */
  get telegram(): TelegramReader {
    return this.durable.telegram
  }

  // ── writes: each resolves once durable, and only then becomes visible ──

  putMerchant(merchant: Merchant): Promise<void> {
    return this.commit({ k: 'merchant', v: merchant })
  }

  putPayment(payment: Payment): Promise<void> {
    return this.commit({ k: 'payment', v: payment })
  }

  putDelivery(delivery: Delivery): Promise<void> {
    return this.commit({ k: 'delivery', v: delivery })
  }

  putTelegram(change: TelegramChange): Promise<void> {
    return this.commit({ k: 'tg', v: change })
  }

  putClock(record: ClockRecord): Promise<void> {
    return this.commit({ k: 'clock', v: record })
  }

  /** A change to the API fault rules (added, counted, removed). */
  putFault(change: Exclude<FaultChange, { t: 'hit' }>): Promise<void> {
    return this.commit({ k: 'fault', v: change })
  }

  /**
   * Records a verify call without holding its answer: the entry joins the next journal write (or, after a short
   * wait with none, one of its own). It is an observation, not a change anyone was promised: a crash in the
   * instant before it is written loses it, and a write that fails drops it. Readers see it once it is written.
   */
  observeVerify(entry: VerifyEntry): void {
    this.observe({ k: 'verify', v: entry })
  }

  /** Records a fault played on a request, as observeVerify records a verify. */
  observeFaultHit(hit: FaultHit): void {
    this.observe({ k: 'fault', v: { t: 'hit', v: hit } })
  }

  private observe(change: Change): void {
    if (this.closed || journalRecordProblem({ s: this.seq + 1, ...change }) !== undefined) return
    // Past the bound, the older half goes at once (cutting one at a time would copy the list on every call).
    if (this.observations.length >= OBSERVATIONS_MAX) this.observations.splice(0, OBSERVATIONS_MAX / 2)
    this.observations.push(change)
    this.observationTimer ??= setTimeout(() => {
      this.observationTimer = undefined
      this.observationsDue = true
      this.kick()
    }, OBSERVATION_WAIT_MS).unref()
  }

  /** Clears payments and deliveries, and the emulator's chats, updates and files; merchants and bots stay. */
  reset(): Promise<void> {
    return this.commit({ k: 'reset' })
  }

  /** Replaces the whole state (import), written as a snapshot. */
  replace(image: StateImage): Promise<void> {
    return this.commit({ k: 'replace', v: image })
  }

  private commit(change: Change): Promise<void> {
    if (this.closed) return Promise.reject(new SandboxError('storageUnavailable', 'the sandbox is shutting down'))
    // What the next start would refuse is never written: the change fails instead (an import is checked whole before).
    if (change.k !== 'replace') {
      const problem = journalRecordProblem({ s: this.seq + 1, ...change })
      if (problem !== undefined) return Promise.reject(new Error(`refused to save a record the sandbox could not read back: ${problem}`))
    }
    const seq = ++this.seq
    this.pending.noted(seq, change)
    // What was observed of the records a reset or import removes is of no use any more.
    if (change.k === 'reset' || change.k === 'replace') this.observations.length = 0
    return new Promise<void>((resolve, reject) => {
      this.queue.push({ seq, change, resolve, reject })
      this.kick()
    })
  }

  /** Starts writing in the next turn of the event loop (all changes of this turn share one write). */
  private kick(): void {
    if (this.scheduled) return
    this.scheduled = true
    setImmediate(() => {
      this.scheduled = false
      this.writing ??= this.drain().finally(() => {
        this.writing = undefined
        if (this.observations.length > 0 && this.observationsDue) this.kick()
      })
    })
  }

  /**
   * Writes queued changes, one append per batch (an import on its own, as a snapshot), until none are left.
   * Observations ride along with each batch; on their own they are written only once they have waited.
   */
  private async drain(): Promise<void> {
    while (this.queue.length > 0 || (this.observationsDue && this.observations.length > 0)) {
      const replaceAt = this.queue.findIndex((p) => p.change.k === 'replace')
      const batch = replaceAt === 0 ? this.queue.splice(0, 1) : replaceAt > 0 ? this.queue.splice(0, replaceAt) : this.queue.splice(0)
      let observed = 0
      if (replaceAt === -1 && this.observations.length > 0) {
        this.observationsDue = false
        clearTimeout(this.observationTimer)
        this.observationTimer = undefined
        // Numbered as they are written, so the journal stays in order.
        const taken = this.observations.splice(0)
        for (const change of taken) batch.push({ seq: ++this.seq, change, resolve: noop, reject: noop })
        observed = taken.length
      }
      if (batch.length === 0) break
      const first = batch[0]!
      try {
        if (first.change.k === 'replace') await this.writeImport(first.seq, first.change.v)
        else await this.journal.append(batch.map(journalLine).join(''))
      } catch (error) {
        // Observations alone promised nothing and nothing was made on top of them: they are dropped, and the
        // changes queued meanwhile are written next. A failed change fails what was made on top of it.
        if (observed < batch.length) this.failAll(batch, error as Error, first.change.k === 'replace' ? this.file : this.journalPath)
        continue
      }
      for (const p of batch) {
        this.durable.apply(p.change)
        this.durableSeq = p.seq
        this.pending.settled(p.seq, p.change)
      }
      // Observations are small and cheap to replay: they bring compaction nearer only through the journal's size.
      if (first.change.k !== 'replace') this.journalRecords += batch.length - observed
      for (const p of batch) p.resolve()
      if (this.shouldCompact()) await this.compact()
    }
    if (this.observations.length > 0 && this.observationTimer === undefined && !this.observationsDue) {
      this.observationTimer = setTimeout(() => {
        this.observationTimer = undefined
        this.observationsDue = true
        this.kick()
      }, OBSERVATION_WAIT_MS).unref()
    }
  }

  /**
   * A failed write fails every pending change, queued ones included: they were made on top of what failed.
   * Nothing of it was shown; the next change tries the disk again.
   */
  private failAll(batch: Pending[], error: Error, file: string): void {
    const rest = this.queue.splice(0)
    this.pending.clear()
    const failure = new SandboxError('storageUnavailable', `could not save to ${file} (${error.message}); nothing was stored`)
    for (const p of [...batch, ...rest]) p.reject(failure)
  }

  /** An import becomes a snapshot of its own; journal records before it are older and skipped on replay. */
  private async writeImport(seq: number, image: StateImage): Promise<void> {
    while (this.compaction) await this.compaction
    // An import carries no emulator records and no clock: the ones in use stay.
    const clock = this.durable.clock
    await this.writeSnapshot({ ...image, ...this.durable.telegram.image(), ...(clock ? { clock } : {}) }, seq)
    this.oldJournal = false
    await this.fs.unlink(this.oldJournalPath).catch(() => {})
  }

  private shouldCompact(): boolean {
    if (this.compaction || this.closed || Date.now() < this.snapshotRetryAt) return false
    if (this.journal.bytes >= this.compactAfterBytes) return true
    return this.journalRecords >= Math.max(this.compactAfter, this.durable.size / 2)
  }

  /**
   * Moves the journal aside (between two writes) and writes a snapshot of the durable state in the background;
   * new changes go on meanwhile. A rotation that fails is tried again after the next write; a snapshot that
   * fails is tried again after a pause, and until then the old journal stays for replay.
   */
  private async compact(): Promise<void> {
    if (!this.oldJournal) {
      try {
        await this.journal.rotate(this.oldJournalPath, this.header())
      } catch {
        return
      }
      this.oldJournal = true
      this.journalRecords = 0
    }
    const image = this.durable.fullImage()
    const seq = this.durableSeq
    this.compaction = this.writeSnapshot(image, seq)
      .then(async () => {
        await this.fs.unlink(this.oldJournalPath).catch(ignoreMissing)
        await syncDir(this.fs, dirOf(this.file))
        this.oldJournal = false
        this.snapshotRetryMs = SNAPSHOT_RETRY_MS.first
      })
      .catch(() => {
        this.snapshotRetryAt = Date.now() + this.snapshotRetryMs
        this.snapshotRetryMs = Math.min(this.snapshotRetryMs * 2, SNAPSHOT_RETRY_MS.max)
      })
      .finally(() => {
        this.compaction = undefined
      })
  }

  private async writeSnapshot(image: StateImage & Partial<TelegramImage> & SandboxRecords, seq: number): Promise<void> {
    this.db.data = { format: SNAPSHOT_FORMAT, seq, store: this.storeId, ...image }
    await this.db.write()
  }

  /** Writes the observations made so far now, and waits until they are on disk (or failed). */
  async flushObservations(): Promise<void> {
    if (this.observations.length > 0) {
      this.observationsDue = true
      this.kick()
    }
    while (this.writing || this.scheduled) await (this.writing ?? new Promise((r) => setImmediate(r)))
  }

  /** Waits for pending writes and compaction: afterwards every change made so far is settled. */
  async flush(): Promise<void> {
    if (this.observations.length > 0) {
      this.observationsDue = true
      this.kick()
    }
    while (this.writing || this.scheduled || this.queue.length > 0 || this.compaction) {
      await (this.writing ?? this.compaction ?? new Promise((r) => setImmediate(r)))
    }
  }

  /** Flushes, writes the full state to the data file, empties the journal and releases the lock. */
  async close(): Promise<void> {
    if (this.closed) return
    await this.flush()
    this.closed = true
    clearTimeout(this.observationTimer)
    try {
      await this.writeSnapshot(this.durable.fullImage(), this.durableSeq).catch(async (error: unknown) => {
        // Not saved: the journal keeps every change for the next start, and its descriptor is let go all the same.
        await this.journal.close().catch(() => {})
        throw error
      })
      await this.journal.close()
      const handle = await this.fs.open(this.journalPath, 'w')
      await handle.close()
      await this.fs.unlink(this.oldJournalPath).catch(ignoreMissing)
    } finally {
      this.lock.release()
    }
  }

  /**
   * Lets go of the data file without writing it: for a start that failed once the file was open. Every change
   * acknowledged so far is on disk already; the lock is released, so the next start is not told the file is in use.
   */
  async release(): Promise<void> {
    if (this.closed) return
    await this.flush().catch(() => {})
    this.closed = true
    clearTimeout(this.observationTimer)
    try {
      await this.journal.close()
    } catch {
      // closing a handle we only give up
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
}

function noop(): void {}

function journalLine(p: Pending): string {
  return `${JSON.stringify({ s: p.seq, ...p.change })}\n`
}

function ignoreMissing(error: unknown): void {
  if (!isMissing(error)) throw error
}

