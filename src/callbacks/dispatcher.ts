import { SandboxClock, type Timer } from '../clock/sandbox-clock.js'
import { REPLAY_URL_MAX } from '../domain/callback.js'
import { type CallbackMode, type ChaosSettings, chaosPick, faultOf, FaultReason, formatCallbackMode, planOf, seededRandom } from '../domain/fault.js'
import { newDeliveryId } from '../domain/ids.js'
import { SandboxError } from '../domain/outcomes.js'
import type { CallbackFaults } from '../domain/settings.js'
import { isFinal } from '../domain/payment.js'
import type { Delivery, DeliveryAttempt, Payment } from '../domain/types.js'
import { isValidUrl } from '../domain/validate.js'
import type { PaymentChange, PaymentListener } from '../service/sandbox.js'
import type { Applied, Change, Store } from '../store/store.js'
import {
  attemptHeaders,
  attemptsOf,
  bodyText,
  CALLBACK_EVENT,
  isHeld,
  isNotified,
  maxAttempts,
  newDelivery,
  nextWait,
  notificationOf,
  replayDelivery,
  reportedStatus,
  withAttempt,
} from './delivery.js'
import { type CallbackPolicy, formatDuration, longestWait, resolvePolicy } from './schedule.js'
import { type SendResult, sendCallback } from './send.js'

export type { CallbackFaults }

export interface DispatcherOptions {
  store: Store
  policy?: Partial<CallbackPolicy>
  faults?: CallbackFaults
  /** One line per attempt; omit for silence. */
  log?: (line: string) => void
  /** Trouble worth seeing even without the request log: a delivery or attempt that could not be recorded. */
  warn?: (line: string) => void
  /** The sandbox clock: times, and the waits between attempts. */
  clock?: SandboxClock
}

/**
 * A delivery still to be attempted. Its schedule lives here, in memory, so that it holds when an attempt cannot
 * be recorded (the store then keeps showing the last durable version of the delivery).
 */
interface Job {
  id: string
  trackId: string
  /** Sandbox time (ms) when the next attempt is due, to put due jobs in line. */
  dueAt: number
  /** Order of creation: among jobs due at the same moment, the older goes first. */
  seq: number
  /** Attempts made whose record failed; they are written with the next record that succeeds. */
  unrecorded: DeliveryAttempt[]
  timer?: Timer
  /** The turn a clock timer started: settled once its attempt is recorded (an advance of the clock waits for it). */
  turn?: { promise: Promise<void>; resolve: () => void }
  /** Held back (reorder) until the payment's next notification has been sent. */
  held?: boolean
}

/**
 * Sends callbacks. Told of each status change, it records a pending delivery in the change's own unit (durable with
 * it, before the API replies), and sends it in the background, retried on network errors, timeouts and non-2xx per
 * the policy. Each delivery goes on its own: a payment's later notification never waits for an earlier one's
 * retries. At most `policy.concurrency` attempts are out at once; due deliveries wait for a free slot, earliest due
 * first.
 *
 * Deliveries are sent by the instance that leads (see Leadership): from `resume()`, which picks up every pending
 * delivery in the store, until `standDown()`. A new delivery is scheduled when it appears in the store's change
 * feed, whichever instance recorded it.
 */
export class CallbackDispatcher implements PaymentListener {
  readonly policy: CallbackPolicy
  readonly faults: Readonly<CallbackFaults>
  private readonly store: Store
  private readonly log: (line: string) => void
  private readonly warn: (line: string) => void
  private readonly clock: SandboxClock
  private readonly random: (() => number) | undefined
  /** Every delivery waiting for its next attempt, waiting for a slot, being sent or being recorded. */
  private readonly jobs = new Map<string, Job>()
  /** Due jobs waiting for a slot, earliest due first. */
  private readonly ready: Job[] = []
  private sending = 0
  private seq = 0
  private drainSoon = false
  /** Attempts out, and whether each is a job's (a replay's is not: its request waits for it). */
  private readonly inflight = new Map<AbortController, { sending: Promise<unknown>; job: boolean }>()
  private readonly watchers = new Set<(delivery: Delivery) => void>()
  /** Sending deliveries: this instance leads. */
  private leading = false
  private stopped = false
  private readonly stopFeed: () => void

