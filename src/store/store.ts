import { SandboxError } from '../domain/outcomes.js'
import { journalRecordProblem } from '../domain/record-schema.js'
import type { ClockRecord, Delivery, Merchant, Payment, PaymentStatus, VerifyEntry, VerifyJournal } from '../domain/types.js'
import type { FaultRule } from '../domain/api-fault.js'
import type { FaultChange, FaultHit } from '../domain/api-fault-hit.js'
import type { TelegramChange } from '../domain/telegram-records.js'
import { type Claim, type EngineHost, type Leadership, type OpenReport, type RemoteUnit, type SharedEntries, SOLE_LEADER, type StoreDescription, type StoreEngine } from './engine.js'
import { ConflictError } from './errors.js'
import { PendingView } from './pending.js'
import { type Applied, type Change, State, type StateImage, type StateReader } from './state.js'
import type { TelegramReader } from './telegram-state.js'
import { type Unit, Units } from './units.js'

export type { Applied, Change, StateImage, StateReader } from './state.js'
export type { Claim, OpenReport, SharedEntries, StoreDescription } from './engine.js'

export const DEFAULT_MERCHANT = { key: 'sandbox', name: 'Sandbox merchant' } as const

/** Where an applied change came from: this instance's own write, or another instance's (a shared engine). */
export type Origin = 'local' | 'remote'

/** Told of every durable change the replica applies, in seq order, once it is visible to readers. */
export type AppliedListener = (applied: readonly Applied[], origin: Origin) => void

export interface StoreCoreOptions {
  now?: () => Date
  /** A change-feed listener threw: the store goes on; this is told. */
  onError?: (error: unknown) => void
}

/** Sandbox-wide bounds on waiting for the replica to catch up before a read-modify-write runs again. */
const CONFLICT_RETRIES = 8
/** An observation waits this long for a change to share a write with, then is written on its own. */
const OBSERVATION_WAIT_MS = 25
/** Observations waiting beyond this many are dropped, the oldest first (the disk is failing, or far behind). */
const OBSERVATIONS_MAX = 100_000
const RESOLVED = Promise.resolve()

/**
 * The sandbox's state: an in-memory replica with indexes, made durable by an engine (engine.ts).
 *
 * Two versions of the state exist. The durable one is what every reader sees (the get/list methods): a change
 * joins it only once its engine has it durably, so nothing is ever shown that a crash could take back, and a change
 * whose write failed is never seen by anyone. `latest` adds the changes still being written; writers consult it
 * where those must count.
 *
 * Writes come in units (`commit`): the changes of a unit are durable together or not at all. All units queued in
 * one event-loop turn go to the engine in one write (group commit). Each unit carries the versions of the records
 * it was based on; an engine shared by several instances refuses a unit based on a record another instance has
 * changed meanwhile (ConflictError), and the writer runs again once the replica has caught up (`retrying`).
 *
 * Every change applied to the replica, this instance's or (with a shared engine) another's, is told to the
 * change feed (`onApplied`) in seq order: the service's listeners, pages, followers and job runners hang on it.
 */
export class Store<E extends StoreEngine = StoreEngine> {
  readonly engine: E
  /** The durable state with the pending changes laid over it: for writers only. */
  readonly latest: StateReader
  /** Whether this instance runs the jobs that must run once. */
  readonly leadership: Leadership
  private readonly now: () => Date
  private readonly onError: (error: unknown) => void
  private readonly durable = new State()
  private readonly pending: PendingView
  private readonly units: Units
  private readonly listeners = new Set<AppliedListener>()

  /** The seq the replica stands at. */
  private appliedSeq = 0
  private queue: Unit[] = []
  /** Observations (verify calls): written with the next batch, never holding an answer, never failing one. */
  private observations: Change[] = []
  private observationTimer: NodeJS.Timeout | undefined
  private observationsDue = false
  /** Callers of sync() waiting for the next pull of remote changes. */
  private syncWaiters: { promise: Promise<void>; resolve: () => void; reject: (error: Error) => void } | undefined
  private scheduled = false
  private writing: Promise<void> | undefined
  private closed = false
  private stopRemote: (() => void) | undefined

  private constructor(engine: E, options: StoreCoreOptions) {
    this.engine = engine
    this.now = options.now ?? (() => new Date())
    this.onError = options.onError ?? (() => {})
    this.pending = new PendingView(this.durable)
    this.units = new Units(this.durable, this.pending)
    this.latest = this.pending
    this.leadership = engine.leadership ?? SOLE_LEADER
  }

