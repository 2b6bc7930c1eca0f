import type { ServerResponse } from 'node:http'
import type { FastifyInstance } from 'fastify'
import { ASSET_CODES } from '../../checkout/assets.js'
import { checkoutPage, notFoundPage } from '../../checkout/checkout-page.js'
import { dashboardPage } from '../../checkout/dashboard-page.js'
import { pageHeaders } from '../../checkout/layout.js'
import { checkoutStatus } from '../../checkout/status.js'
import type { ChainService } from '../../chain/service.js'
import type { SandboxClock } from '../../clock/sandbox-clock.js'
import { callbackField } from '../../domain/fault.js'
import { SandboxError } from '../../domain/outcomes.js'
import { isFinal, type Outcome, outcomes, paymentStatuses } from '../../domain/payment.js'
import type { Payment, PaymentStatus } from '../../domain/types.js'
import type { ExpiryWatch } from '../../service/expiry.js'
import type { PaymentListener, SandboxService } from '../../service/sandbox.js'
import { callbackModeSchema } from '../schemas.js'

/** What the pages show beyond the payment: the sandbox clock, the confirmations needed, when a payment expires. */
export interface CheckoutContext {
  clock: SandboxClock
  chain: ChainService
  expiry?: ExpiryWatch
}

const pageParams = {
  type: 'object',
  properties: { trackId: { type: 'string', minLength: 1, maxLength: 512 } },
  required: ['trackId'],
} as const

const pageQuery = {
  type: 'object',
  properties: { asset: { type: 'string', maxLength: 20 } },
} as const

const checkoutSimulateBody = {
  type: 'object',
  properties: {
    outcome: { type: 'string', enum: outcomes },
    amount: { type: 'number' },
    asset: { type: 'string', enum: [...ASSET_CODES] },
    callback: callbackModeSchema,
  },
  required: ['outcome'],
  additionalProperties: false,
} as const

const statusResponse = {
  type: 'object',
  properties: {
    trackId: { type: 'string' },
    status: { type: 'string' },
    final: { type: 'boolean' },
    amount: { type: 'number' },
    paidAmount: { type: 'number' },
    asset: { type: 'string' },
    refNumber: { type: 'string' },
    updatedAt: { type: 'string' },
    returnUrl: { type: 'string' },
    confirmations: { type: 'integer' },
    confirmationsRequired: { type: 'integer' },
    expiresAt: { type: 'string' },
  },
  required: ['trackId', 'status', 'final', 'amount', 'updatedAt'],
} as const

export const DASHBOARD_DEFAULT_LIMIT = 100

const dashboardQuery = {
  type: 'object',
  properties: {
    merchant: { type: 'string', maxLength: 128 },
    status: { type: 'string', enum: ['', ...paymentStatuses] },
    limit: { type: 'integer', minimum: 1, maximum: 1000, default: DASHBOARD_DEFAULT_LIMIT },
  },
  additionalProperties: false,
} as const

/** Interval of SSE comment lines, so proxies and browsers keep an idle stream open. */
const HEARTBEAT_MS = 15_000

/** Open event streams by trackId; told of every change by the service. */
class StatusStreams implements PaymentListener {
  private readonly streams = new Map<string, Set<ServerResponse>>()

  constructor(private readonly send: (res: ServerResponse, payment: Payment) => void) {}

  add(trackId: string, res: ServerResponse): void {
    let set = this.streams.get(trackId)
    if (!set) this.streams.set(trackId, (set = new Set()))
    set.add(res)
  }

  remove(trackId: string, res: ServerResponse): void {
    const set = this.streams.get(trackId)
    set?.delete(res)
    if (set?.size === 0) this.streams.delete(trackId)
  }

  paymentChanged(payment: Payment): void {
    for (const res of this.streams.get(payment.trackId) ?? []) {
      this.send(res, payment)
      // A final state never changes again: nothing more will be sent.
      if (isFinal(payment.status)) res.end()
    }
  }

  /** Ends every stream and its connection: an open stream would hold the server's close for its keep-alive time. */
  closeAll(): void {
    for (const set of this.streams.values()) for (const res of set) res.destroy()
    this.streams.clear()
  }
}

