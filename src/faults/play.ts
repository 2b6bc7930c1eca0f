import type { FastifyReply, FastifyRequest } from 'fastify'
import { type ApiFault, DEFAULT_RETRY_AFTER_S, effectOf, type FaultedRoute, type FaultRule, type FaultTarget } from '../domain/api-fault.js'
import { describeHit, type FaultHit, type HitEnd, orderDigest } from '../domain/api-fault-hit.js'
import { API_FAULTS } from '../domain/api-fault.js'
import type { ModeLike } from '../domain/mode-table.js'
import { keyHint } from '../domain/verify-journal.js'
import type { Store } from '../store/store.js'
import { faultError, faultPage, proxyPage } from './answers.js'

/**
 * Plays one fault on one request: answers it in place of the route (or, `after`, in place of the route's answer),
 * holds it, or resets its connection, and records what was done, how it ended and how long the client waited.
 */

/** What the plugin gives a play: how to record a hit, log a request that got no answer, and hold requests open. */
export interface PlayContext {
  record(hit: FaultHit): void
  /** The request log's entry for a request that ended with no answer (absent without a log). */
  logUnanswered?(request: FastifyRequest, ms: number): void
  /** Open holds and delays: each is released (a hold closed, a delay cut short) when the sandbox stops. */
  holds: Set<() => void>
  holdMaxMs: number
  /** Open holds and delays at most: past it, a request is closed at once (a timeout) or answered at once (a delay). */
  heldMax: number
}

/** The payments and merchants a request is about, looked up in the durable state. */
type Lookup = Pick<Store, 'getMerchant' | 'getPayment'>

/** A request's route facts, for the rules (target) and for the record (details). */
export function aboutRequest(route: FaultedRoute, request: FastifyRequest, store: Lookup): { target: FaultTarget; details: Partial<FaultHit> } {
  if (route === 'checkout') {
    const trackId = (request.params as { trackId?: string }).trackId ?? ''
    const payment = store.getPayment(trackId)
    return {
      target: { route, trackId, ...(payment ? { merchant: payment.merchant } : {}) },
      details: { trackId: trackId.slice(0, 200), ...(payment ? { merchant: payment.merchant, status: payment.status } : {}) },
    }
  }
  const body = (request.body ?? {}) as Record<string, unknown>
  const key = body.merchant
  const known = typeof key === 'string' && store.getMerchant(key) !== undefined
  const who: Partial<FaultHit> = known ? { merchant: key } : { keyHint: keyHint(key) }
  const target: FaultTarget = { route, ...(typeof key === 'string' ? { merchant: key } : {}) }
  if (route === 'create') return { target, details: { ...who, order: orderDigest(body) } }
  const trackId = typeof body.trackId === 'string' && body.trackId !== '' ? body.trackId : undefined
  const payment = trackId === undefined ? undefined : store.getPayment(trackId)
  return {
    target: { ...target, ...(trackId !== undefined ? { trackId } : {}) },
    details: {
      ...who,
      ...(trackId !== undefined ? { trackId: trackId.slice(0, 200) } : {}),
      ...(payment ? { status: payment.status, owner: known && key === payment.merchant } : {}),
    },
  }
}

export class Play {
  private readonly effect
  private done = false

  constructor(
    /** When the request reached the route (performance.now()): the client's wait is counted from it. */
    private readonly started: number,
    readonly route: FaultedRoute,
    readonly rule: FaultRule,
    readonly fault: ApiFault,
    private readonly at: string,
    private readonly details: Partial<FaultHit>,
    private readonly context: PlayContext,
  ) {
    this.effect = effectOf(fault)
  }

  /** The fault plays once the route has answered (a create with `after`). */
  get after(): boolean {
    return this.rule.after === true
  }

  /** Plays the fault before the route runs. Resolves once the request may go on to the route (a delay), or is over. */
  async before(request: FastifyRequest, reply: FastifyReply): Promise<'go-on' | 'over'> {
    if (this.effect.answer) {
      this.answer(request, reply)
      return 'over'
    }
    if (this.effect.waits) {
      const end = await this.wait(reply, (this.fault as { delayMs?: number }).delayMs ?? 0)
      if (end === 'client-closed') {
        reply.hijack()
        this.finish(request, 'client-closed', true)
        return 'over'
      }
      return 'go-on'
    }
    reply.hijack()
    await this.silence(request, reply)
    return 'over'
  }

