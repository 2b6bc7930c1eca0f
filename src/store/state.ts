import { hash } from 'node:crypto'
import type { FaultRule } from '../domain/api-fault.js'
import { FAULT_HITS_KEEP, type FaultChange, type FaultHit } from '../domain/api-fault-hit.js'
import type { ClockRecord, Delivery, Merchant, Payment, PaymentStatus, VerifyEntry, VerifyJournal } from '../domain/types.js'
import type { Change, SandboxRecords, StateImage } from './changes.js'
import { VERIFY_JOURNAL_KEEP } from '../domain/verify-journal.js'
import type { TelegramChange, TelegramImage } from '../domain/telegram-records.js'
import { type RecordKey, type RecordKind, keyOf, REPLACE_KINDS, RESET_KINDS } from './keys.js'
import { TelegramState } from './telegram-state.js'

export type { Change, SandboxRecords, StateImage } from './changes.js'

/** Looks records up; both the durable state and the writers' view (durable plus pending) answer it. */
export interface StateReader {
  getMerchant(key: string): Merchant | undefined
  getPayment(trackId: string): Payment | undefined
  getDelivery(id: string): Delivery | undefined
  hasRefNumber(refNumber: string): boolean
}

/** A change as the replica applied it, with the record it replaced. */
export interface Applied {
  seq: number
  change: Change
  /** The record the change replaced (a merchant, payment, delivery, bot, chat or message); undefined when new. */
  before?: unknown
}