/** The hosted checkout page, its status endpoint and event stream, its sandbox controls, and the dashboard. */
export function checkoutRoutes(service: SandboxService, context?: CheckoutContext) {
  return async function (app: FastifyInstance): Promise<void> {
    const statusOf = (payment: Payment) => checkoutStatus(payment, details(payment))
    const details = (payment: Payment) => ({
      ...(context?.expiry && payment.status === 'pending' ? { expiresAt: context.expiry.deadline(payment) } : {}),
      ...(context && payment.status === 'unfinalized' ? { confirmationsRequired: payment.confirmationsRequired ?? context.chain.required(payment.asset) } : {}),
    })
    const send = (res: ServerResponse, payment: Payment): void => {
      res.write(`event: status\ndata: ${JSON.stringify(statusOf(payment))}\n\n`)
    }
    const streams = new StatusStreams(send)
    const clockView = () => context?.clock.view()
    const unsubscribe = service.onPaymentChanged(streams)
    // Event streams never go idle, so they must be ended before the server can finish closing.
    app.addHook('preClose', async () => streams.closeAll())
    app.addHook('onClose', async () => unsubscribe())

    const findPayment = (trackId: string): Payment | undefined => {
      try {
        return service.requirePayment(trackId)
      } catch (error) {
        if (error instanceof SandboxError && error.kind === 'notFound') return undefined
        throw error
      }
    }
    const merchantName = (key: string): string => service.listMerchants().find((m) => m.key === key)?.name ?? key

    app.get<{ Params: { trackId: string }; Querystring: { asset?: string } }>(
      '/pay/:trackId',
      { schema: { params: pageParams, querystring: pageQuery }, config: { page: true } },
      async (request, reply) => {
        const payment = findPayment(request.params.trackId)
        if (!payment) return reply.code(404).headers(pageHeaders(false)).send(notFoundPage(request.params.trackId))
        request.outcome = { trackId: payment.trackId }
        const clock = clockView()
        const page = await checkoutPage({
          payment,
          merchantName: merchantName(payment.merchant),
          ...(request.query.asset !== undefined ? { asset: request.query.asset } : {}),
          ...details(payment),
          ...(clock ? { clock } : {}),
        })
        return reply.headers(pageHeaders(true)).send(page)
      },
    )

    app.get<{ Params: { trackId: string } }>(
      '/pay/:trackId/status',
      { schema: { params: pageParams, response: { 200: statusResponse } } },
      async (request, reply) => {
        const status = statusOf(service.requirePayment(request.params.trackId))
        return reply.header('cache-control', 'no-store').send(status)
      },
    )

    app.get<{ Params: { trackId: string } }>('/pay/:trackId/events', { schema: { params: pageParams } }, async (request, reply) => {
      const payment = service.requirePayment(request.params.trackId)
      reply.hijack()
      const res = reply.raw
      res.writeHead(200, {
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-store',
        'x-accel-buffering': 'no',
      })
      res.write('retry: 2000\n\n')
      send(res, payment)
      if (isFinal(payment.status)) {
        res.end()
        return
      }
      streams.add(payment.trackId, res)
      const heartbeat = setInterval(() => res.write(': ping\n\n'), HEARTBEAT_MS)
      heartbeat.unref()
      res.on('close', () => {
        clearInterval(heartbeat)
        streams.remove(payment.trackId, res)
      })
    })

    app.post<{ Params: { trackId: string }; Body: { outcome: Outcome; amount?: number; asset?: string; callback?: string } }>(
      '/pay/:trackId/simulate',
      { schema: { params: pageParams, body: checkoutSimulateBody, response: { 200: statusResponse } } },
      async (request) => {
        request.outcome = { trackId: request.params.trackId }
        const { callback, ...rest } = request.body
        const payment = await service.simulate(request.params.trackId, { ...rest, ...callbackField(callback), source: 'checkout' })
        return statusOf(payment)
      },
    )

    app.get<{ Querystring: { merchant?: string; status?: PaymentStatus | ''; limit: number } }>(
      '/dashboard',
      { schema: { querystring: dashboardQuery }, config: { page: true } },
      async (request, reply) => {
        const merchant = request.query.merchant || undefined
        const status = request.query.status || undefined
        const limit = request.query.limit
        const matching = service.listPayments({ ...(merchant ? { merchant } : {}), ...(status ? { status } : {}) })
        const counts = new Map<string, number>()
        for (const p of service.listPayments({})) counts.set(p.merchant, (counts.get(p.merchant) ?? 0) + 1)
        const shown = matching.slice(-limit).reverse()
        const clock = clockView()
        const page = dashboardPage({
          payments: shown,
          matching: matching.length,
          merchants: service.listMerchants(),
          paymentCounts: counts,
          filter: { ...(merchant ? { merchant } : {}), ...(status ? { status } : {}), limit },
          verifies: new Map(shown.map((p) => [p.trackId, service.verifiesOf(p.trackId)])),
          ...(clock ? { clock } : {}),
        })
        return reply.headers(pageHeaders(false)).send(page)
      },
    )
  }
}