  /** Opens the store on `engine`: loads what it keeps (a new store gets the default merchant). */
  static async open<E extends StoreEngine>(engine: E, options: StoreCoreOptions = {}): Promise<{ store: Store<E>; report: OpenReport }> {
    const store = new Store(engine, options)
    const seed = (): Change[] => {
      if (store.durable.hasMerchantKey(DEFAULT_MERCHANT.key)) return []
      const at = store.now().toISOString()
      return [{ k: 'merchant', v: { ...DEFAULT_MERCHANT, enabled: true, createdAt: at, updatedAt: at } }]
    }
    const { seq, report } = await engine.open(store.host(), seed)
    store.appliedSeq = seq
    store.stopRemote = engine.onRemote?.(() => void store.sync().catch(() => {}))
    return { store, report }
  }

  private host(): EngineHost {
    const durable = this.durable
    const store = this
    return {
      load: (image, seq, versions) => durable.loadImage(image, seq, versions),
      replay: (change, seq) => durable.apply(change, seq),
      fullImage: () => durable.fullImage(),
      // An import carries no emulator records and no clock: the ones in use stay.
      importedImage: (image) => ({ ...image, ...durable.telegram.image(), ...(durable.clock ? { clock: durable.clock } : {}) }),
      get seq() {
        return store.appliedSeq
      },
      get size() {
        return durable.size
      },
    }
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

  /** A payment's verify journal as written (an entry shows only once it is durable). */
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

  /** The seq the replica stands at: every change up to it is applied. */
  get seq(): number {
    return this.appliedSeq
  }

  // ── the change feed ───────────────────────────────────────────────────

  /** Tells `listener` of every change applied from now on; the returned function stops it. */
  onApplied(listener: AppliedListener): () => void {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }

  private tell(applied: readonly Applied[], origin: Origin): void {
    if (applied.length === 0) return
    for (const listener of this.listeners) {
      try {
        listener(applied, origin)
      } catch (error) {
        this.onError(error)
      }
    }
  }

  // ── catching up with other instances ──────────────────────────────────

  /** Whether the engine may hold changes this replica has not applied (another instance's). */
  get syncs(): boolean {
    return this.engine.pull !== undefined
  }

  /**
   * Resolves once the replica holds every change committed before the call, by any instance: a request handled
   * after it sees whatever was acknowledged before it was sent. Free when nothing else writes (the file engine).
   */
  sync(): Promise<void> {
    if (!this.engine.pull) return RESOLVED
    if (this.closed) return Promise.reject(new SandboxError('storageUnavailable', 'the sandbox is shutting down'))
    // A pull already out may have started before the caller's changes were committed: it waits for the next one.
    if (!this.syncWaiters) {
      let resolve!: () => void
      let reject!: (error: Error) => void
      const promise = new Promise<void>((res, rej) => ((resolve = res), (reject = rej)))
      this.syncWaiters = { promise, resolve, reject }
      this.kick()
    }
    return this.syncWaiters.promise
  }

  /**
   * Runs a read-modify-write; when its unit is refused because a record changed meanwhile (ConflictError), waits
   * for the replica to catch up and runs it again, a bounded number of times. The task must read what it bases
   * its changes on and commit them in one turn (no await between), so the versions the unit carries are the ones
   * it read.
   */
  retrying<T>(task: () => Promise<T>): Promise<T> {
    return task().catch((error: unknown) => this.retryAfter(error, task, 1))
  }

  private async retryAfter<T>(error: unknown, task: () => Promise<T>, attempt: number): Promise<T> {
    for (;;) {
      if (!(error instanceof ConflictError) || attempt >= CONFLICT_RETRIES) throw error
      await this.sync()
      attempt++
      try {
        return await task()
      } catch (next) {
        error = next
      }
    }
  }

  // ── writes: each resolves once durable, and only then becomes visible ──

  putMerchant(merchant: Merchant): Promise<void> {
    return this.commit([{ k: 'merchant', v: merchant }])
  }

  putPayment(payment: Payment): Promise<void> {
    return this.commit([{ k: 'payment', v: payment }])
  }

  putDelivery(delivery: Delivery): Promise<void> {
    return this.commit([{ k: 'delivery', v: delivery }])
  }

  putTelegram(change: TelegramChange): Promise<void> {
    return this.commit([{ k: 'tg', v: change }])
  }

  putClock(record: ClockRecord): Promise<void> {
    return this.commit([{ k: 'clock', v: record }])
  }

  /** A change to the API fault rules (added, counted, removed). */
  putFault(change: Exclude<FaultChange, { t: 'hit' }>): Promise<void> {
    return this.commit([{ k: 'fault', v: change }])
  }

  /**
   * Records a verify call without holding its answer: the entry joins the next write (or, after a short wait
   * with none, one of its own). It is an observation, not a change anyone was promised: a crash in the instant
   * before it is written loses it, and a write that fails drops it. Readers see it once it is written.
   */
  observeVerify(entry: VerifyEntry): void {
    this.observe({ k: 'verify', v: entry })
  }

  /** Records a fault played on a request, as observeVerify records a verify. */
  observeFaultHit(hit: FaultHit): void {
    this.observe({ k: 'fault', v: { t: 'hit', v: hit } })
  }

  private observe(change: Change): void {
    if (this.closed || journalRecordProblem({ s: this.appliedSeq + 1, ...change }) !== undefined) return
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
    return this.commit([{ k: 'reset' }])
  }

  /** Replaces the whole state (import); the file engine writes it as a snapshot. */
  replace(image: StateImage): Promise<void> {
    return this.commit([{ k: 'replace', v: image }])
  }

  /**
   * Writes `changes` as one unit: durable together, or not at all. Resolves once durable (and visible to readers);
   * rejects with the store's error when the write failed, or ConflictError when a record it was based on changed
   * meanwhile. Its expectations are the versions `latest` holds now of the records it writes.
   */
  commit(changes: readonly Change[]): Promise<void> {
    if (this.closed) return Promise.reject(new SandboxError('storageUnavailable', 'the sandbox is shutting down'))
    const replaces = changes.some((c) => c.k === 'replace')
    if (replaces && changes.length > 1) return Promise.reject(new Error('an import is a unit of its own'))
    for (const change of changes) {
      // What the next start would refuse is never written: the change fails instead (an import is checked whole before).
      if (change.k === 'replace') continue
      const problem = journalRecordProblem({ s: this.appliedSeq + 1, ...change })
      if (problem !== undefined) return Promise.reject(new Error(`refused to save a record the sandbox could not read back: ${problem}`))
    }
    // What was observed of the records a reset or import removes is of no use any more.
    if (changes[0]?.k === 'reset' || replaces) this.observations.length = 0
    return new Promise<void>((resolve, reject) => {
      this.queue.push(this.units.make(changes, resolve, reject))
      this.kick()
    })
  }

  /** Starts writing in the next turn of the event loop (all units of this turn share one write). */
  private kick(): void {
    if (this.scheduled) return
    this.scheduled = true
    setImmediate(() => {
      this.scheduled = false
      this.writing ??= this.drain().finally(() => {
        this.writing = undefined
        if ((this.observations.length > 0 && this.observationsDue) || this.syncWaiters) this.kick()
      })
    })
  }

  /**
   * Pulls remote changes for those waiting on sync(), and writes queued units, one write per batch (an import on
   * its own), until none are left. Observations ride along with each batch; on their own they are written only
   * once they have waited.
   */
  private async drain(): Promise<void> {
    while (this.syncWaiters || this.queue.length > 0 || (this.observationsDue && this.observations.length > 0)) {
      if (this.syncWaiters) {
        await this.pullFor(this.syncWaiters)
        continue
      }
      const replaceAt = this.queue.findIndex((u) => u.changes[0]?.k === 'replace')
      const batch = replaceAt === 0 ? this.queue.splice(0, 1) : replaceAt > 0 ? this.queue.splice(0, replaceAt) : this.queue.splice(0)
      if (replaceAt === -1 && this.observations.length > 0) {
        this.observationsDue = false
        clearTimeout(this.observationTimer)
        this.observationTimer = undefined
        batch.push(this.units.observations(this.observations.splice(0)))
      }
      if (batch.length === 0) break
      await this.write(batch)
    }
    if (this.observations.length > 0 && this.observationTimer === undefined && !this.observationsDue) {
      this.observationTimer = setTimeout(() => {
        this.observationTimer = undefined
        this.observationsDue = true
        this.kick()
      }, OBSERVATION_WAIT_MS).unref()
    }
  }

  private async write(batch: Unit[]): Promise<void> {
    const writes = this.units.toWrite(batch)
    let outcome
    try {
      outcome = await this.engine.write(writes, this.appliedSeq)
    } catch (error) {
      // Observations alone promised nothing and nothing was made on top of them: they are dropped, and the units
      // queued meanwhile are written next. A failed unit fails what was made on top of it.
      if (batch.some((unit) => unit.ticket > 0)) this.failAll(batch, error)
      return
    }
    if (outcome.remote) this.tell(this.applyRemote(outcome.remote), 'remote')
    const applied: Applied[] = []
    const written: Unit[] = []
    const conflicts: Array<[Unit, string]> = []
    for (const [i, unit] of batch.entries()) {
      const result = outcome.results[i]
      if (!result?.ok) {
        conflicts.push([unit, result?.conflict ?? 'no answer for it'])
        continue
      }
      written.push(unit)
      let seq = result.seq
      for (const change of unit.changes) {
        applied.push({ seq, change, before: this.durable.recordBefore(change) })
        this.durable.apply(change, seq)
        this.appliedSeq = seq++
      }
      this.units.written(unit)
    }
    for (const [unit, why] of conflicts) this.refuse(unit, new ConflictError(why))
    this.tell(applied, 'local')
    for (const unit of written) unit.resolve()
    if (this.engine.applied) await this.engine.applied()
  }

  /** Changes another instance committed, applied in seq order; those the replica holds already are skipped. */
  private applyRemote(units: readonly RemoteUnit[]): Applied[] {
    const applied: Applied[] = []
    for (const unit of units) {
      let seq = unit.seq
      for (const change of unit.changes) {
        if (seq > this.appliedSeq) {
          applied.push({ seq, change, before: this.durable.recordBefore(change) })
          this.durable.apply(change, seq)
          this.appliedSeq = seq
        }
        seq++
      }
    }
    return applied
  }

  private async pullFor(waiters: NonNullable<Store['syncWaiters']>): Promise<void> {
    this.syncWaiters = undefined
    try {
      const units = await this.engine.pull!(this.appliedSeq)
      this.tell(this.applyRemote(units), 'remote')
      waiters.resolve()
      // Others' changes count toward compaction too: the instance that compacts may write nothing itself.
      if (units.length > 0 && this.engine.applied) await this.engine.applied()
    } catch (error) {
      waiters.reject(error instanceof SandboxError ? error : new SandboxError('storageUnavailable', `cannot reach ${this.engine.location} (${messageOf(error)})`))
    }
  }

  /** A unit not written, and every queued unit made on top of it. */
  private refuse(unit: Unit, error: ConflictError): void {
    const refused = [unit, ...this.units.refused(unit)]
    this.queue = this.queue.filter((u) => !refused.includes(u))
    for (const u of refused) u.reject(error)
  }

  /**
   * A failed write fails every unit not yet durable, queued ones included: they were made on top of what failed.
   * Nothing of it was shown; the next write tries the engine again.
   */
  private failAll(batch: Unit[], error: unknown): void {
    const rest = this.queue.splice(0)
    this.units.clear()
    const failure =
      error instanceof SandboxError ? error : new SandboxError('storageUnavailable', `could not save to ${this.engine.location} (${messageOf(error)}); nothing was stored`)
    for (const unit of [...batch, ...rest]) {
      unit.state = 'done'
      unit.reject(failure)
    }
  }

  // ── shutting down ─────────────────────────────────────────────────────

  /** Writes the observations made so far now, and waits until they are durable (or failed). */
  async flushObservations(): Promise<void> {
    if (this.observations.length > 0) {
      this.observationsDue = true
      this.kick()
    }
    while (this.writing || this.scheduled) await (this.writing ?? nextTurn())
  }

  /** Waits for pending writes and the engine's background work: afterwards every change made so far is settled. */
  async flush(): Promise<void> {
    if (this.observations.length > 0) {
      this.observationsDue = true
      this.kick()
    }
    for (;;) {
      while (this.writing || this.scheduled || this.queue.length > 0) await (this.writing ?? nextTurn())
      await this.engine.flush()
      if (!this.writing && !this.scheduled && this.queue.length === 0) return
    }
  }

  /** Flushes, lets the engine make the stored data whole for the next start (the data file written), and lets go. */
  async close(): Promise<void> {
    if (this.closed) return
    await this.flush()
    this.stop()
    await this.engine.close()
  }

  /**
   * Lets go of the stored data without writing it: for a start that failed once it was open. Every change
   * acknowledged so far is durable already; the data file's lock is released, so the next start is not told the
   * file is in use.
   */
  async release(): Promise<void> {
    if (this.closed) return
    await this.flush().catch(() => {})
    this.stop()
    await this.engine.release().catch(() => {})
  }

  private stop(): void {
    this.closed = true
    clearTimeout(this.observationTimer)
    this.stopRemote?.()
    this.syncWaiters?.reject(new SandboxError('storageUnavailable', 'the sandbox is shutting down'))
    this.syncWaiters = undefined
  }

  /** A list beside the state shared by the instances (see SharedEntries); undefined when nothing else shares the engine. */
  sharedEntries(channel: string, keep: number): SharedEntries | undefined {
    return this.engine.entries?.(channel, keep)
  }

  /** Claims `name` among the instances sharing the engine (see Claim); undefined when nothing else shares it. */
  claim(name: string): Claim | undefined {
    return this.engine.claim?.(name)
  }

  /** Which store is in use, and how many instances share it; 503 storage_unavailable when it cannot be asked. */
  async describe(): Promise<StoreDescription> {
    if (!this.engine.describe) return { engine: 'file', location: this.engine.location, instances: 1, leading: true }
    try {
      return await this.engine.describe()
    } catch (error) {
      throw new SandboxError('storageUnavailable', `cannot reach ${this.engine.location} (${messageOf(error)})`)
    }
  }

  /** The sandbox's URL, once it listens (the data file's lock records it, so a second start can name it). */
  announce(url: string): void {
    this.engine.announce?.(url)
  }
}

function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve))
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}
