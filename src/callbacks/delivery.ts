import { CALLBACK_EVENT, type Notification, type NotifiedStatus } from '../domain/callback.js'
import { paysSomething } from '../domain/payment.js'
import { copiesOf, type DeliveryFault, planOf } from '../domain/fault.js'
import type { Delivery, DeliveryAttempt, Payment } from '../domain/types.js'
import { version } from '../version.js'
import { type CallbackPolicy, MAX_RETRIES, retryDelay } from './schedule.js'
import type { SendResult } from './send.js'

export { CALLBACK_EVENT, type Notification, type NotifiedStatus }

export const Header = {
  delivery: 'X-Pay-Sandbox-Delivery',
  event: 'X-Pay-Sandbox-Event',
  attempt: 'X-Pay-Sandbox-Attempt',
  replayOf: 'X-Pay-Sandbox-Replay-Of',
} as const

export function notificationOf(payment: Payment & { status: NotifiedStatus }): Notification {
  return {
    event: CALLBACK_EVENT,
    trackId: payment.trackId,
    status: payment.status,
    amount: payment.amount,
    ...(paysSomething(payment.status) && payment.paidAmount !== undefined ? { paidAmount: payment.paidAmount } : {}),
    ...(paysSomething(payment.status) && payment.asset !== undefined ? { asset: payment.asset } : {}),
    occurredAt: payment.updatedAt,
    sandbox: true,
  }
}

export function isNotified(payment: Payment): payment is Payment & { status: NotifiedStatus } {
  return payment.status !== 'pending'
}

/** Headers of every attempt of a delivery (Content-Length, Host and Connection are added by Node). */
export function deliveryHeaders(id: string, event: string, replayOf?: string): Record<string, string> {
  return {
    'Content-Type': 'application/json',
    'User-Agent': `pay-sandbox/${version}`,
    [Header.delivery]: id,
    [Header.event]: event,
    ...(replayOf !== undefined ? { [Header.replayOf]: replayOf } : {}),
  }
}

export function attemptHeaders(delivery: Delivery, attempt: number): Record<string, string> {
  const stored: unknown = delivery.headers
  // Stored data can hold anything: passed on as it is, sendCallback refuses it with a clear error.
  if (typeof stored !== 'object' || stored === null || Array.isArray(stored)) return stored as Record<string, string>
  return { ...delivery.headers, [Header.attempt]: String(attempt) }
}

/** The exact bytes sent: the same for every attempt and replay of one body. */
export function bodyText(delivery: Delivery): string {
  return JSON.stringify(delivery.body)
}

/**
 * A new delivery, due at once unless its fault says otherwise: a lost one is never sent (dropped), a held one has
 * no due time until the payment's next notification is sent, a delayed one is due after its wait.
 */
export function newDelivery(input: {
  id: string
  trackId: string
  url: string
  event: string
  body: Record<string, unknown>
  maxRetries: number
  now: string
  replayOf?: string
  fault?: DeliveryFault
}): Delivery {
  const { fault } = input
  const plan = planOf(fault)
  const due = plan.waitMs > 0 ? new Date(Date.parse(input.now) + plan.waitMs).toISOString() : input.now
  return {
    id: input.id,
    trackId: input.trackId,
    url: input.url,
    event: input.event,
    body: input.body,
    headers: deliveryHeaders(input.id, input.event, input.replayOf),
    state: plan.lost ? 'dropped' : 'pending',
    attempts: [],
    maxRetries: input.maxRetries,
    ...(plan.lost || plan.held ? {} : { nextAttemptAt: due }),
    ...(input.replayOf !== undefined ? { replayOf: input.replayOf } : {}),
    ...(fault !== undefined ? { fault } : {}),
    createdAt: input.now,
    updatedAt: input.now,
  }
}

/** A notification still held back (reorder) for the payment's next one. */
export function isHeld(delivery: Delivery): boolean {
  return delivery.state === 'pending' && planOf(delivery.fault).held && delivery.nextAttemptAt === undefined && attemptsOf(delivery).length === 0
}

/** The delivery released from being held: due now. */
export function released(delivery: Delivery, now: string): Delivery {
  return { ...delivery, nextAttemptAt: now, updatedAt: notBefore(new Date(now), delivery.createdAt, delivery.updatedAt) }
}

/** Attempts a delivery may make in all: its copies, then its retries. */
export function maxAttempts(delivery: Pick<Delivery, 'maxRetries' | 'fault'>, policy: Pick<CallbackPolicy, 'retries'>): number {
  return copiesOf(delivery) + retriesOf(delivery, policy)
}

