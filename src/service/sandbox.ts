import { SandboxError, SpecMessage } from '../domain/outcomes.js'
import { applyOutcome, type Outcome } from '../domain/payment.js'
import { isMerchantKey, MERCHANT_KEY_RULE, newMerchantKey, newRefNumber, newTrackId } from '../domain/ids.js'
import { checkCreate, describeType, isMerchantName, MERCHANT_NAME_MAX, verifyOutcome, type VerifyBody } from '../domain/validate.js'
import type { ChangeSource, Delivery, Merchant, Payment, PaymentStatus } from '../domain/types.js'
import type { Store } from '../store/store.js'
import type { SpecFailure } from '../domain/outcomes.js'

export type CreateBody = { result: 100; trackId: string; message: typeof SpecMessage.success } | SpecFailure

/** Told of every status change once it is durable; the callback dispatcher is one. */
export interface PaymentListener {
  paymentChanged(payment: Payment): void | Promise<void>
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
    while (this.store.getPayment(trackId)) trackId = newTrackId()
    const payment: Payment = {
      trackId,
      ...check.fields,
      status: 'pending',
      createdAt: at,
      updatedAt: at,
      history: [{ status: 'pending', at, source: 'api' }],
    }
    await this.store.putPayment(payment)
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

  async simulate(trackId: string, request: SimulateRequest): Promise<Payment> {
    const payment = this.requirePayment(trackId)
    const next = applyOutcome(payment, {
      outcome: request.outcome,
      ...(request.amount !== undefined ? { paidAmount: request.amount } : {}),
      ...(request.asset !== undefined ? { asset: request.asset } : {}),
      source: request.source,
      now: this.stamp(),
      newRefNumber: () => {
        let ref = newRefNumber()
        while (this.store.hasRefNumber(ref)) ref = newRefNumber()
        return ref
      },
    })
    await this.store.putPayment(next)
    for (const listener of this.listeners) await listener.paymentChanged(next)
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
    if (typeof key !== 'string' || !isMerchantKey(key)) {
      throw new SandboxError(
        'invalidField',
        `merchant key must be ${MERCHANT_KEY_RULE} (got ${typeof key === 'string' ? JSON.stringify(key) : describeType(key)})`,
      )
    }
    if (this.store.getMerchant(key)) throw new SandboxError('conflict', `a merchant with key ${key} already exists`)
    const name = input.name ?? `Merchant ${key}`
    if (typeof name !== 'string' || !isMerchantName(name.trim())) {
      throw new SandboxError('invalidField', `merchant name must be a non-empty string of at most ${MERCHANT_NAME_MAX} characters`)
    }
    const at = this.stamp()
    const merchant: Merchant = { key, name: name.trim(), enabled: true, createdAt: at, updatedAt: at }
    await this.store.putMerchant(merchant)
    return merchant
  }

  async setMerchantEnabled(key: string, enabled: boolean): Promise<Merchant> {
    const merchant = this.store.getMerchant(key)
    if (!merchant) throw new SandboxError('notFound', `no merchant with key ${key}`)
    if (merchant.enabled === enabled) return merchant
    const next: Merchant = { ...merchant, enabled, updatedAt: this.stamp() }
    await this.store.putMerchant(next)
    return next
  }
}
