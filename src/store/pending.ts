import type { Delivery, Merchant, Payment } from '../domain/types.js'
import { type Change, State, type StateReader } from './state.js'

interface Entry<T> {
  v: T
  seq: number
}

/**
 * The writers' view: the durable state with the changes that are written but not yet durable laid over it.
 * Writers consult it where a pending change must count (a fresh id must not collide with one being written; a
 * record a pending reset removed must not be written back). Readers never see it: they read the durable state.
 */
export class PendingView implements StateReader {
  private readonly merchants = new Map<string, Entry<Merchant>>()
  private readonly payments = new Map<string, Entry<Payment>>()
  private readonly deliveries = new Map<string, Entry<Delivery>>()
  private readonly refNumbers = new Map<string, number>()
  /**
   * A pending reset or replace, and what lies under the entries above until it is durable: where merchants are
   * looked up, and where payments and deliveries are (none after a reset).
   */
  private base: { seq: number; merchants: StateReader; activity: StateReader | undefined } | undefined

  constructor(private readonly durable: State) {}

  getMerchant(key: string): Merchant | undefined {
    return this.merchants.get(key)?.v ?? (this.base?.merchants ?? this.durable).getMerchant(key)
  }

  getPayment(trackId: string): Payment | undefined {
    return this.payments.get(trackId)?.v ?? this.activity()?.getPayment(trackId)
  }

  getDelivery(id: string): Delivery | undefined {
    return this.deliveries.get(id)?.v ?? this.activity()?.getDelivery(id)
  }

  hasRefNumber(refNumber: string): boolean {
    return this.refNumbers.has(refNumber) || (this.activity()?.hasRefNumber(refNumber) ?? false)
  }

  private activity(): StateReader | undefined {
    return this.base ? this.base.activity : this.durable
  }

  /** A change was queued with this sequence number. */
  noted(seq: number, change: Change): void {
    switch (change.k) {
      case 'merchant':
        this.merchants.set(change.v.key, { v: change.v, seq })
        return
      case 'payment':
        this.payments.set(change.v.trackId, { v: change.v, seq })
        if (change.v.refNumber !== undefined) this.refNumbers.set(change.v.refNumber, seq)
        return
      case 'delivery':
        this.deliveries.set(change.v.id, { v: change.v, seq })
        return
      case 'reset':
        this.payments.clear()
        this.deliveries.clear()
        this.refNumbers.clear()
        this.base = { seq, merchants: this.base?.merchants ?? this.durable, activity: undefined }
        return
      case 'replace': {
        this.clear()
        const image = State.of(change.v)
        this.base = { seq, merchants: image, activity: image }
      }
    }
  }

  /** The change with this sequence number is durable: the durable state now answers for it. */
  settled(seq: number, change: Change): void {
    switch (change.k) {
      case 'merchant':
        dropIfSettled(this.merchants, change.v.key, seq)
        return
      case 'payment':
        dropIfSettled(this.payments, change.v.trackId, seq)
        if (change.v.refNumber !== undefined && (this.refNumbers.get(change.v.refNumber) ?? Infinity) <= seq) {
          this.refNumbers.delete(change.v.refNumber)
        }
        return
      case 'delivery':
        dropIfSettled(this.deliveries, change.v.id, seq)
        return
      case 'reset':
      case 'replace':
        if (this.base && this.base.seq <= seq) this.base = undefined
    }
  }

  /** Every pending change failed: only the durable state is left. */
  clear(): void {
    this.merchants.clear()
    this.payments.clear()
    this.deliveries.clear()
    this.refNumbers.clear()
    this.base = undefined
  }
}

function dropIfSettled<T>(map: Map<string, Entry<T>>, key: string, seq: number): void {
  const entry = map.get(key)
  if (entry && entry.seq <= seq) map.delete(key)
}