  constructor(options: DispatcherOptions) {
    this.store = options.store
    this.policy = resolvePolicy(options.policy)
    this.faults = { ...options.faults }
    this.log = safely(options.log)
    this.warn = safely(options.warn)
    this.clock = options.clock ?? new SandboxClock()
    this.random = options.faults?.chaos ? seededRandom(options.faults.chaos.seed) : undefined
    this.stopFeed = this.store.onApplied((applied) => this.applied(applied))
  }

  private now(): Date {
    return this.clock.now()
  }

  /**
   * PaymentListener: on a change of status, the notification to record in the change's own unit (both are durable,
   * or neither is), with the fault asked for. It is sent once it appears in the store (see `applied`).
   */
  recordWith(payment: Payment, change: PaymentChange): Change[] | undefined {
    if (!isNotified(payment) || change.previous.status === payment.status) return undefined
    const body = notificationOf(payment)
    const delivery = newDelivery({
      id: this.newId(),
      trackId: payment.trackId,
      url: payment.callbackUrl,
      event: CALLBACK_EVENT,
      body: { ...body },
      maxRetries: this.policy.retries,
      now: this.now().toISOString(),
      ...this.faultFor(payment, change.callback),
    })
    return [{ k: 'delivery', v: delivery }]
  }

  /**
   * The store's change feed: watchers see every durable delivery; a new notification, whoever recorded it, is sent
   * as its fault says by the instance that leads. (A replay is sent by the instance that recorded it: its request
   * waits for the attempt.)
   */
  private applied(applied: readonly Applied[]): void {
    for (const { change, before } of applied) {
      if (change.k !== 'delivery') continue
      const delivery = change.v
      for (const watcher of this.watchers) watcher(delivery)
      if (!this.leading || before !== undefined || delivery.replayOf !== undefined || this.jobs.has(delivery.id)) continue
      const job = this.track(delivery)
      if (delivery.state === 'dropped') {
        // Lost on the way: whatever waited for this notification goes now.
        this.forget(job)
        this.releaseHeld(job)
      } else if (delivery.state !== 'pending') {
        this.forget(job)
      } else if (isHeld(delivery)) {
        job.held = true
      } else {
        this.schedule(job, planOf(delivery.fault).waitMs)
      }
    }
  }

  /** The fault a new notification gets: the one asked for, else chaos's pick, else the sandbox's default. */
  private faultFor(payment: Payment, requested: CallbackMode | undefined): { fault?: NonNullable<Delivery['fault']> } {
    const final = isFinal(payment.status)
    let mode: CallbackMode | undefined
    let reason: string = FaultReason.requested
    if (requested !== undefined) mode = requested
    else {
      if (this.random && this.faults.chaos) {
        const pick = chaosPick(this.random, this.faults.chaos.rate, final)
        if (pick.mode !== 'send') {
          mode = pick
          reason = FaultReason.chaos(this.faults.chaos.seed)
        }
      }
      if (mode === undefined && this.faults.mode !== undefined) {
        mode = this.faults.mode
        reason = FaultReason.sandboxDefault
      }
    }
    // A final payment has no next notification to wait for: held, it would never go.
    if (mode === undefined || (planOf(mode).held && final)) return {}
    const fault = faultOf(mode, reason)
    return fault ? { fault } : {}
  }

  /** PaymentListener: after a reset or import, notifications held for a payment that is gone are let go. */
  paymentsReplaced(): void {
    for (const job of this.jobs.values()) if (job.held && !this.store.latest.getDelivery(job.id)) this.forget(job)
  }

