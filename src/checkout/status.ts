import { isFinal, paysSomething } from '../domain/payment.js'
import type { Payment, PaymentStatus } from '../domain/types.js'

/** What the checkout page's status endpoint and event stream send. */
export interface CheckoutStatus {
  trackId: string
  status: PaymentStatus
  final: boolean
  amount: number
  paidAmount?: number
  asset?: string
  refNumber?: string
  updatedAt: string
  /** Where to send the customer, with trackId and status appended; only once the payment is final. */
  returnUrl?: string
  /** Unfinalized: confirmations so far, and needed. */
  confirmations?: number
  confirmationsRequired?: number
  /** Pending, with a time to live: when it expires (sandbox clock). */
  expiresAt?: string
}

/** What the page knows beyond the payment: its deadline (ms) and the confirmations it needs. */
export interface StatusDetails {
  expiresAt?: number
  confirmationsRequired?: number
}

export function checkoutStatus(payment: Payment, details: StatusDetails = {}): CheckoutStatus {
  const final = isFinal(payment.status)
  const status: CheckoutStatus = {
    trackId: payment.trackId,
    status: payment.status,
    final,
    amount: payment.amount,
    updatedAt: payment.updatedAt,
  }
  if (payment.paidAmount !== undefined && paysSomething(payment.status)) status.paidAmount = payment.paidAmount
  if (payment.asset !== undefined && paysSomething(payment.status)) status.asset = payment.asset
  if (payment.status === 'unfinalized') {
    status.confirmations = payment.confirmations ?? 0
    const required = payment.confirmationsRequired ?? details.confirmationsRequired
    if (required !== undefined) status.confirmationsRequired = required
  }
  if (payment.status === 'pending' && details.expiresAt !== undefined && Number.isFinite(details.expiresAt)) {
    status.expiresAt = new Date(details.expiresAt).toISOString()
  }
  if (payment.refNumber !== undefined && payment.status === 'paid') status.refNumber = payment.refNumber
  const back = final ? returnLink(payment) : undefined
  if (back !== undefined) status.returnUrl = back
  return status
}

/**
 * The merchant's returnUrl with `trackId` and `status` in its query, before any fragment. The rest is the text
 * the merchant sent, byte for byte: it is spliced, not re-serialized by URL (which would percent-encode quotes
 * and non-ASCII and normalize the host and path). Where the query already has a `trackId` or `status` field,
 * its value is replaced in place and any repeat of that name dropped, so a server reading the query never gets
 * two values; the others are appended. Only http(s) URLs are followed, whatever was stored.
 */
export function returnLink(payment: Payment): string | undefined {
  const given = payment.returnUrl
  if (given === undefined) return undefined
  let url: URL
  try {
    url = new URL(given)
  } catch {
    return undefined
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined
  // As URL parsers read it: the first # starts the fragment, and a ? before it starts the query.
  const hash = given.indexOf('#')
  const head = hash === -1 ? given : given.slice(0, hash)
  const fragment = hash === -1 ? '' : given.slice(hash)
  const mark = head.indexOf('?')
  const path = mark === -1 ? head : head.slice(0, mark)
  const ours = new Map<string, string>([
    ['trackId', payment.trackId],
    ['status', payment.status],
  ])
  const placed = new Set<string>()
  const fields: string[] = []
  for (const field of mark === -1 ? [] : head.slice(mark + 1).split('&')) {
    const name = fieldName(field)
    const value = ours.get(name)
    if (value === undefined) fields.push(field)
    else if (!placed.has(name)) {
      placed.add(name)
      fields.push(new URLSearchParams([[name, value]]).toString())
    }
  }
  let query = fields.join('&')
  const rest = [...ours].filter(([name]) => !placed.has(name))
  if (rest.length > 0) query += `${query === '' || query.endsWith('&') ? '' : '&'}${new URLSearchParams(rest).toString()}`
  return `${path}?${query}${fragment}`
}

/** A query field's name as servers read it (`+` is a space, percent-escapes decoded). */
function fieldName(field: string): string {
  const eq = field.indexOf('=')
  const raw = (eq === -1 ? field : field.slice(0, eq)).replaceAll('+', ' ')
  try {
    return decodeURIComponent(raw)
  } catch {
    return raw
  }
}

export const STATUS_LABEL: Readonly<Record<PaymentStatus, string>> = {
  pending: 'Waiting for payment',
  unfinalized: 'Payment seen — confirming, not final yet',
  paid: 'Paid',
  failed: 'Not completed',
  expired: 'Expired — not paid in time',
}
