import { assetRule, isAssetCode } from '../domain/assets.js'
import { isMerchantKey, isMerchantName, merchantKeyRule, merchantNameRule } from '../domain/merchant.js'
import { SandboxError, SpecMessage } from '../domain/outcomes.js'
import { type CallbackMode, heldForever } from '../domain/fault.js'
import { applyOutcome, isFinal, type Outcome } from '../domain/payment.js'
import { newMerchantKey, newRefNumber, newTrackId } from '../domain/ids.js'
import { checkCreate, verifyOutcome, type VerifyBody } from '../domain/validate.js'
import { verifyEntry } from '../domain/verify-journal.js'
import type { ChangeSource, Delivery, Merchant, Payment, PaymentStatus, VerifyJournal } from '../domain/types.js'
import type { Applied, Change, Store } from '../store/store.js'
import { KeyedLock } from './locks.js'
import { notBefore } from '../clock/clock.js'
import type { SpecFailure } from '../domain/outcomes.js'

export type CreateBody = { result: 100; trackId: string; message: typeof SpecMessage.success } | SpecFailure

/** A change of a payment, as listeners are told of it. */
export interface PaymentChange {
  /** The payment before the change (its status may be the same: a confirmation was added). */
  previous: Payment
  /** The callback mode asked for with the change (`simulate --callback`). */
  callback?: CallbackMode
}

/** Told of every durable change of the sandbox's payments and merchants, made through this instance or another. */
export interface PaymentListener {
  /**
   * Called while a payment's change is being made, in the same turn: the changes returned are written in the same
   * unit, durable together with the payment's change or failed with it (the callback dispatcher records the
   * notification here). It writes nothing itself.
   */
  recordWith?(payment: Payment, change: PaymentChange): Change[] | undefined
  /** Called once a change of a payment is durable (the checkout page's event stream; expiry stops counting). */
  paymentChanged?(payment: Payment, change: { previous: Payment }): void
  /** Called once a new payment is durable (expiry starts counting; the inspector's event stream). */
  paymentCreated?(payment: Payment): void
  /** Called once a reset or an import replaced the payments. */
  paymentsReplaced?(): void
  /**
   * Called as a reset or an import is queued, before it is durable: what a listener keeps beside the payments (the
   * API fault rules) goes with them, and nothing decided after this uses it.
   */
  activityCleared?(): void
  /** Called once a merchant was added, enabled or disabled. */
  merchantChanged?(merchant: Merchant): void
}

export interface SimulateRequest {
  outcome: Outcome
  amount?: number
  asset?: string
  source: ChangeSource
  /** What to do with the notification of this change (default: the sandbox's callback mode). */
  callback?: CallbackMode
}

export interface ServiceOptions {
  /** Confirmations a payment paid with `asset` needs once unfinalized. */
  confirmationsFor?: (asset: string | undefined) => number
}

/**
 * The sandbox's operations: spec rules from `domain`, state from `store`, the clock injected.
 * Routes and the CLI never reach the store except through here.
 */
export class SandboxService {
  readonly store: Store
  private readonly now: () => Date
  private readonly listeners: PaymentListener[] = []
  private readonly locks = new KeyedLock()
  private readonly confirmationsFor: ((asset: string | undefined) => number) | undefined
  private stampMs = Number.NaN
  private stampText = ''

  constructor(store: Store, now: () => Date = () => new Date(), options: ServiceOptions = {}) {
    this.store = store
    this.now = now
    this.confirmationsFor = options.confirmationsFor
    store.onApplied((applied) => this.applied(applied))
  }

  /** Tells listeners of durable changes, in their order, whoever made them. */
  private applied(applied: readonly Applied[]): void {
    if (this.listeners.length === 0) return
    for (const { change, before } of applied) {
      switch (change.k) {
        case 'payment': {
          const previous = before as Payment | undefined
          for (const listener of this.listeners) {
            if (previous) listener.paymentChanged?.(change.v, { previous })
            else listener.paymentCreated?.(change.v)
          }
          break
        }
        case 'merchant':
          for (const listener of this.listeners) listener.merchantChanged?.(change.v)
          break
        case 'reset':
        case 'replace':
          for (const listener of this.listeners) listener.paymentsReplaced?.()
      }
    }
  }