  /**
   * This instance leads: schedules every pending delivery in the store, and each new one from now on. A stored
   * due time may be anywhere (the clock was changed, the file edited): none is put off longer than the policy's
   * longest wait, or a delayed one's delay. A reordered notification stays held unless a later notification of
   * its payment was sent meanwhile.
   */
  resume(): number {
    if (this.stopped) return 0
    this.leading = true
    const now = this.now().getTime()
    const longest = longestWait(this.policy)
    let count = 0
    const deliveries = this.store.listDeliveries()
    const sentLater = new Set<string>()
    // Walking backwards: a held delivery is released when a later one of its payment went out (or was dropped).
    const releasedAt = new Set<string>()
    for (let i = deliveries.length - 1; i >= 0; i--) {
      const d = deliveries[i]!
      if (d.replayOf !== undefined) continue
      if (isHeld(d) && sentLater.has(d.trackId)) releasedAt.add(d.id)
      if (d.state === 'dropped' || attemptsOf(d).length > 0) sentLater.add(d.trackId)
    }
    for (const d of deliveries) {
      if (d.state !== 'pending' || this.jobs.has(d.id)) continue
      const job = this.track(d)
      count++
      if (isHeld(d) && !releasedAt.has(d.id)) {
        job.held = true
        continue
      }
      const cap = attemptsOf(d).length === 0 ? Math.max(longest, planOf(d.fault).waitMs) : longest
      const wait = typeof d.nextAttemptAt === 'string' ? Date.parse(d.nextAttemptAt) - now : 0
      this.schedule(job, Number.isFinite(wait) ? Math.min(Math.max(wait, 0), cap) : 0)
    }
    return count
  }

  /**
   * Sends a recorded delivery's body again, once, to its URL or `to`, as a new delivery with `replayOf`.
   * `ref` is a delivery id, or a trackId meaning that payment's latest delivery. Resolves after the attempt.
   * A replay does not wait for a slot: the request that asked for it is waiting, and holds the one socket it adds.
   */
  async replay(ref: string, to?: string): Promise<Delivery> {
    const original = this.findForReplay(ref)
    if (to !== undefined) checkUrl(to)
    const delivery = replayDelivery(original, { id: this.newId(), ...(to !== undefined ? { url: to } : {}), now: this.now().toISOString() })
    await this.put(delivery)
    if (this.stopped) return delivery
    const sent = await this.send(delivery, false)
    if (!sent) return delivery
    const next = this.settle(delivery, sent)
    // A failed record answers the request with the store's error; the replay stays pending and goes out again
    // after a restart.
    await this.put(next)
    return next
  }

  /**
   * Another instance leads now: cancels waiting retries and aborts attempts in flight; their deliveries stay
   * pending, for the leader to send.
   */
  async standDown(): Promise<void> {
    this.leading = false
    for (const job of this.jobs.values()) {
      job.timer?.cancel()
      job.turn?.resolve()
    }
    this.jobs.clear()
    this.ready.length = 0
    const jobs = [...this.inflight].filter(([, attempt]) => attempt.job)
    for (const [controller] of jobs) controller.abort()
    await Promise.allSettled(jobs.map(([, attempt]) => attempt.sending))
  }

  /** Cancels waiting retries and aborts attempts in flight; their deliveries stay pending for the next start. */
  async stop(): Promise<void> {
    this.stopped = true
    this.stopFeed()
    for (const controller of this.inflight.keys()) controller.abort()
    await this.standDown()
    await Promise.allSettled([...this.inflight.values()].map((attempt) => attempt.sending))
  }

  /** Calls `watcher` with every delivery once it is durable (made, attempted, replayed); the returned function stops it. */
  onDeliveryChanged(watcher: (delivery: Delivery) => void): () => void {
    this.watchers.add(watcher)
    return () => this.watchers.delete(watcher)
  }

  /** Writes the delivery; watchers see it in the change feed once durable. */
  private put(delivery: Delivery): Promise<void> {
    return this.store.putDelivery(delivery)
  }

