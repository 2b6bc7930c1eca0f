import { createHash } from 'node:crypto'
import { API_FAULTS, type ApiFault, effectOf, FAULT_ID_PATTERN, type FaultedRoute, type FaultRule } from './api-fault.js'
import type { ModeLike } from './mode-table.js'
import { paymentStatuses } from './payment.js'
import type { PaymentStatus } from './types.js'

/**
 * A fault played on a request, as the sandbox observed it: what was played, on what, and how the request ended,
 * with how long the client waited. The audit judges the merchant by these, with the verify journal; the request
 * log and the pages say what was done with describeHit. Pure.
 */

/** How a faulted request ended: answered (a fault's answer, or the real one late), or closed with no answer, and by whom. */
export type HitEnd = 'answered' | 'client-closed' | 'sandbox-closed'

export interface FaultHit {
  /** The rule's id. */
  rule: string
  route: FaultedRoute
  /** The fault as written: `status=503`, `delay=1500ms`, `timeout`. */
  fault: string
  /** When the request came (sandbox time). */
  at: string
  /** Real time from the request's arrival until it was answered or closed, to 0.1 ms. */
  ms: number
  end: HitEnd
  /** The key sent, when it is a merchant key of this sandbox (create, verify), or the payment's merchant (checkout). */
  merchant?: string
  /** The start of a key this sandbox does not know, and its length. */
  keyHint?: string
  /** The payment it was about (verify, checkout) or, with `after`, the one the create made. */
  trackId?: string
  /** Verify: the key sent is the payment's merchant's. */
  owner?: boolean
  /** The payment's status when the request came. */
  status?: PaymentStatus
  /** Create: a digest of the order's fields, to tell a retry of the same order from another order. */
  order?: string
  /** The request was carried out before the fault took its answer (a create with `after`). */
  after?: true
  /** The Retry-After the answer carried, in seconds. */
  retryAfter?: number
}

/** Hits kept, the latest; older ones are let go. */
export const FAULT_HITS_KEEP = 1000

/** The data file's schema of a hit; `at` is given by the caller (its time format). */
export const faultHitFields = {
  rule: { type: 'string', pattern: FAULT_ID_PATTERN },
  route: { type: 'string', enum: ['create', 'verify', 'checkout'] },
  fault: { type: 'string', minLength: 1, maxLength: 40, pattern: API_FAULTS.pattern },
  ms: { type: 'number', minimum: 0, maximum: 1e9 },
  end: { type: 'string', enum: ['answered', 'client-closed', 'sandbox-closed'] },
  merchant: { type: 'string', minLength: 1, maxLength: 128 },
  keyHint: { type: 'string', maxLength: 64 },
  trackId: { type: 'string', minLength: 1, maxLength: 200 },
  owner: { type: 'boolean' },
  status: { type: 'string', enum: paymentStatuses },
  order: { type: 'string', pattern: '^[A-Za-z0-9_-]{16}$' },
  after: { const: true },
  retryAfter: { type: 'integer', minimum: 1, maximum: 3600 },
} as const
export const FAULT_HIT_REQUIRED = ['rule', 'route', 'fault', 'at', 'ms', 'end'] as const

/** The fault a hit played, parsed; undefined for one the table no longer knows. */
export function hitFault(hit: Pick<FaultHit, 'fault'>): ApiFault | undefined {
  const parsed = API_FAULTS.parse(hit.fault)
  return 'mode' in parsed ? parsed.mode : undefined
}

/** The merchant's call failed: it got a fault's answer or none (not a real answer that came late). */
export function hitFailed(hit: FaultHit): boolean {
  const fault = hitFault(hit)
  if (!fault) return false
  return !effectOf(fault).waits || hit.end !== 'answered'
}

/** How long the merchant's client kept the request open, when the fault held it (a delay or a timeout); else undefined. */
export function heldFor(hit: FaultHit): number | undefined {
  const fault = hitFault(hit)
  const effect = fault ? effectOf(fault) : {}
  return effect.holds || effect.waits ? hit.ms : undefined
}

const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)} s`

/**
 * What was done, in words, for the request log and the pages: `status 503`, `html 502`, `delay 1.5s`,
 * `timeout, client gave up after 30.2 s`, `reset`, `retry-after 429 (Retry-After: 5)`; with `after`, what the
 * request did before its answer was lost.
 */
export function describeHit(hit: FaultHit): string {
  const fault = hitFault(hit)
  const effect = fault ? effectOf(fault) : {}
  let text = fault ? API_FAULTS.show(fault as ModeLike).replace('=', ' ') : hit.fault
  if (effect.retryAfter && hit.retryAfter !== undefined) text += ` (Retry-After: ${hit.retryAfter})`
  if (effect.holds || (effect.waits && hit.end !== 'answered')) {
    text +=
      hit.end === 'client-closed'
        ? `, client gave up after ${seconds(hit.ms)}`
        : hit.end === 'sandbox-closed'
          ? `, closed by the sandbox after ${seconds(hit.ms)} (the client had not given up)`
          : ''
  }
  if (hit.after) text += `; answer lost, the payment was made${hit.trackId !== undefined ? ` (trackId ${hit.trackId})` : ''}`
  return text
}

/**
 * A digest of a create's order fields as sent (amount, URLs, description, mobile; `null` as absent): the same order
 * sent again has the same one, another order almost never does.
 */
export function orderDigest(body: { amount?: unknown; callbackUrl?: unknown; returnUrl?: unknown; description?: unknown; mobile?: unknown }): string {
  const fields = [body.amount, body.callbackUrl, body.returnUrl, body.description, body.mobile].map((v) => (v === undefined ? null : v))
  return createHash('sha256').update(JSON.stringify(fields)).digest('base64url').slice(0, 16)
}

/** A change to the API fault rules as the store journals it: a rule added, its counts, one or all removed, a fault played. */
export type FaultChange =
  | { t: 'rule'; v: FaultRule }
  | { t: 'count'; id: string; matched: number; played: number }
  | { t: 'off'; id: string }
  | { t: 'clear' }
  | { t: 'hit'; v: FaultHit }
