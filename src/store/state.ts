import { hash } from 'node:crypto'
import type { FaultRule } from '../domain/api-fault.js'
import { FAULT_HITS_KEEP, type FaultChange, type FaultHit } from '../domain/api-fault-hit.js'
import type { ClockRecord, Delivery, Merchant, Payment, PaymentStatus, VerifyEntry, VerifyJournal } from '../domain/types.js'
import { VERIFY_JOURNAL_KEEP } from '../domain/verify-journal.js'
import type { TelegramChange, TelegramImage } from '../domain/telegram-records.js'
import { TelegramState } from './telegram-state.js'

export interface StateImage {
  merchants: Merchant[]
  payments: Payment[]
  deliveries: Delivery[]
}

export { VERIFY_JOURNAL_KEEP }

/** The sandbox's own records beside the lists: the clock, the verify journals, the API fault rules and the faults played. */
export interface SandboxRecords {
  clock?: ClockRecord
  verifies?: VerifyJournal[]
  faults?: FaultRule[]
  faultHits?: FaultHit[]
}

/** One change, as the journal records it (without its sequence number). */
export type Change =
  | { k: 'merchant'; v: Merchant }
  | { k: 'payment'; v: Payment }
  | { k: 'delivery'; v: Delivery }
  /** The sandbox clock moved. */
  | { k: 'clock'; v: ClockRecord }
  /** A verify of an existing payment, observed (journaled without holding the answer). */
  | { k: 'verify'; v: VerifyEntry }
  /** Payments and deliveries cleared; merchants kept. */
  | { k: 'reset' }
  /** Merchants, payments and deliveries replaced (import); the Bot API emulator's records stay. Written as a snapshot, never as a journal line. */
  | { k: 'replace'; v: StateImage }
  /** A record of the Bot API emulator. */
  | { k: 'tg'; v: TelegramChange }
  /** The API fault rules changed, or a fault was played (observed, as a verify is). */
  | { k: 'fault'; v: FaultChange }

/** Looks records up; both the durable state and the writers' view (durable plus pending) answer it. */
export interface StateReader {
  getMerchant(key: string): Merchant | undefined
  getPayment(trackId: string): Payment | undefined
  getDelivery(id: string): Delivery | undefined
  hasRefNumber(refNumber: string): boolean
}

/**
 * The sandbox's records in memory, with their indexes. Records are never mutated in place: a change replaces
 * the record, so an image taken for a snapshot stays consistent while the state moves on.
 */
export class State implements StateReader {
  private readonly merchants = new Map<string, Merchant>()
  /** Merchants by SHA-256 of their key: a key sent by a client is never compared character by character. */
  private readonly merchantsByDigest = new Map<string, Merchant>()
  private readonly payments = new Map<string, Payment>()
  private readonly deliveries = new Map<string, Delivery>()
  private readonly deliveriesByTrackId = new Map<string, string[]>()
  private readonly refNumbers = new Set<string>()
  private readonly verifies = new Map<string, VerifyJournal>()
  private readonly faults = new Map<string, FaultRule>()
  /** The faults played, oldest first; trimmed to the latest FAULT_HITS_KEEP now and then. */
  private hits: FaultHit[] = []
  private clockRecord: ClockRecord | undefined
  /** The Bot API emulator's bots, chats, messages, updates and files. */
  readonly telegram = new TelegramState()

  static of(image: StateImage): State {
    const state = new State()
    state.load(image)
    return state
  }

  /** Looks a merchant up by API key without comparing the key itself to stored keys. */
  getMerchant(key: string): Merchant | undefined {
    // Only digests are compared: how long a comparison takes says nothing about the stored keys.
    return this.merchantsByDigest.get(keyDigest(key))
  }

  hasMerchantKey(key: string): boolean {
    return this.merchants.has(key)
  }

  getPayment(trackId: string): Payment | undefined {
    return this.payments.get(trackId)
  }

  getDelivery(id: string): Delivery | undefined {
    return this.deliveries.get(id)
  }

  hasRefNumber(refNumber: string): boolean {
    return this.refNumbers.has(refNumber)
  }