  private newId(): string {
    let id = newDeliveryId()
    while (this.store.latest.getDelivery(id)) id = newDeliveryId()
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

  private track(d: Pick<Delivery, 'id' | 'trackId'>): Job {
    const job: Job = { id: d.id, trackId: d.trackId, dueAt: 0, seq: this.seq++, unrecorded: [] }
    this.jobs.set(d.id, job)
    return job
  }

  private forget(job: Job): void {
    job.timer?.cancel()
    job.turn?.resolve()
    this.jobs.delete(job.id)
  }

  /** The payment's notifications held back for a later one than `after`: they go now, oldest first. */
  private releaseHeld(after: Job): void {
    for (const job of this.jobs.values()) {
      if (!job.held || job.trackId !== after.trackId || job.seq > after.seq) continue
      job.held = false
      this.schedule(job, 0)
    }
  }

  /**
   * Makes the job due `wait` ms from now on the sandbox clock's timers: a wall clock set back does not delay it,
   * and advancing the sandbox clock past it sends it at once.
   */
  private schedule(job: Job, wait: number): void {
    job.dueAt = this.clock.nowMs() + wait
    if (wait <= 0) {
      this.line(job)
      // setImmediate: the API reply that caused this goes out first.
      if (!this.drainSoon) {
        this.drainSoon = true
        setImmediate(() => {
          this.drainSoon = false
          this.drain()
        })
      }
      return
    }
    job.timer = this.clock.after(wait, () => {
      job.timer = undefined
      let resolve!: () => void
      const promise = new Promise<void>((r) => (resolve = r))
      job.turn = { promise, resolve }
      this.line(job)
      this.drain()
      return promise
    })
  }

  /** Puts a due job in line, by due time and then by age. */
  private line(job: Job): void {
    let low = 0
    let high = this.ready.length
    while (low < high) {
      const mid = (low + high) >>> 1
      const other = this.ready[mid]!
      if (other.dueAt < job.dueAt || (other.dueAt === job.dueAt && other.seq < job.seq)) low = mid + 1
      else high = mid
    }
    this.ready.splice(low, 0, job)
  }

  /** Starts due jobs while slots are free. */
  private drain(): void {
    while (this.leading && this.sending < this.policy.concurrency) {
      const job = this.ready.shift()
      if (!job) return
      this.sending++
      void this.run(job)
    }
  }

  /** One attempt of a job, its record, and its next turn. Never rejects: stored data can hold anything. */
  private async run(job: Job): Promise<void> {
    let slot = true
    const release = () => {
      if (!slot) return
      slot = false
      this.sending--
      this.drain()
    }
    const turn = job.turn
    job.turn = undefined
    try {
      const stored = this.store.getDelivery(job.id)
      if (!stored || stored.state !== 'pending') return this.forget(job)
      const recorded = attemptsOf(stored).length
      const current = job.unrecorded.length > 0 ? { ...stored, attempts: [...attemptsOf(stored), ...job.unrecorded] } : stored
      const sent = await this.send(current, true)
      // The slot bounds sockets; the record that follows needs none.
      release()
      // Aborted: the sandbox is stopping (or another instance leads now), and the delivery stays pending.
      if (!sent) return
      // Gone or settled while the attempt was out: the sandbox was reset or its state replaced (perhaps not yet
      // durably: a pending reset counts, so the delivery is not written back).
      const latest = this.store.latest.getDelivery(job.id)
      if (!latest || latest.state !== 'pending') return this.forget(job)
      const next = this.settle(current, sent)
      if (await this.record(next)) job.unrecorded = []
      else job.unrecorded = attemptsOf(next).slice(recorded)
      if (!this.leading) return
      // Its first attempt is out: notifications of the payment held back for a later one go now.
      if (recorded === 0 && current.replayOf === undefined) this.releaseHeld(job)
      // Done in memory even if not on disk: an unrecorded delivery stays pending there and resumes at next start.
      if (next.state !== 'pending') return this.forget(job)
      this.schedule(job, nextWait(next, this.policy))
    } catch (error) {
      this.forget(job)
      this.warn(`${clock()} CALLBACK ${shown(job.id)} dropped until the next start: ${messageOf(error)}`)
    } finally {
      release()
      turn?.resolve()
    }
  }

  /**
   * Sends the next attempt of `delivery` (a job's, or a replay's); undefined when aborted because the sandbox is
   * stopping, or, for a job, because another instance leads now.
   */
  private async send(delivery: Delivery, job: boolean): Promise<{ result: SendResult; startedAt: Date } | undefined> {
    const controller = new AbortController()
    const startedAt = this.now()
    const sending = sendCallback({
      url: delivery.url,
      body: bodyText(delivery),
      headers: attemptHeaders(delivery, attemptsOf(delivery).length + 1),
      timeoutMs: this.policy.timeoutMs,
      signal: controller.signal,
    })
    this.inflight.set(controller, { sending, job })
    try {
      const result = await sending
      return result.aborted ? undefined : { result, startedAt }
    } finally {
      this.inflight.delete(controller)
    }
  }

  /** The delivery with the attempt added, logged. */
  private settle(delivery: Delivery, sent: { result: SendResult; startedAt: Date }): Delivery {
    const next = withAttempt(delivery, sent.result, sent.startedAt, this.policy, this.now())
    this.log(attemptLine(next, sent.result, maxAttempts(next, this.policy), nextWait(next, this.policy)))
    return next
  }

  /** Writes the delivery; false (and a warning) when it cannot be recorded. */
  private async record(next: Delivery): Promise<boolean> {
    try {
      await this.put(next)
      return true
    } catch (error) {
      const number = attemptsOf(next).length
      const then =
        next.state === 'pending'
          ? `the next attempt follows the schedule (in ${formatDuration(nextWait(next, this.policy))})`
          : `no further attempt until the next start, where it resumes as pending`
      this.warn(`${clock()} CALLBACK ${shown(next.id)} attempt ${number} not recorded: ${messageOf(error)}; ${then}`)
      return false
    }
  }
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
function attemptLine(d: Delivery, result: SendResult, attempts: number, wait: number): string {
  const last = attemptsOf(d).at(-1)
  const parts = [clock(), 'CALLBACK', 'POST', shown(d.url), result.status !== undefined ? String(result.status) : '---']
  parts.push(`trackId=${shown(d.trackId)}`)
  const reported = reportedStatus(d)
  if (reported) parts.push(`status=${shown(reported)}`)
  parts.push(`delivery=${shown(d.id)}`)
  if (d.replayOf) parts.push(`replayOf=${shown(d.replayOf)}`)
  parts.push(`attempt=${last?.attempt ?? '?'}/${attempts}`)
  if (d.fault) parts.push(`fault=${shown(formatCallbackMode(d.fault))}`)
  parts.push(`${result.durationMs.toFixed(1)}ms`)
  const error = result.error ?? 'not delivered'
  if (d.state === 'delivered') parts.push('delivered')
  else if (d.state === 'failed') parts.push(`failed: ${error}; no retries left`)
  else parts.push(`${error}; retry in ${formatDuration(wait)}`)
  return parts.join(' ')
}

/** Stored text as it can go on a console line: quoted when it holds control characters or is not text. */
function shown(value: unknown): string {
  return typeof value === 'string' && !/[\u0000-\u001f\u007f]/.test(value) ? value : JSON.stringify(value) ?? String(value)
}

/** A console sink that cannot throw into the dispatcher: a line that cannot be written is dropped. */
function safely(sink: ((line: string) => void) | undefined): (line: string) => void {
  return (line) => {
    try {
      sink?.(line)
    } catch {
      // Deliveries go on without the console.
    }
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}
