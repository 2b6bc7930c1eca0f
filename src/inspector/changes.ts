import type { Delivery, Payment } from '../domain/types.js'
import type { PaymentListener } from '../service/sandbox.js'
import type { RequestEntry } from './request-entry.js'

/** A durable change the inspector's pages follow. */
export type Change =
  | { kind: 'payment'; created: boolean; payment: Payment }
  | { kind: 'delivery'; delivery: Delivery }
  | { kind: 'merchant' }
  /** Everything may have changed: a reset or an import. */
  | { kind: 'reset' }
  /** An API fault rule was added or removed, or faults were played. */
  | { kind: 'fault' }

/**
 * Gathers durable changes for the event stream: payments from the service's listeners (called once a change is
 * on disk), deliveries from the callback dispatcher (likewise), and merchant changes, resets and imports from
 * their answers (a change is answered only once it is on disk). Nothing here is ever seen before it is durable.
 */
export class ChangeFeed implements PaymentListener {
  private readonly listeners = new Set<(change: Change) => void>()

  paymentCreated(payment: Payment): void {
    this.emit({ kind: 'payment', created: true, payment })
  }

  paymentChanged(payment: Payment): void {
    this.emit({ kind: 'payment', created: false, payment })
  }

  deliveryChanged(delivery: Delivery): void {
    this.emit({ kind: 'delivery', delivery })
  }

  /** Faults played on requests were written (their rules' counts, the payments' lists of faults). */
  faultsPlayed(): void {
    this.emit({ kind: 'fault' })
  }

  /** A request was answered: a successful merchant change, reset, import or fault rule change is announced. */
  requestAnswered(entry: RequestEntry): void {
    if ((entry.method !== 'POST' && entry.method !== 'DELETE') || entry.status < 200 || entry.status >= 300) return
    if (/^\/_sandbox\/faults(?:\/|$)/.test(entry.path)) this.emit({ kind: 'fault' })
    else if (entry.method !== 'POST') return
    else if (/^\/_sandbox\/(?:reset|import)\/?$/.test(entry.path)) this.emit({ kind: 'reset' })
    else if (/^\/_sandbox\/merchants(?:\/|$)/.test(entry.path)) this.emit({ kind: 'merchant' })
  }

  subscribe(listener: (change: Change) => void): () => void {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }

  private emit(change: Change): void {
    for (const listener of this.listeners) listener(change)
  }
}