/**
 * The sandbox's records in memory, with their indexes. Records are never mutated in place: a change replaces
 * the record, so an image taken for a snapshot stays consistent while the state moves on.
 *
 * Each record has a version: the seq of the change that last wrote it (0: no such record). Records loaded from
 * an image without versions of their own have the image's seq; only records written since carry an entry.
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
  /** Versions of records written since they were loaded, by kind and id. */
  private readonly versions = new Map<RecordKind, Map<string, number>>()
  /** The version of a record of this kind that has no entry: the seq of the image it came with. */
  private readonly loadedAt = new Map<RecordKind, number>()
  /** Strings payments repeat (merchant, URLs, asset), kept once: see sharePaymentStrings. */
  private readonly strings = new Map<string, string>()

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

  /** The clock, the verify journals, the API fault rules and the faults played. */
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

  /** Loads a stored image whole (at open): records, the emulator's, the clock and verify journals, at `seq`. */
  loadImage(image: StateImage & Partial<TelegramImage> & SandboxRecords, seq: number, versions?: ReadonlyMap<string, number>): void {
    this.apply({ k: 'replace', v: image }, seq)
    this.telegram.load(image)
    this.loadRecords(image)
    for (const kind of KINDS) this.loadedAt.set(kind, seq)
    for (const [key, version] of versions ?? []) {
      const colon = key.indexOf(':')
      const kind = (colon === -1 ? key : key.slice(0, colon)) as RecordKind
      this.versionsOf(kind).set(colon === -1 ? '' : key.slice(colon + 1), version)
    }
  }

  /** The version of a record: the seq of the change that last wrote it; 0 when there is no such record. */
  versionOf(key: RecordKey): number {
    if (!this.has(key)) return 0
    return this.versions.get(key.kind)?.get(key.id) ?? this.loadedAt.get(key.kind) ?? 0
  }

  /** The record `change` replaces, if there is one (for the change feed). */
  recordBefore(change: Change): unknown {
    switch (change.k) {
      case 'merchant':
        return this.merchants.get(change.v.key)
      case 'payment':
        return this.payments.get(change.v.trackId)
      case 'delivery':
        return this.deliveries.get(change.v.id)
      case 'tg': {
        const c = change.v
        if (c.t === 'bot') return this.telegram.getBot(c.v.id)
        if (c.t === 'chat') return this.telegram.getChat(c.v.botId, c.v.chatId)
        if (c.t === 'message') return this.telegram.getMessage(c.v.botId, c.v.chatId, c.v.messageId)
        return undefined
      }
      default:
        return undefined
    }
  }

  /** Applies a change; `seq` is its place in the log, the version of the record it writes. */
  apply(change: Change, seq = 0): void {
    switch (change.k) {
      case 'merchant':
        this.setMerchant(change.v)
        break
      case 'payment':
        this.setPayment(change.v, true)
        break
      case 'delivery':
        this.setDelivery(change.v)
        break
      case 'reset':
        this.telegram.clearActivity()
        this.clearActivity()
        for (const kind of RESET_KINDS) this.versions.delete(kind)
        return
      case 'tg':
        this.applyTelegram(change.v)
        break
      case 'clock':
        this.clockRecord = change.v
        break
      case 'verify':
        return this.addVerify(change.v)
      case 'fault':
        return this.applyFault(change.v)
      case 'replace':
        this.merchants.clear()
        this.merchantsByDigest.clear()
        this.clearActivity()
        this.load(change.v)
        for (const kind of REPLACE_KINDS) {
          this.versions.delete(kind)
          this.loadedAt.set(kind, seq)
        }
        return
    }
    const key = keyOf(change)
    if (!key) return
    if (change.k === 'tg' && change.v.t === 'unfile') this.versions.get(key.kind)?.delete(key.id)
    else this.versionsOf(key.kind).set(key.id, seq)
  }

  private applyTelegram(change: TelegramChange): void {
    if (change.t === 'confirm' || change.t === 'drop') {
      // Updates that go no longer have a version.
      const versions = this.versions.get('tg-update')
      if (versions) {
        for (const u of this.telegram.pendingUpdates(change.botId)) {
          if (change.t === 'drop' || u.update.update_id < change.below) versions.delete(`${u.botId}:${u.update.update_id}`)
        }
      }
    }
    this.telegram.apply(change)
  }

  private versionsOf(kind: RecordKind): Map<string, number> {
    let map = this.versions.get(kind)
    if (!map) this.versions.set(kind, (map = new Map()))
    return map
  }

  private has(key: RecordKey): boolean {
    switch (key.kind) {
      case 'merchant':
        return this.merchants.has(key.id)
      case 'payment':
        return this.payments.has(key.id)
      case 'delivery':
        return this.deliveries.has(key.id)
      case 'clock':
        return this.clockRecord !== undefined
      case 'tg-file':
        return this.telegram.getFile(key.id) !== undefined
      case 'tg-bot':
        return this.telegram.getBot(Number(key.id)) !== undefined
      case 'tg-chat': {
        const [bot, chat] = key.id.split(':').map(Number)
        return this.telegram.getChat(bot!, chat!) !== undefined
      }
      case 'tg-msg': {
        const [bot, chat, message] = key.id.split(':').map(Number)
        return this.telegram.getMessage(bot!, chat!, message!) !== undefined
      }
      case 'tg-update': {
        const [bot, id] = key.id.split(':').map(Number)
        return this.telegram.pendingUpdates(bot!).some((u) => u.update.update_id === id)
      }
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

  /** `share`: a payment written one at a time (see sharePaymentStrings); an image's come shared by its reader, or not at all. */
  private setPayment(p: Payment, share = false): void {
    const before = this.payments.get(p.trackId)
    // A new version of a payment is made from the one before, with its strings.
    if (share && before === undefined) sharePaymentStrings(p, this.strings)
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

const SHARED_FIELDS = ['merchant', 'callbackUrl', 'returnUrl', 'asset'] as const
/** Past this many strings the table starts again: values that do not repeat (a URL per order) must not pile up. */
const SHARED_STRINGS_MAX = 1024

/**
 * Makes the strings a payment repeats from other payments one string in memory. Each payment made over the API or
 * replayed from a journal comes with copies of its own (its merchant's key and callback URL are parsed from each
 * request); a record only refers to the one kept here. Strings have no identity, so the record reads exactly as
 * before. Statuses and timestamps are shared where they are made (literals, one text per millisecond). Payments of
 * a data file are shared by its reader as it parses them (see snapshot.ts): copies dropped only here, after the
 * whole file was read, would outlive the read as garbage in the old generation, and looking them up again costs
 * the start 10 ms per 100k payments.
 */
function sharePaymentStrings(p: Payment, strings: Map<string, string>): void {
  const fields = p as unknown as Record<string, unknown>
  for (const field of SHARED_FIELDS) {
    const value = fields[field]
    if (typeof value !== 'string') continue
    const seen = strings.get(value)
    if (seen !== undefined) fields[field] = seen
    else {
      if (strings.size >= SHARED_STRINGS_MAX) strings.clear()
      strings.set(value, value)
    }
  }
}

const KINDS: readonly RecordKind[] = ['merchant', 'payment', 'delivery', 'clock', 'tg-bot', 'tg-chat', 'tg-msg', 'tg-update', 'tg-file']

export function keyDigest(key: string): string {
  // The one-shot hash: a third of a Hash object's cost, on every spec request.
  return hash('sha256', key, 'base64')
}