  listMerchants(): Merchant[] {
    return [...this.merchants.values()]
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

  listDeliveries(trackId?: string): Delivery[] {
    if (trackId === undefined) return [...this.deliveries.values()]
    const ids = this.deliveriesByTrackId.get(trackId) ?? []
    return ids.map((id) => this.deliveries.get(id)).filter((d): d is Delivery => d !== undefined)
  }

  /** A payment's verify journal: its latest entries and how many there were. */
  verifiesOf(trackId: string): VerifyJournal | undefined {
    return this.verifies.get(trackId)
  }

  /** The API fault rules, oldest first. */
  faultRules(): FaultRule[] {
    return [...this.faults.values()]
  }

  /** The latest faults played (FAULT_HITS_KEEP), oldest first. */
  faultHits(): FaultHit[] {
    return this.hits.slice(-FAULT_HITS_KEEP)
  }

  get clock(): ClockRecord | undefined {
    return this.clockRecord
  }

  counts(): { merchants: number; payments: number; deliveries: number } {
    return { merchants: this.merchants.size, payments: this.payments.size, deliveries: this.deliveries.size }
  }

  get size(): number {
    return this.merchants.size + this.payments.size + this.deliveries.size + this.telegram.size
  }

  /** Merchants, payments and deliveries: what export and import carry. */
  image(): StateImage {
    return { merchants: this.listMerchants(), payments: [...this.payments.values()], deliveries: this.listDeliveries() }
  }

  /** Everything, for a snapshot. */
  fullImage(): StateImage & TelegramImage & SandboxRecords {
    return { ...this.image(), ...this.telegram.image(), ...this.records() }
  }

  /** The clock, the verify journals, the fault rules and the faults played. */
  records(): SandboxRecords {
    return {
      ...(this.clockRecord ? { clock: this.clockRecord } : {}),
      verifies: [...this.verifies.values()],
      faults: this.faultRules(),
      faultHits: this.faultHits(),
    }
  }

  /** Puts back the clock, verify journals, fault rules and faults played of a snapshot (journals of payments it lacks are left out). */
  loadRecords(records: SandboxRecords): void {
    if (records.clock) this.clockRecord = records.clock
    for (const journal of records.verifies ?? []) {
      if (this.payments.has(journal.trackId)) this.verifies.set(journal.trackId, journal)
    }
    for (const rule of records.faults ?? []) this.faults.set(rule.id, rule)
    this.hits = (records.faultHits ?? []).slice(-FAULT_HITS_KEEP)
  }

  apply(change: Change): void {
    switch (change.k) {
      case 'merchant':
        return this.setMerchant(change.v)
      case 'payment':
        return this.setPayment(change.v)
      case 'delivery':
        return this.setDelivery(change.v)
      case 'reset':
        this.telegram.clearActivity()
        return this.clearActivity()
      case 'tg':
        return this.telegram.apply(change.v)
      case 'clock':
        this.clockRecord = change.v
        return
      case 'verify':
        return this.addVerify(change.v)
      case 'fault':
        return this.applyFault(change.v)
      case 'replace':
        this.merchants.clear()
        this.merchantsByDigest.clear()
        this.clearActivity()
        return this.load(change.v)
    }
  }

  private load(image: StateImage): void {
    for (const m of image.merchants) this.setMerchant(m)
    for (const p of image.payments) this.setPayment(p)
    for (const d of image.deliveries) this.setDelivery(d)
  }

  private clearActivity(): void {
    this.faults.clear()
    this.hits = []
    this.verifies.clear()
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
    const before = this.payments.get(p.trackId)
    if (before?.refNumber !== undefined && before.refNumber !== p.refNumber) this.refNumbers.delete(before.refNumber)
    this.payments.set(p.trackId, p)
    if (p.refNumber) this.refNumbers.add(p.refNumber)
  }

  /** A new journal each time (records are never changed in place), keeping the latest entries. */
  private addVerify(entry: VerifyEntry): void {
    if (!this.payments.has(entry.trackId)) return
    const before = this.verifies.get(entry.trackId)
    const kept = before ? before.entries.slice(before.entries.length >= VERIFY_JOURNAL_KEEP ? 1 - VERIFY_JOURNAL_KEEP : 0) : []
    kept.push(entry)
    this.verifies.set(entry.trackId, { trackId: entry.trackId, count: (before?.count ?? 0) + 1, entries: kept })
  }

  /** Counts of a rule removed meanwhile (a reset, a clear) change nothing: the rule is not made again. */
  private applyFault(change: FaultChange): void {
    switch (change.t) {
      case 'rule':
        this.faults.set(change.v.id, change.v)
        return
      case 'count': {
        const rule = this.faults.get(change.id)
        if (rule) this.faults.set(change.id, { ...rule, matched: change.matched, played: change.played })
        return
      }
      case 'off':
        this.faults.delete(change.id)
        return
      case 'clear':
        this.faults.clear()
        return
      case 'hit':
        this.hits.push(change.v)
        // Cut now and then rather than on every hit: readers and snapshots take the latest FAULT_HITS_KEEP.
        if (this.hits.length >= 2 * FAULT_HITS_KEEP) this.hits = this.hits.slice(-FAULT_HITS_KEEP)
    }
  }

  private setDelivery(d: Delivery): void {
    if (!this.deliveries.has(d.id)) {
      const ids = this.deliveriesByTrackId.get(d.trackId)
      if (ids) ids.push(d.id)
      else this.deliveriesByTrackId.set(d.trackId, [d.id])
    }
    this.deliveries.set(d.id, d)
  }
}

export function keyDigest(key: string): string {
  // The one-shot hash: a third of a Hash object's cost, on every spec request.
  return hash('sha256', key, 'base64')
}
