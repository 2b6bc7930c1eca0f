import type { FastifyInstance } from 'fastify'
import { callbackField } from '../../domain/fault.js'
import type { SandboxService } from '../../service/sandbox.js'
import type { ClockView } from '../../clock/sandbox-clock.js'
import type { WireProvider } from '../../http/type-provider.js'
import type { SandboxInfo } from '../../http/info.js'
import {
  createMerchantBody,
  emptyBody,
  healthResponse,
  json,
  keyParams,
  many,
  noQuery,
  one,
  paymentDetail,
  paymentListQuery,
  replies,
  simulateBody,
  trackIdParams,
} from '../../http/schemas.js'

const tags = ['Control API']

/** The control API the CLI and scripts use, under /_sandbox. Errors are 4xx `{statusCode, error, message}`. */
export function sandboxRoutes(service: SandboxService, info: () => SandboxInfo, clock?: () => ClockView) {
  return async function (fastify: FastifyInstance): Promise<void> {
    const app = fastify.withTypeProvider<WireProvider>()
    app.get(
      '/_sandbox/health',
      { schema: { tags, summary: 'Whether the sandbox runs, and what it holds', querystring: noQuery, response: replies('GET', { 200: json('running', healthResponse) }) } },
      async () => ({ ok: true as const, ...info(), counts: service.store.counts(), store: await service.store.describe(), ...(clock ? { clock: clock() } : {}) }),
    )

    app.get(
      '/_sandbox/merchants',
      { schema: { tags, summary: 'Merchants and their keys', querystring: noQuery, response: replies('GET', { 200: json('every merchant', many('merchants', 'Merchant')) }) } },
      async () => ({ merchants: service.listMerchants() }),
    )

    app.post(
      '/_sandbox/merchants',
      {
        schema: {
          tags,
          summary: 'Create a merchant (a random sandbox_… key unless given)',
          body: createMerchantBody,
          response: replies('POST', { 201: json('created', one('merchant', 'Merchant')) }, ['invalidBody', 'invalidField', 'conflict', 'storageUnavailable']),
        },
      },
      async (request, reply) => {
        const merchant = await service.createMerchant(request.body)
        return reply.code(201).send({ merchant })
      },
    )

    for (const action of ['enable', 'disable'] as const) {
      app.post(
        `/_sandbox/merchants/:key/${action}`,
        {
          schema: {
            tags,
            summary: action === 'enable' ? 'Enable a merchant' : 'Disable a merchant: create and verify then answer 103 for its key',
            params: keyParams,
            body: emptyBody,
            response: replies('POST', { 200: json('the merchant now', one('merchant', 'Merchant')) }, ['invalidBody', 'notFound', 'storageUnavailable']),
          },
        },
        async (request) => ({ merchant: await service.setMerchantEnabled(request.params.key, action === 'enable') }),
      )
    }

    app.get(
      '/_sandbox/payments',
      {
        schema: {
          tags,
          summary: 'Payments, oldest first (limit: the newest N)',
          querystring: paymentListQuery,
          response: replies('GET', { 200: json('the payments', many('payments', 'Payment')) }, ['invalidBody']),
        },
      },
      async (request) => ({ payments: service.listPayments(request.query) }),
    )

    app.get(
      '/_sandbox/payments/:trackId',
      {
        schema: {
          tags,
          summary: 'A payment with its state history, callback deliveries and verify calls',
          params: trackIdParams,
          querystring: noQuery,
          response: replies('GET', { 200: json('the payment', paymentDetail) }, ['invalidBody', 'notFound']),
        },
      },
      async (request) => {
        const payment = service.requirePayment(request.params.trackId)
        return { payment, deliveries: service.deliveriesOf(payment.trackId), verifies: service.verifiesOf(payment.trackId) }
      },
    )

    app.post(
      '/_sandbox/payments/:trackId/simulate',
      {
        schema: {
          tags,
          summary: 'Act as the customer: pay, pay without finalizing, or fail; sends the callback',
          params: trackIdParams,
          body: simulateBody,
          response: replies('POST', { 200: json('the payment after the move', one('payment', 'Payment')) }, ['invalidBody', 'invalidField', 'notFound', 'invalidTransition', 'storageUnavailable']),
        },
      },
      async (request) => {
        request.outcome = { trackId: request.params.trackId }
        const { callback, ...rest } = request.body
        const payment = await service.simulate(request.params.trackId, { ...rest, ...callbackField(callback), source: 'control' })
        return { payment }
      },
    )
  }
}