  /** Adds a listener; the returned function removes it. */
  onPaymentChanged(listener: PaymentListener): () => void {
    this.listeners.push(listener)
    return () => {
      const at = this.listeners.indexOf(listener)
      if (at !== -1) this.listeners.splice(at, 1)
    }
  }

  private stamp(): string {
    // Requests that come within one millisecond share its text.
    const now = this.now()
    const ms = now.getTime()
    if (ms !== this.stampMs) {
      this.stampMs = ms
      this.stampText = now.toISOString()
    }
    return this.stampText
  }

  // ── spec API ──────────────────────────────────────────────────────────

  async create(body: Record<string, unknown>): Promise<CreateBody> {
    const check = checkCreate(body, (key) => this.store.getMerchant(key))
    if (!check.ok) return check.failure
    const fields = check.fields
    return this.store.retrying(async () => {
      const at = this.stamp()
      let trackId = newTrackId()
      while (this.store.latest.getPayment(trackId)) trackId = newTrackId()
      const payment: Payment = {
        trackId,
        ...fields,
        status: 'pending',
        createdAt: at,
        updatedAt: at,
        history: [{ status: 'pending', at, source: 'api' }],
      }
      await this.store.putPayment(payment)
      return { result: 100, trackId, message: SpecMessage.success }
    })
  }

  /**
   * The spec's verify. A verify of an existing payment is recorded in its verify journal, without holding the
   * answer (see Store.observeVerify); `operator` marks one the sandbox's operator made (see domain/operator.ts).
   */
  verify(body: Record<string, unknown>, options: { operator?: boolean } = {}): VerifyBody {
    let merchant: Merchant | undefined
    let payment: Payment | undefined
    let looked = false
    const answer = verifyOutcome(
      body,
      (key) => (merchant = this.store.getMerchant(key)),
      (trackId) => {
        looked = true
        return (payment = this.store.getPayment(trackId))
      },
    )
    if (!looked && typeof body.trackId === 'string' && body.trackId.length > 0) payment = this.store.getPayment(body.trackId)
    if (payment) this.store.observeVerify(verifyEntry({ payment, key: body.merchant, merchant, answer, at: this.stamp(), operator: options.operator === true }))
    return answer
  }

  verifiesOf(trackId: string): VerifyJournal {
    return this.store.verifiesOf(trackId) ?? { trackId, count: 0, entries: [] }
  }

  // ── customer simulation ───────────────────────────────────────────────

  /** Moves a payment as the customer would; one move of a payment at a time, each read from durable state. */
  simulate(trackId: string, request: SimulateRequest): Promise<Payment> {
    if (request.asset !== undefined && !isAssetCode(request.asset)) throw new SandboxError('invalidField', assetRule(request.asset))
    // Held back for the payment's next notification, a final one would never go.
    const heldProblem = request.callback && isFinal(request.outcome) ? heldForever(request.callback, request.outcome) : undefined
    if (heldProblem !== undefined) throw new SandboxError('invalidField', heldProblem)
    return this.change(
      trackId,
      (payment) =>
        applyOutcome(payment, {
          outcome: request.outcome,
          ...(request.amount !== undefined ? { paidAmount: request.amount } : {}),
          ...(request.asset !== undefined ? { asset: request.asset } : {}),
          source: request.source,
          now: notBefore(this.stamp(), payment.updatedAt),
          newRefNumber: () => this.newRefNumber(),
          ...(request.outcome === 'unfinalized' && this.confirmationsFor
            ? { confirmationsRequired: this.confirmationsFor(request.asset ?? payment.asset) }
            : {}),
        }),
      request.callback !== undefined ? { callback: request.callback } : {},
    )
  }

