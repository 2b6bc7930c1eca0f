/** Records as stored and as returned by the sandbox control API. Times are ISO-8601 strings. */

import type { DeliveryFault } from './fault.js'

export type { DeliveryFault }

export type PaymentStatus = 'pending' | 'unfinalized' | 'paid' | 'failed' | 'expired'

/**
 * Where a change came from: the spec API, the checkout page, the sandbox control API (CLI, scripts), the sandbox
 * clock (a payment past its time to live expired) or the sandbox chain (confirmations reached).
 */
export type ChangeSource = 'api' | 'checkout' | 'control' | 'clock' | 'chain'

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
  /** Blocks mined since the customer's transaction was seen (from unfinalized on). */
  confirmations?: number
  /** Confirmations that make an unfinalized payment paid, fixed when it became unfinalized. */
  confirmationsRequired?: number
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

/** `dropped`: recorded and never sent, as if lost on the way (a callback fault). */
export type DeliveryState = 'pending' | 'delivered' | 'failed' | 'dropped'

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
  /** A fault the sandbox played on this notification on purpose, and why. */
  fault?: DeliveryFault
  createdAt: string
  updatedAt: string
}

/** The sandbox clock as saved: real time plus an offset, never earlier than `holdUntil`. */
export interface ClockRecord {
  offsetMs: number
  holdUntil?: string
}

/** One verify call of an existing payment, as the sandbox observed it. */
export interface VerifyEntry {
  trackId: string
  at: string
  /** The key sent, when it is a merchant's key of this sandbox. */
  key?: string
  /** The start of a key this sandbox does not know (it may be a production key sent by mistake). */
  keyHint?: string
  /** The key is the payment's merchant's. */
  owner: boolean
  result: number
  amount?: number
  /** The payment's status when it was verified. */
  status: PaymentStatus
  /**
   * Made by the sandbox's operator (the pay CLI, the inspector, a scenario step checking as the operator), marked
   * with the operator header: shown, and left out of every judgement of the merchant.
   */
  operator?: true
}

/** A payment's verify journal: the latest entries and how many there were in all. */
export interface VerifyJournal {
  trackId: string
  count: number
  /** Oldest first, at most VERIFY_JOURNAL_KEEP. */
  entries: VerifyEntry[]
}
