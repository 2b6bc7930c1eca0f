import { REPLAY_URL_MAX } from '../domain/callback.js'
import { newDeliveryId } from '../domain/ids.js'
import { SandboxError } from '../domain/outcomes.js'
import type { Delivery, Payment } from '../domain/types.js'
import { isValidUrl } from '../domain/validate.js'
import type { PaymentListener } from '../service/sandbox.js'
import type { Store } from '../store/store.js'
import {
  attemptHeaders,
  bodyText,
  CALLBACK_EVENT,
  isNotified,
  newDelivery,
  notificationOf,
  replayDelivery,
  reportedStatus,
  withAttempt,
} from './delivery.js'
import { type CallbackPolicy, formatDuration, resolvePolicy } from './schedule.js'
import { sendCallback } from './send.js'

export interface DispatcherOptions {
  store: Store
  policy?: Partial<CallbackPolicy>
  /** One line per attempt; omit for silence. */
  log?: (line: string) => void
  now?: () => Date
}

/** One payment's deliveries, sent one at a time in the order they were made. */
interface Lane {
  ids: string[]
  timer?: NodeJS.Timeout
  busy: boolean
}

/**
 * Sends callbacks. Told of each status change, it records a pending delivery (durably, before the API
 * replies) and sends it in the background: a payment's deliveries go out in order, each retried on network
 * errors, timeouts and non-2xx per the policy. Pending deliveries are picked up again by `resume()` at start.
 */
export class CallbackDispatcher implements PaymentListener {
  readonly policy: CallbackPolicy
  private readonly store: Store
  private readonly log: (line: string) => void
  private readonly now: () => Date
  private readonly lanes = new Map<string, Lane>()
  private readonly inflight = new Map<AbortController, Promise<unknown>>()
  private stopped = false

  constructor(options: DispatcherOptions) {
    this.store = options.store
    this.policy = resolvePolicy(options.policy)
    this.log = options.log ?? (() => {})
    this.now = options.now ?? (() => new Date())
  }

  /** PaymentListener: records the delivery, then returns; sending happens later. */
  async paymentChanged(payment: Payment): Promise<void> {
    if (!isNotified(payment)) return
    const body = notificationOf(payment)
    const delivery = newDelivery({
      id: this.newId(),
      trackId: payment.trackId,
      url: payment.callbackUrl,
      event: CALLBACK_EVENT,
      body: { ...body },
      maxRetries: this.policy.retries,
      now: this.now().toISOString(),
    })
    try {
      await this.store.putDelivery(delivery)
    } catch (error) {
      this.log(`${clock()} CALLBACK ${delivery.id} trackId=${payment.trackId} not recorded: ${(error as Error).message}`)
      return
    }
    if (!this.stopped) this.enqueue(payment.trackId, delivery.id)
  }

  /** Queues every pending delivery in the store, each payment's in creation order. */
  resume(): number {
    let count = 0
    for (const d of this.store.listDeliveries()) {
      if (d.state !== 'pending') continue
      const key = laneKey(d)
      if (this.lanes.get(key)?.ids.includes(d.id)) continue
      this.enqueue(key, d.id)
      count++
    }
    return count
  }

  /**
   * Sends a recorded delivery's body again, once, to its URL or `to`, as a new delivery with `replayOf`.
   * `ref` is a delivery id, or a trackId meaning that payment's latest delivery. Resolves after the attempt.
   */
  async replay(ref: string, to?: string): Promise<Delivery> {
    const original = this.findForReplay(ref)
    if (to !== undefined) checkUrl(to)
    const delivery = replayDelivery(original, { id: this.newId(), ...(to !== undefined ? { url: to } : {}), now: this.now().toISOString() })
    await this.store.putDelivery(delivery)
    if (this.stopped) return delivery
    await this.attempt(delivery)
    return this.store.getDelivery(delivery.id) ?? delivery
  }

  /** Cancels waiting retries and aborts attempts in flight; their deliveries stay pending for the next start. */
  async stop(): Promise<void> {
    this.stopped = true
    for (const lane of this.lanes.values()) clearTimeout(lane.timer)
    this.lanes.clear()
    for (const controller of this.inflight.keys()) controller.abort()
    await Promise.allSettled([...this.inflight.values()])
  }

  private newId(): string {
    let id = newDeliveryId()
    while (this.store.getDelivery(id)) id = newDeliveryId()
    return id
  }

  private findForReplay(ref: string): Delivery {
    const byId = this.store.getDelivery(ref)
    if (byId) return byId
    const ofPayment = this.store.listDeliveries({ trackId: ref })
    const latest = ofPayment.at(-1)
    if (latest) return latest
    if (this.store.getPayment(ref)) {
      throw new SandboxError('notFound', `payment ${ref} has no callback deliveries yet (it is still pending)`)
    }
    throw new SandboxError('notFound', `no delivery or payment with id ${ref}`)
  }

