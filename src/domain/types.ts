/** Records as stored and as returned by the sandbox control API. Times are ISO-8601 strings. */

export type PaymentStatus = 'pending' | 'unfinalized' | 'paid' | 'failed'

/** Where a change came from: the spec API, the checkout page, or the sandbox control API (CLI, scripts). */
export type ChangeSource = 'api' | 'checkout' | 'control'

export interface Merchant {
  key: string
  name: string
  enabled: boolean
  createdAt: string
  updatedAt: string
}

export interface StatusChange {
  status: PaymentStatus
  at: string
  source: ChangeSource
  /** Amount the customer paid, for unfinalized and paid. */
  paidAmount?: number
  asset?: string
}

export interface Payment {
  trackId: string
  merchant: string
  amount: number
  callbackUrl: string
  returnUrl?: string
  description?: string
  mobile?: string
  status: PaymentStatus
  /** Amount the customer paid (set once they pay, finalized or not). */
  paidAmount?: number
  /** Sandbox asset the customer chose on the checkout page, if any. */
  asset?: string
  refNumber?: string
  createdAt: string
  updatedAt: string
  history: StatusChange[]
}

/** One try at sending a delivery. The request itself (URL, body, headers) is on the delivery. */
export interface DeliveryAttempt {
  /** 1 for the first try. */
  attempt: number
  at: string
  durationMs: number
  /** HTTP status of the receiver's answer, if it answered. */
  status?: number
  /** Start of the response body, at most 2 KB. */
  responseExcerpt?: string
  /** The response body was longer than the excerpt (or cut off by the timeout). */
  truncated?: boolean
  /** Why the attempt failed: network error, timeout or non-2xx status. */
  error?: string
}

export type DeliveryState = 'pending' | 'delivered' | 'failed'

export interface Delivery {
  id: string
  trackId: string
  url: string
  /** The notification's `event` (payment.status_changed). */
  event: string
  /** The JSON body, sent byte-for-byte the same on every attempt and replay. */
  body: Record<string, unknown>
  /** Headers sent on every attempt; each attempt adds X-Pay-Sandbox-Attempt. */
  headers: Record<string, string>
  state: DeliveryState
  attempts: DeliveryAttempt[]
  /** Retries allowed after the first attempt, fixed when the delivery is made. */
  maxRetries: number
  /** When the next attempt is due, while pending. */
  nextAttemptAt?: string
  /** Set on a replay: the delivery whose body was sent again. */
  replayOf?: string
  createdAt: string
  updatedAt: string
}
