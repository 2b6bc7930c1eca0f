import type { Payment } from '../../src/domain/types.js'

/** A payment record as the API would store it, numbered so tests can tell them apart. */
export function payment(i: number, status: Payment['status'] = 'pending'): Payment {
  const at = new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString()
  return {
    trackId: `track-${i}`,
    merchant: 'sandbox',
    amount: i + 1,
    callbackUrl: 'http://localhost/cb',
    status,
    createdAt: at,
    updatedAt: at,
    history: [{ status: 'pending', at, source: 'api' }],
  }
}
