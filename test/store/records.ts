import type { Payment } from '../../src/domain/types.js'

/** The trackId of payment `i`: numbered, and of the form the sandbox makes (22 characters). */
export function trackIdOf(i: number): string {
  return `track-${String(i).padStart(16, '0')}`
}

/** A payment record as the API would store it, numbered so tests can tell them apart; one that was moved to `status`. */
export function payment(i: number, status: Payment['status'] = 'pending'): Payment {
  const at = new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString()
  const paid = status === 'paid' || status === 'unfinalized'
  return {
    trackId: trackIdOf(i),
    merchant: 'sandbox',
    amount: i + 1,
    callbackUrl: 'http://localhost/cb',
    status,
    ...(paid ? { paidAmount: i + 1 } : {}),
    ...(status === 'paid' ? { refNumber: String(100_000_000_000 + i) } : {}),
    createdAt: at,
    updatedAt: at,
    history: [{ status: 'pending', at, source: 'api' }, ...(status === 'pending' ? [] : [{ status, at, source: 'control' as const }])],
  }
}