  /** Plays the fault on the route's answer (`after`), or records a delay's answer; resolves with the payload to send. */
  async onSend(request: FastifyRequest, reply: FastifyReply, payload: unknown): Promise<unknown> {
    if (!this.after) {
      // A delay: the real answer, late.
      this.finish(request, 'answered')
      return payload
    }
    const made = request.outcome?.trackId
    if (made !== undefined) this.details.trackId = made
    this.details.after = true
    if (this.effect.answer) return this.answer(request, reply)
    await this.silence(request, reply)
    // The socket is gone: Fastify writes this to nothing.
    return payload
  }

  /** Sends the fault's answer (or, from onSend, sets it up and returns its body). */
  private answer(request: FastifyRequest, reply: FastifyReply): string {
    const status = (this.fault as { status: number }).status
    const spec = this.route !== 'checkout'
    const seconds = this.effect.retryAfter ? (this.rule.seconds ?? DEFAULT_RETRY_AFTER_S) : undefined
    let headers: Record<string, string>
    let body: string
    if (this.effect.answer === 'html') {
      ;({ headers, body } = proxyPage(status))
    } else if (spec) {
      const error = faultError(status, this.rule.id, true)
      headers = { 'content-type': 'application/json; charset=utf-8' }
      body = JSON.stringify(error)
      request.outcome = { ...request.outcome, result: status, error: String(error.error) }
    } else {
      ;({ headers, body } = faultPage(status, this.rule.id))
    }
    if (this.effect.answer === 'html' && request.outcome) delete request.outcome.result
    if (seconds !== undefined) {
      headers['retry-after'] = String(seconds)
      this.details.retryAfter = seconds
    }
    headers['x-pay-sandbox-fault'] = this.rule.id
    reply.code(status).headers(headers)
    this.finish(request, 'answered')
    if (!this.after) reply.send(body)
    return body
  }

  /** No answer: the connection is reset at once, or held until the client gives up (or the bound, or a stop). */
  private async silence(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const socket = request.raw.socket
    if (this.effect.resets) {
      socket.resetAndDestroy()
      this.finish(request, 'sandbox-closed', true)
      return
    }
    const end = await this.hold(reply)
    this.finish(request, end, true)
  }

  /** Holds the request open until its client closes it, or closes it at the bound or when the sandbox stops. */
  private hold(reply: FastifyReply): Promise<HitEnd> {
    return new Promise((resolve) => {
      const socket = reply.request.raw.socket
      const end = (how: HitEnd) => {
        clearTimeout(timer)
        reply.raw.off('close', closed)
        this.context.holds.delete(release)
        if (how === 'sandbox-closed') socket.destroy()
        resolve(how)
      }
      const closed = () => end('client-closed')
      const release = () => end('sandbox-closed')
      const timer = setTimeout(release, this.context.holdMaxMs)
      if (socket.destroyed) return end('client-closed')
      // Each held request keeps a connection (a descriptor) open: past the bound, it is closed at once.
      if (this.context.holds.size >= this.context.heldMax) return end('sandbox-closed')
      reply.raw.once('close', closed)
      this.context.holds.add(release)
    })
  }

  /** Waits `ms` before the real answer; the client may give up meanwhile, and a stop cuts the wait short. */
  private wait(reply: FastifyReply, ms: number): Promise<'elapsed' | 'client-closed'> {
    return new Promise((resolve) => {
      const end = (how: 'elapsed' | 'client-closed') => {
        clearTimeout(timer)
        reply.raw.off('close', closed)
        this.context.holds.delete(release)
        resolve(how)
      }
      const closed = () => end('client-closed')
      const release = () => end('elapsed')
      const timer = setTimeout(release, ms)
      if (reply.request.raw.socket.destroyed) return end('client-closed')
      // Past the bound of requests kept open, the real answer goes at once.
      if (this.context.holds.size >= this.context.heldMax) return end('elapsed')
      reply.raw.once('close', closed)
      this.context.holds.add(release)
    })
  }

  /** Records the hit once, and says what was done in the request log. */
  private finish(request: FastifyRequest, end: HitEnd, unanswered = false): void {
    if (this.done) return
    this.done = true
    const ms = Math.round((performance.now() - this.started) * 10) / 10
    const hit: FaultHit = {
      rule: this.rule.id,
      route: this.route,
      fault: API_FAULTS.write(this.fault as ModeLike),
      at: this.at,
      ms,
      end,
      ...this.details,
    }
    this.context.record(hit)
    request.fault = describeHit(hit)
    // The request log ties a faulted request to its payment, as it does an answered one.
    if (hit.trackId !== undefined && request.outcome?.trackId === undefined) request.outcome = { ...request.outcome, trackId: hit.trackId }
    if (unanswered) this.context.logUnanswered?.(request, ms)
  }
}
