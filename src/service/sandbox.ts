import { assetRule, isAssetCode } from '../domain/assets.js'
import { isMerchantKey, isMerchantName, merchantKeyRule, merchantNameRule } from '../domain/merchant.js'
import { SandboxError, SpecMessage } from '../domain/outcomes.js'
import { applyOutcome, type Outcome } from '../domain/payment.js'
import { newMerchantKey, newRefNumber, newTrackId } from '../domain/ids.js'
import { checkCreate, verifyOutcome, type VerifyBody } from '../domain/validate.js'
import type { ChangeSource, Delivery, Merchant, Payment, PaymentStatus } from '../domain/types.js'
import type { Store } from '../store/store.js'
import { KeyedLock } from './locks.js'
import { notBefore } from '../clock/clock.js'
import type { SpecFailure } from '../domain/outcomes.js'

export type CreateBody = { result: 100; trackId: string; message: typeof SpecMessage.success } | SpecFailure

/** Told of every status change of a payment. */
export interface PaymentListener {
  /**
   * Called in the same event-loop turn as the payment's own write, so what it writes joins the same journal
   * batch: durable together with the change, or failed with it (the callback dispatcher records the
   * notification here). Resolves once durable.
   */
  recordWith?(payment: Payment): Promise<void>
  /** Called once the change is durable (the checkout page's event stream). */
  paymentChanged?(payment: Payment): void
  /** Called once a new payment is durable (the inspector's event stream). */
  paymentCreated?(payment: Payment): void
}

export interface SimulateRequest {
  outcome: Outcome
  amount?: number
  asset?: string
  source: ChangeSource
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

  constructor(store: Store, now: () => Date = () => new Date()) {
    this.store = store
    this.now = now
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
    return this.now().toISOString()
  }

  // ── spec API ──────────────────────────────────────────────────────────

  async create(body: Record<string, unknown>): Promise<CreateBody> {
    const check = checkCreate(body, (key) => this.store.getMerchant(key))
    if (!check.ok) return check.failure
    const at = this.stamp()
    let trackId = newTrackId()
    while (this.store.latest.getPayment(trackId)) trackId = newTrackId()
    const payment: Payment = {
      trackId,
      ...check.fields,
      status: 'pending',
      createdAt: at,
      updatedAt: at,
      history: [{ status: 'pending', at, source: 'api' }],
    }
    await this.store.putPayment(payment)
    for (const listener of this.listeners) listener.paymentCreated?.(payment)
    return { result: 100, trackId, message: SpecMessage.success }
  }

  verify(body: Record<string, unknown>): VerifyBody {
    return verifyOutcome(
      body,
      (key) => this.store.getMerchant(key),
      (trackId) => this.store.getPayment(trackId),
    )
  }

  // ── customer simulation ───────────────────────────────────────────────

  /** Moves a payment as the customer would; one move of a payment at a time, each read from durable state. */
  simulate(trackId: string, request: SimulateRequest): Promise<Payment> {
    return this.locks.run(`payment:${trackId}`, () => this.move(trackId, request))
  }

  private async move(trackId: string, request: SimulateRequest): Promise<Payment> {
    const payment = this.requirePayment(trackId)
    if (request.asset !== undefined && !isAssetCode(request.asset)) throw new SandboxError('invalidField', assetRule(request.asset))
    const next = applyOutcome(payment, {
      outcome: request.outcome,
      ...(request.amount !== undefined ? { paidAmount: request.amount } : {}),
      ...(request.asset !== undefined ? { asset: request.asset } : {}),
      source: request.source,
      now: notBefore(this.stamp(), payment.updatedAt),
      newRefNumber: () => {
        let ref = newRefNumber()
        while (this.store.latest.hasRefNumber(ref)) ref = newRefNumber()
        return ref
      },
    })
    // A reset or import written meanwhile removed the payment: it is not written back.
    if (!this.store.latest.getPayment(trackId)) throw new SandboxError('notFound', `no payment with trackId ${trackId}`)
    const saving = [this.store.putPayment(next)]
    for (const listener of this.listeners) if (listener.recordWith) saving.push(listener.recordWith(next))
    await Promise.all(saving)
    for (const listener of this.listeners) listener.paymentChanged?.(next)
    return next
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
    return this.locks.run(`merchant:${key}`, async () => {
      if (this.store.latest.getMerchant(key)) throw new SandboxError('conflict', `a merchant with key ${key} already exists`)
      const at = this.stamp()
      const merchant: Merchant = { key, name: name.trim(), enabled: true, createdAt: at, updatedAt: at }
      await this.store.putMerchant(merchant)
      return merchant
    })
  }

  setMerchantEnabled(key: string, enabled: boolean): Promise<Merchant> {
    return this.locks.run(`merchant:${key}`, async () => {
      const merchant = this.store.getMerchant(key)
      if (!merchant) throw new SandboxError('notFound', `no merchant with key ${key}`)
      if (merchant.enabled === enabled) return merchant
      if (!this.store.latest.getMerchant(key)) throw new SandboxError('notFound', `no merchant with key ${key}`)
      const next: Merchant = { ...merchant, enabled, updatedAt: notBefore(this.stamp(), merchant.updatedAt) }
      await this.store.putMerchant(next)
      return next
    })
  }
}
