import type { SandboxClock, Timer } from '../clock/sandbox-clock.js'
import { SandboxError } from '../domain/outcomes.js'
import { applyOutcome, expiresAt } from '../domain/payment.js'
import type { Payment } from '../domain/types.js'
import type { PaymentListener, SandboxService } from './sandbox.js'

/**
 * Expires pending payments older than the time to live, on the sandbox clock: advancing the clock past a
 * payment's deadline expires it at once, and a payment past it at start expires right away. Only a pending
 * payment expires; one the customer has paid (unfinalized) waits for its confirmations. It watches while this
 * instance leads (start … stop): every pending payment, whoever created it.
 */
export class ExpiryWatch implements PaymentListener {
  private readonly timers = new Map<string, Timer>()
  private running = false

  constructor(
    private readonly service: SandboxService,
    private readonly clock: SandboxClock,
    readonly ttlMs: number,
  ) {}

  /** Watches every pending payment in the store, and each new one from now on. */
  start(): number {
    this.running = true
    return this.watchAll()
  }

  private watchAll(): number {
    const pending = this.service.listPayments({ status: 'pending' })
    for (const payment of pending) this.watch(payment)
    return pending.length
  }

  paymentCreated(payment: Payment): void {
    this.watch(payment)
  }

  paymentChanged(payment: Payment): void {
    if (payment.status === 'pending') return
    this.timers.get(payment.trackId)?.cancel()
    this.timers.delete(payment.trackId)
  }

  paymentsReplaced(): void {
    for (const timer of this.timers.values()) timer.cancel()
    this.timers.clear()
    if (this.running) this.watchAll()
  }

  /** Stops watching (the sandbox stops, or another instance leads now); the payments stay pending. */
  stop(): void {
    this.running = false
    for (const timer of this.timers.values()) timer.cancel()
    this.timers.clear()
  }

  /** When `payment` expires, in sandbox time (ms). */
  deadline(payment: Payment): number {
    return expiresAt(payment, this.ttlMs)
  }

  private watch(payment: Payment): void {
    if (!this.running || payment.status !== 'pending' || this.timers.has(payment.trackId)) return
    const deadline = this.deadline(payment)
    const trackId = payment.trackId
    this.timers.set(
      trackId,
      this.clock.at(Number.isFinite(deadline) ? deadline : this.clock.nowMs(), () => {
        this.timers.delete(trackId)
        return this.expire(trackId)
      }),
    )
  }

  private async expire(trackId: string): Promise<void> {
    try {
      await this.service.change(trackId, (p) =>
        p.status === 'pending'
          ? applyOutcome(p, { outcome: 'expired', source: 'clock', now: this.service.changeTime(p), newRefNumber: () => this.service.newRefNumber() })
          : undefined,
      )
    } catch (error) {
      // Reset or replaced meanwhile.
      if (error instanceof SandboxError && error.kind === 'notFound') return
      throw error
    }
  }
}