  private enqueue(key: string, id: string): void {
    let lane = this.lanes.get(key)
    if (!lane) {
      lane = { ids: [], busy: false }
      this.lanes.set(key, lane)
    }
    lane.ids.push(id)
    // setImmediate: the API reply that caused this goes out first.
    if (lane.ids.length === 1 && !lane.busy) setImmediate(() => void this.pump(key))
  }

  /** Works through a lane: sends its first delivery when due, and moves on once it is settled. */
  private async pump(key: string): Promise<void> {
    const lane = this.lanes.get(key)
    if (!lane || lane.busy || this.stopped) return
    lane.busy = true
    clearTimeout(lane.timer)
    lane.timer = undefined
    try {
      while (lane.ids.length > 0 && !this.stopped) {
        const delivery = this.store.getDelivery(lane.ids[0]!)
        if (!delivery || delivery.state !== 'pending') {
          lane.ids.shift()
          continue
        }
        const due = delivery.nextAttemptAt ? Date.parse(delivery.nextAttemptAt) - this.now().getTime() : 0
        if (due > 0) {
          lane.timer = setTimeout(() => void this.pump(key), due)
          lane.timer.unref()
          return
        }
        await this.attempt(delivery)
      }
    } finally {
      lane.busy = false
      if (lane.ids.length === 0 && this.lanes.get(key) === lane) this.lanes.delete(key)
    }
  }

  /** One attempt: send, record, log. An aborted attempt records nothing. */
  private async attempt(delivery: Delivery): Promise<void> {
    const number = delivery.attempts.length + 1
    const controller = new AbortController()
    const startedAt = this.now()
    const sending = sendCallback({
      url: delivery.url,
      body: bodyText(delivery),
      headers: attemptHeaders(delivery, number),
      timeoutMs: this.policy.timeoutMs,
      signal: controller.signal,
    })
    this.inflight.set(controller, sending)
    let result
    try {
      result = await sending
    } finally {
      this.inflight.delete(controller)
    }
    if (result.aborted) return
    const current = this.store.getDelivery(delivery.id)
    // Gone: the sandbox was reset or its state replaced while this attempt was out.
    if (!current) return
    const next = withAttempt(current, result, startedAt, this.policy, this.now())
    this.log(attemptLine(next, result.status, result.error, result.durationMs))
    try {
      await this.store.putDelivery(next)
    } catch (error) {
      this.log(`${clock()} CALLBACK ${delivery.id} attempt ${number} not recorded: ${(error as Error).message}`)
    }
  }
}

function laneKey(d: Delivery): string {
  // A replay is a one-off sent at once; it does not wait behind the payment's own deliveries.
  return d.replayOf !== undefined ? `replay:${d.id}` : d.trackId
}

function checkUrl(to: string): void {
  let url: URL
  try {
    url = new URL(to)
  } catch {
    throw new SandboxError('invalidField', `to must be an absolute http or https URL (got ${JSON.stringify(to)})`)
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new SandboxError('invalidField', `to must be an http or https URL (got ${url.protocol})`)
  }
  // The rule of a payment's callbackUrl, so every URL a delivery records is one an import takes back.
  if (!isValidUrl(to, REPLAY_URL_MAX)) {
    throw new SandboxError('invalidField', `to must have no white space or control characters (got ${JSON.stringify(to)})`)
  }
}

function clock(): string {
  return new Date().toISOString().slice(11, 23)
}

/** `12:00:01.234 CALLBACK POST <url> 200 trackId=… status=paid delivery=dlv_… attempt=1/4 3.2ms delivered` */
function attemptLine(d: Delivery, status: number | undefined, error: string | undefined, durationMs: number): string {
  const last = d.attempts.at(-1)
  const parts = [clock(), 'CALLBACK', 'POST', d.url, status !== undefined ? String(status) : '---']
  parts.push(`trackId=${d.trackId}`)
  const reported = reportedStatus(d)
  if (reported) parts.push(`status=${reported}`)
  parts.push(`delivery=${d.id}`)
  if (d.replayOf) parts.push(`replayOf=${d.replayOf}`)
  parts.push(`attempt=${last?.attempt ?? '?'}/${d.maxRetries + 1}`)
  parts.push(`${durationMs.toFixed(1)}ms`)
  if (d.state === 'delivered') parts.push('delivered')
  else if (d.state === 'failed') parts.push(`failed: ${error ?? 'not delivered'}; no retries left`)
  else {
    const wait = d.nextAttemptAt ? Math.max(0, Date.parse(d.nextAttemptAt) - Date.now()) : 0
    parts.push(`${error ?? 'not delivered'}; retry in ${formatDuration(wait)}`)
  }
  return parts.join(' ')
}