  /**
   * Changes a payment: `next` works out the new version from the durable one (undefined: no change), inside the
   * payment's lock. What listeners record with it is written in the same unit; they are told once it is durable.
   * When another instance changed the payment meanwhile, `next` runs again on what it left.
   */
  change(trackId: string, next: (payment: Payment) => Payment | undefined, context: Omit<PaymentChange, 'previous'> = {}): Promise<Payment> {
    return this.locks.run(`payment:${trackId}`, () =>
      this.store.retrying(async () => {
        const payment = this.requirePayment(trackId)
        const changed = next(payment)
        if (changed === undefined) return payment
        // A reset or import written meanwhile removed the payment: it is not written back.
        if (!this.store.latest.getPayment(trackId)) throw new SandboxError('notFound', `no payment with trackId ${trackId}`)
        const change: PaymentChange = { previous: payment, ...context }
        const unit: Change[] = [{ k: 'payment', v: changed }]
        for (const listener of this.listeners) {
          const more = listener.recordWith?.(changed, change)
          if (more) unit.push(...more)
        }
        await this.store.commit(unit)
        return changed
      }),
    )
  }

  /** Tells listeners that a reset or an import is queued (not yet durable). */
  activityCleared(): void {
    for (const listener of this.listeners) listener.activityCleared?.()
  }

  /** The time for a change of `payment`: now, never before its last change. */
  changeTime(payment: Payment): string {
    return notBefore(this.stamp(), payment.updatedAt)
  }

  newRefNumber(): string {
    let ref = newRefNumber()
    while (this.store.latest.hasRefNumber(ref)) ref = newRefNumber()
    return ref
  }

  requirePayment(trackId: string): Payment {
    const payment = this.store.getPayment(trackId)
    if (!payment) throw new SandboxError('notFound', `no payment with trackId ${trackId}`)
    return payment
  }

  listPayments(filter: { status?: PaymentStatus; merchant?: string; limit?: number }): Payment[] {
    const all = this.store.listPayments(filter)
    return filter.limit !== undefined ? all.slice(-filter.limit) : all
  }

  deliveriesOf(trackId: string): Delivery[] {
    return this.store.listDeliveries({ trackId })
  }

  // ── merchants ─────────────────────────────────────────────────────────

  listMerchants(): Merchant[] {
    return this.store.listMerchants()
  }

  async createMerchant(input: { key?: unknown; name?: unknown }): Promise<Merchant> {
    const key = input.key ?? newMerchantKey()
    const name = input.name ?? `Merchant ${String(key)}`
    if (!isMerchantKey(key)) throw new SandboxError('invalidField', merchantKeyRule(key))
    if (!isMerchantName(name)) throw new SandboxError('invalidField', merchantNameRule(name))
    return this.locks.run(`merchant:${key}`, () =>
      this.store.retrying(async () => {
        if (this.store.latest.getMerchant(key)) throw new SandboxError('conflict', `a merchant with key ${key} already exists`)
        const at = this.stamp()
        const merchant: Merchant = { key, name: name.trim(), enabled: true, createdAt: at, updatedAt: at }
        await this.store.putMerchant(merchant)
        return merchant
      }),
    )
  }

  setMerchantEnabled(key: string, enabled: boolean): Promise<Merchant> {
    return this.locks.run(`merchant:${key}`, () =>
      this.store.retrying(async () => {
        const merchant = this.store.getMerchant(key)
        if (!merchant) throw new SandboxError('notFound', `no merchant with key ${key}`)
        if (merchant.enabled === enabled) return merchant
        if (!this.store.latest.getMerchant(key)) throw new SandboxError('notFound', `no merchant with key ${key}`)
        const next: Merchant = { ...merchant, enabled, updatedAt: notBefore(this.stamp(), merchant.updatedAt) }
        await this.store.putMerchant(next)
        return next
      }),
    )
  }
}
