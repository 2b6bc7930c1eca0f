import type { FastifyInstance } from 'fastify'
import { callbackField } from '../../domain/fault.js'
import type { Outcome } from '../../domain/payment.js'
import type { PaymentStatus } from '../../domain/types.js'
import type { SandboxService } from '../../service/sandbox.js'
import type { ClockView } from '../../clock/sandbox-clock.js'
import type { SandboxInfo } from '../info.js'
import {
  createMerchantBody,
  keyParams,
  paymentListQuery,
  simulateBody,
  trackIdParams,
} from '../schemas.js'

/** The control API the CLI and scripts use, under /_sandbox. Errors are 4xx `{statusCode, error, message}`. */
export function sandboxRoutes(service: SandboxService, info: () => SandboxInfo, clock?: () => ClockView) {
  return async function (app: FastifyInstance): Promise<void> {
    app.get('/_sandbox/health', async () => ({ ok: true, ...info(), counts: service.store.counts(), ...(clock ? { clock: clock() } : {}) }))

    app.get('/_sandbox/merchants', async () => ({ merchants: service.listMerchants() }))

    app.post<{ Body: { key?: string; name?: string } }>(
      '/_sandbox/merchants',
      { schema: { body: createMerchantBody } },
      async (request, reply) => {
        const merchant = await service.createMerchant(request.body)
        return reply.code(201).send({ merchant })
      },
    )

    for (const action of ['enable', 'disable'] as const) {
      app.post<{ Params: { key: string } }>(
        `/_sandbox/merchants/:key/${action}`,
        { schema: { params: keyParams } },
        async (request) => ({ merchant: await service.setMerchantEnabled(request.params.key, action === 'enable') }),
      )
    }

    app.get<{ Querystring: { status?: PaymentStatus; merchant?: string; limit?: number } }>(
      '/_sandbox/payments',
      { schema: { querystring: paymentListQuery } },
      async (request) => ({ payments: service.listPayments(request.query) }),
    )

    app.get<{ Params: { trackId: string } }>(
      '/_sandbox/payments/:trackId',
      { schema: { params: trackIdParams } },
      async (request) => {
        const payment = service.requirePayment(request.params.trackId)
        return { payment, deliveries: service.deliveriesOf(payment.trackId), verifies: service.verifiesOf(payment.trackId) }
      },
    )

    app.post<{ Params: { trackId: string }; Body: { outcome: Outcome; amount?: number; asset?: string; callback?: string } }>(
      '/_sandbox/payments/:trackId/simulate',
      { schema: { params: trackIdParams, body: simulateBody } },
      async (request) => {
        request.outcome = { trackId: request.params.trackId }
        const { callback, ...rest } = request.body
        const payment = await service.simulate(request.params.trackId, { ...rest, ...callbackField(callback), source: 'control' })
        return { payment }
      },
    )
  }
}

