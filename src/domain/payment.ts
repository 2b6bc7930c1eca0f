import { ASSET_CODES } from './assets.js'
import { SandboxError } from './outcomes.js'
import type { ChangeSource, Payment, PaymentStatus } from './types.js'

/**
 * Payment states and the moves between them.
 *
 *   pending ──► unfinalized ──► paid
 *      │             │
 *      ├─────────────┼────────► failed
 *      ├───────────► paid
 *      └───────────► expired
 *
 * paid, failed and expired are final. Only a pending payment expires: once the customer's transaction is seen
 * (unfinalized), the customer has paid and the payment waits for its confirmations, however long they take.
 */
export const transitions: Readonly<Record<PaymentStatus, readonly PaymentStatus[]>> = {
  pending: ['unfinalized', 'paid', 'failed', 'expired'],
  unfinalized: ['paid', 'failed'],
  paid: [],
  failed: [],
  expired: [],
}

export const paymentStatuses: readonly PaymentStatus[] = ['pending', 'unfinalized', 'paid', 'failed', 'expired']
export const changeSources: readonly ChangeSource[] = ['api', 'checkout', 'control', 'clock', 'chain']

/** What the customer (or the sandbox, for `expired`) can do, in the words of the CLI and the checkout page. */
export type Outcome = 'paid' | 'unfinalized' | 'failed' | 'expired'
export const outcomes: readonly Outcome[] = ['paid', 'unfinalized', 'failed', 'expired']

/** Most confirmations a payment can be asked for (`--confirmations`). */
export const MAX_CONFIRMATIONS = 1000

/** When a pending payment created at `createdAt` expires under a time to live of `ttlMs` (ms since the epoch). */
export function expiresAt(payment: Pick<Payment, 'createdAt'>, ttlMs: number): number {
  return Date.parse(payment.createdAt) + ttlMs
}

export function isFinal(status: PaymentStatus): boolean {
  return transitions[status].length === 0
}

export function canMove(from: PaymentStatus, to: PaymentStatus): boolean {
  return transitions[from].includes(to)
}

/** Whether a payment in `from` is, or can still become, `to` through any number of moves. */
export function canReach(from: PaymentStatus, to: PaymentStatus): boolean {
  if (from === to) return true
  return transitions[from].some((next) => canReach(next, to))
}

export interface SimulateInput {
  outcome: Outcome
  /** Amount the customer pays; defaults to what they already paid, else the order amount. */
  paidAmount?: number
  asset?: string
  source: ChangeSource
  now: string
  /** Called only when the payment becomes paid and has no reference number yet. */
  newRefNumber: () => string
  /** Confirmations an unfinalized payment needs, fixed when it becomes unfinalized (it starts at 0). */
  confirmationsRequired?: number
}

/** The asset a customer pays with: one of the sandbox's. */
export const assetSchema = { type: 'string', enum: [...ASSET_CODES] } as const

/** Returns the payment after the customer's action, or throws `invalid_transition`. Pure. */
export function applyOutcome(payment: Payment, input: SimulateInput): Payment {
  const to: PaymentStatus = input.outcome
  if (!canMove(payment.status, to)) {
    const allowed = transitions[payment.status]
    throw new SandboxError(
      'invalidTransition',
      allowed.length === 0
        ? `payment ${payment.trackId} is ${payment.status}, a final state; it cannot become ${to}`
        : `payment ${payment.trackId} is ${payment.status}; it can become ${allowed.join(' or ')}, not ${to}`,
    )
  }
  if (input.paidAmount !== undefined && !isValidAmount(input.paidAmount)) {
    throw new SandboxError('invalidField', `paid amount must be ${AMOUNT_RULE}`)
  }
  const next: Payment = { ...payment, status: to, updatedAt: input.now }
  if (to === 'paid' || to === 'unfinalized') {
    next.paidAmount = input.paidAmount ?? payment.paidAmount ?? payment.amount
    if (input.asset !== undefined) next.asset = input.asset
  }
  if (to === 'paid' && next.refNumber === undefined) next.refNumber = input.newRefNumber()
  if (to === 'unfinalized' && input.confirmationsRequired !== undefined) {
    next.confirmations = 0
    next.confirmationsRequired = input.confirmationsRequired
  }
  next.history = [
    ...payment.history,
    {
      status: to,
      at: input.now,
      source: input.source,
      ...(next.paidAmount !== undefined && paysSomething(to) ? { paidAmount: next.paidAmount } : {}),
      ...(next.asset !== undefined && paysSomething(to) ? { asset: next.asset } : {}),
    },
  ]
  return next
}

/** Whether a payment in this status has a paid amount to show (it was paid, finalized or not). */
export function paysSomething(status: PaymentStatus): status is 'unfinalized' | 'paid' {
  return status === 'unfinalized' || status === 'paid'
}

/**
 * Largest amount accepted, itself included. Up to it a double still holds every cent (its step there is about
 * 0.0001); the spec leaves the bound open.
 */
export const MAX_AMOUNT = 1e12

/** What isValidAmount accepts, in words for messages. */
export const AMOUNT_RULE = `a number greater than 0 and at most 1e${Math.log10(MAX_AMOUNT)}`

/**
 * The spec's rule for `amount`: a number greater than 0, decimals accepted. Any finite JSON number in
 * (0, MAX_AMOUNT] passes, however many decimals it has (`1 + 0.14` sends 1.1400000000000001) and however small
 * (5e-324): the sandbox stores it as sent and answers it unchanged, since merchants compare the amount verify
 * returns with `===`. Only pages and tables round it (src/domain/amount.ts).
 */
export function isValidAmount(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 && value <= MAX_AMOUNT
}