/** A replay: the same body to `url`, one attempt, linked to the original. */
export function replayDelivery(original: Pick<Delivery, 'id' | 'trackId' | 'url' | 'event' | 'body'>, input: { id: string; url?: string; now: string }): Delivery {
  return newDelivery({
    id: input.id,
    trackId: original.trackId,
    url: input.url ?? original.url,
    event: original.event,
    body: original.body,
    maxRetries: 0,
    now: input.now,
    replayOf: original.id,
  })
}

/**
 * The delivery after one finished attempt: delivered, failed for good, or pending with the next attempt due
 * `retryDelay` after `now`. Stored data is read defensively (it may come from an older version or a hand edit),
 * and `updatedAt` never goes before the delivery's earlier times, even when the wall clock was set back.
 */
export function withAttempt(delivery: Delivery, result: SendResult, at: Date, policy: Pick<CallbackPolicy, 'scheduleMs' | 'retries'>, now: Date): Delivery {
  const made = attemptsOf(delivery)
  const attempt: DeliveryAttempt = { attempt: made.length + 1, at: at.toISOString(), durationMs: result.durationMs }
  if (result.status !== undefined) attempt.status = result.status
  if (result.responseExcerpt !== undefined) attempt.responseExcerpt = result.responseExcerpt
  if (result.truncated) attempt.truncated = true
  if (result.error !== undefined) attempt.error = result.error
  const attempts = [...made, attempt]
  const { nextAttemptAt: _, ...rest } = delivery
  const updatedAt = notBefore(now, delivery.createdAt, delivery.updatedAt)
  const copies = copiesOf(delivery)
  // The copies of a duplicate all go, whatever the answers: the sender never saw them.
  if (attempts.length < copies) return { ...rest, attempts, state: 'pending', nextAttemptAt: updatedAt, updatedAt }
  if (result.ok || (copies > 1 && attempts.some(answered2xx))) return { ...rest, attempts, state: 'delivered', updatedAt }
  if (attempts.length >= maxAttempts(delivery, policy)) return { ...rest, attempts, state: 'failed', updatedAt }
  const wait = retryDelay(policy, attempts.length - copies + 1)
  return { ...rest, attempts, state: 'pending', nextAttemptAt: new Date(now.getTime() + wait).toISOString(), updatedAt }
}

/** Wait before the next attempt of a pending delivery that has just made one: none between copies. */
export function nextWait(delivery: Delivery, policy: Pick<CallbackPolicy, 'scheduleMs'>): number {
  const made = attemptsOf(delivery).length
  const copies = copiesOf(delivery)
  return made < copies ? 0 : retryDelay(policy, made - copies + 1)
}

/** An attempt the receiver answered with a 2xx. */
export function answered2xx(attempt: DeliveryAttempt): boolean {
  return attempt.status !== undefined && attempt.status >= 200 && attempt.status < 300 && attempt.error === undefined
}

/** The attempts recorded so far ([] when the stored value is not a list). */
export function attemptsOf(delivery: Pick<Delivery, 'attempts'>): DeliveryAttempt[] {
  return Array.isArray(delivery.attempts) ? delivery.attempts : []
}

/** Retries the delivery allows: its own `maxRetries` (at most MAX_RETRIES), or the policy's when that is not a count. */
export function retriesOf(delivery: Pick<Delivery, 'maxRetries'>, policy: Pick<CallbackPolicy, 'retries'>): number {
  const stored = delivery.maxRetries
  if (!Number.isInteger(stored)) return policy.retries
  return Math.min(Math.max(stored, 0), MAX_RETRIES)
}

/** `now` as an ISO time, moved forward to the latest of `earlier` (ISO times; anything unreadable is ignored). */
function notBefore(now: Date, ...earlier: unknown[]): string {
  let ms = now.getTime()
  for (const time of earlier) {
    const t = typeof time === 'string' ? Date.parse(time) : Number.NaN
    if (t > ms) ms = t
  }
  return new Date(ms).toISOString()
}

/** The payment status a delivery reports, read from its body. */
export function reportedStatus(delivery: Pick<Delivery, 'body'>): string | undefined {
  const body: unknown = delivery.body
  if (typeof body !== 'object' || body === null) return undefined
  const status = (body as Record<string, unknown>).status
  return typeof status === 'string' ? status : undefined
}
