import type { FastifyInstance } from 'fastify'
import { ASSET_CODES } from '../../checkout/assets.js'
import { checkoutPage, notFoundPage } from '../../checkout/checkout-page.js'
import { pageHeaders } from '../../pages/layout.js'
import { type CheckoutStatus, checkoutStatus } from '../../checkout/status.js'
import type { ChainService } from '../../chain/service.js'
import type { SandboxClock } from '../../clock/sandbox-clock.js'
import { callbackField } from '../../domain/fault.js'
import { SandboxError } from '../../domain/outcomes.js'
import { isFinal, outcomes, paymentStatuses } from '../../domain/payment.js'
import type { Payment } from '../../domain/types.js'
import type { ExpiryWatch } from '../../service/expiry.js'
import type { WireProvider } from '../../http/type-provider.js'
import type { Agree, Answer, Check } from '../../http/wire.js'
import type { PaymentListener, SandboxService } from '../../service/sandbox.js'
import { callbackModeSchema, GUARD_REFUSALS, json, media, noQuery, replies } from '../../http/schemas.js'
import { type EventStream, EventStreams } from '../../http/sse.js'

const tags = ['Checkout page']

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
    status: { type: 'string', enum: paymentStatuses },
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
type _CheckoutStatus = Check<Agree<Answer<typeof statusResponse>, CheckoutStatus>>

/** Open event streams by trackId; told of every change by the service. */
class StatusStreams implements PaymentListener {
  private readonly streams = new Map<string, Set<EventStream>>()

  constructor(private readonly send: (stream: EventStream, payment: Payment) => void) {}

  add(trackId: string, stream: EventStream): void {
    let set = this.streams.get(trackId)
    if (!set) this.streams.set(trackId, (set = new Set()))
    set.add(stream)
  }

  remove(trackId: string, stream: EventStream): void {
    const set = this.streams.get(trackId)
    set?.delete(stream)
    if (set?.size === 0) this.streams.delete(trackId)
  }

  paymentChanged(payment: Payment): void {
    for (const stream of this.streams.get(payment.trackId) ?? []) {
      this.send(stream, payment)
      // A final state never changes again: nothing more will be sent.
      if (isFinal(payment.status)) stream.end()
    }
  }
}

/** The hosted checkout page, its status endpoint and event stream, and its sandbox controls. */
export function checkoutRoutes(service: SandboxService, context?: CheckoutContext) {
  return async function (fastify: FastifyInstance): Promise<void> {
    const app = fastify.withTypeProvider<WireProvider>()
    const events = new EventStreams()
    const statusOf = (payment: Payment) => checkoutStatus(payment, details(payment))
    const details = (payment: Payment) => ({
      ...(context?.expiry && payment.status === 'pending' ? { expiresAt: context.expiry.deadline(payment) } : {}),
      ...(context && payment.status === 'unfinalized' ? { confirmationsRequired: payment.confirmationsRequired ?? context.chain.required(payment.asset) } : {}),
    })
    const sendStatus = (stream: EventStream, payment: Payment): boolean => stream.send('status', statusOf(payment))
    const streams = new StatusStreams(sendStatus)
    const clockView = () => context?.clock.view()
    const unsubscribe = service.onPaymentChanged(streams)
    // Event streams never go idle, so they must be ended before the server can finish closing.
    app.addHook('preClose', async () => events.closeAll('shutdown', { stopping: true }))
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

    app.get(
      '/pay/:trackId',
      {
        schema: {
          tags,
          summary: 'The hosted checkout page',
          params: pageParams,
          querystring: pageQuery,
          response: replies('GET', { 200: media('the page', 'text/html') }, ['invalidBody', 'notFound'], { html: [...GUARD_REFUSALS, 'notFound'] }),
        },
        config: { page: true },
      },
      async (request, reply) => {
        const payment = findPayment(request.params.trackId)
        if (!payment) return reply.code(404).headers(pageHeaders(undefined)).send(notFoundPage(request.params.trackId))
        request.outcome = { trackId: payment.trackId }
        const clock = clockView()
        const page = await checkoutPage({
          payment,
          merchantName: merchantName(payment.merchant),
          ...(request.query.asset !== undefined ? { asset: request.query.asset } : {}),
          ...details(payment),
          ...(clock ? { clock } : {}),
        })
        return reply.headers(pageHeaders('checkout')).send(page)
      },
    )

    app.get(
      '/pay/:trackId/status',
      {
        schema: {
          tags,
          summary: 'The payment as the checkout page shows it',
          params: pageParams,
          querystring: noQuery,
          response: replies('GET', { 200: json('its status', statusResponse) }, ['invalidBody', 'notFound']),
        },
      },
      async (request, reply) => {
        const status = statusOf(service.requirePayment(request.params.trackId))
        return reply.header('cache-control', 'no-store').send(status)
      },
    )

    const eventsSchema = {
      tags,
      summary: 'Server-sent events: `status` with the payment as /status gives it, at once and on every change; ends at a final state',
      params: pageParams,
      querystring: noQuery,
      response: replies('GET', { 200: media('an event stream', 'text/event-stream') }, ['invalidBody', 'notFound']),
    }
    app.get('/pay/:trackId/events', { schema: eventsSchema }, async (request, reply) => {
      const payment = service.requirePayment(request.params.trackId)
      const stream: EventStream = events.open(reply, () => streams.remove(payment.trackId, stream))
      sendStatus(stream, payment)
      if (isFinal(payment.status)) return stream.end()
      streams.add(payment.trackId, stream)
    })

    app.post(
      '/pay/:trackId/simulate',
      {
        schema: {
          tags,
          summary: 'The checkout page\'s "Simulate payment" buttons',
          params: pageParams,
          body: checkoutSimulateBody,
          response: replies('POST', { 200: json('the payment after the move', statusResponse) }, ['invalidBody', 'invalidField', 'notFound', 'invalidTransition', 'storageUnavailable']),
        },
      },
      async (request) => {
        request.outcome = { trackId: request.params.trackId }
        const { callback, ...rest } = request.body
        const payment = await service.simulate(request.params.trackId, { ...rest, ...callbackField(callback), source: 'checkout' })
        return statusOf(payment)
      },
    )
  }
}
