import type { Payment, PaymentStatus } from '../domain/types.js'

/** The payments list's filters, as its URL holds them. */
export interface PaymentQuery {
  merchant?: string
  status?: PaymentStatus
  /** Part of a trackId or description, any case. */
  q?: string
  limit: number
}

export const PAYMENTS_SHOWN = { default: 100, max: 1000 } as const
export const SEARCH_MAX = 200

export function matchesSearch(payment: Payment, text: string): boolean {
  const needle = text.toLowerCase()
  return payment.trackId.toLowerCase().includes(needle) || (payment.description ?? '').toLowerCase().includes(needle)
}

/** Of payments oldest first (as the store lists them), those matching the search, newest first and limited. */
export function pickPayments(oldestFirst: readonly Payment[], query: Pick<PaymentQuery, 'q' | 'limit'>): { shown: Payment[]; matching: number } {
  const q = query.q?.trim()
  const matching = q ? oldestFirst.filter((p) => matchesSearch(p, q)) : oldestFirst
  return { shown: matching.slice(Math.max(0, matching.length - query.limit)).reverse(), matching: matching.length }
}
