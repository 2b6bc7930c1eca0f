import type { DeliveryState } from './types.js'

/** The one outbound event of the spec: the payment notification. */
export const CALLBACK_EVENT = 'payment.status_changed'

export type NotifiedStatus = 'unfinalized' | 'paid' | 'failed' | 'expired'
export const notifiedStatuses: readonly NotifiedStatus[] = ['unfinalized', 'paid', 'failed', 'expired']

/**
 * The JSON body POSTed to the callbackUrl. It says what changed, not that anything is settled: there is no
 * `result`, `refNumber` or signature, and the receiver must call verify before acting on it.
 */
export interface Notification {
  event: typeof CALLBACK_EVENT
  trackId: string
  status: NotifiedStatus
  /** The order amount given at creation. */
  amount: number
  /** What the customer paid (unfinalized and paid); can differ from amount. */
  paidAmount?: number
  /** Sandbox asset the customer paid with, when known. */
  asset?: string
  /** When the status changed. */
  occurredAt: string
  sandbox: true
}

export const deliveryStates: readonly DeliveryState[] = ['pending', 'delivered', 'failed', 'dropped']

/** Bytes of the receiver's response body kept on an attempt; the rest is not read. */
export const EXCERPT_BYTES = 2048

/** Most retries a delivery can be given (`--callback-retries`). */
export const MAX_RETRIES = 100

/** Longest URL a delivery can be sent to: a replay's `to` (a payment's callbackUrl is at most 512). */
export const REPLAY_URL_MAX = 2048
