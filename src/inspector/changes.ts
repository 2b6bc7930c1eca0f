import type { Delivery, Payment } from '../domain/types.js'
import type { PaymentListener } from '../service/sandbox.js'

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
 * Gathers durable changes for the event stream, all from the store's change feed (whichever instance made them):
 * payments, merchants, resets and imports through the service's listeners, deliveries through the callback
 * dispatcher. Nothing here is ever seen before it is durable, and nothing is built while no one follows it.
 */
export class ChangeFeed implements PaymentListener {
  private readonly listeners = new Set<(change: Change) => void>()

  paymentCreated(payment: Payment): void {
    if (this.listeners.size > 0) this.emit({ kind: 'payment', created: true, payment })
  }

  paymentChanged(payment: Payment): void {
    if (this.listeners.size > 0) this.emit({ kind: 'payment', created: false, payment })
  }

  deliveryChanged(delivery: Delivery): void {
    if (this.listeners.size > 0) this.emit({ kind: 'delivery', delivery })
  }

  merchantChanged(): void {
    this.emit({ kind: 'merchant' })
  }

  paymentsReplaced(): void {
    this.emit({ kind: 'reset' })
  }

  /** A change of the API fault rules, or faults played, is durable. */
  faultsChanged(): void {
    this.emit({ kind: 'fault' })
  }

  subscribe(listener: (change: Change) => void): () => void {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }

  /** Lets go of every follower. */
  close(): void {
    this.listeners.clear()
  }

  private emit(change: Change): void {
    for (const listener of this.listeners) listener(change)
  }
}
