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

/**
 * Gathers durable changes for the event stream: payments from the service's listeners (called once a change is
 * on disk), deliveries from the callback dispatcher (likewise), and merchant changes, resets and imports from
 * their answers (a change is answered only once it is on disk). Nothing here is ever seen before it is durable.
 * It does nothing while no one follows it: answered requests are looked at only while it has listeners.
 */
export class ChangeFeed implements PaymentListener {
  private readonly listeners = new Set<(change: Change) => void>()
  private readonly answers: { subscribe(listener: (entry: RequestEntry) => void): () => void } | undefined
  private stopAnswers: (() => void) | undefined

  /** `answers`: the requests answered (the request log), for merchant changes, resets and imports. */
  constructor(answers?: { subscribe(listener: (entry: RequestEntry) => void): () => void }) {
    this.answers = answers
  }

  paymentCreated(payment: Payment): void {
    if (this.listeners.size > 0) this.emit({ kind: 'payment', created: true, payment })
  }

  paymentChanged(payment: Payment): void {
    if (this.listeners.size > 0) this.emit({ kind: 'payment', created: false, payment })
  }

  deliveryChanged(delivery: Delivery): void {
    if (this.listeners.size > 0) this.emit({ kind: 'delivery', delivery })
  }

  /** A request was answered: a successful merchant change, reset or import is announced. */
  requestAnswered(entry: RequestEntry): void {
    if (entry.method !== 'POST' || entry.status < 200 || entry.status >= 300) return
    if (/^\/_sandbox\/(?:reset|import)\/?$/.test(entry.path)) this.emit({ kind: 'reset' })
    else if (/^\/_sandbox\/merchants(?:\/|$)/.test(entry.path)) this.emit({ kind: 'merchant' })
  }

  subscribe(listener: (change: Change) => void): () => void {
    this.listeners.add(listener)
    this.stopAnswers ??= this.answers?.subscribe((entry) => this.requestAnswered(entry))
    return () => {
      this.listeners.delete(listener)
      if (this.listeners.size === 0) {
        this.stopAnswers?.()
        this.stopAnswers = undefined
      }
    }
  }

  /** Stops following the answered requests. */
  close(): void {
    this.listeners.clear()
    this.stopAnswers?.()
    this.stopAnswers = undefined
  }

  private emit(change: Change): void {
    for (const listener of this.listeners) listener(change)
  }
}
