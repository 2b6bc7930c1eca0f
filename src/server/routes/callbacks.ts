import type { FastifyInstance } from 'fastify'
import type { CallbackDispatcher } from '../../callbacks/dispatcher.js'
import { SandboxError } from '../../domain/outcomes.js'
import type { DeliveryState } from '../../domain/types.js'
import type { Store } from '../../store/store.js'
import { deliveryListQuery, idParams, refParams, replayBody } from '../schemas.js'

/** Callback deliveries under /_sandbox/deliveries: the log, one delivery, replay. */
export function callbackRoutes(store: Store, dispatcher: CallbackDispatcher) {
  return async function (app: FastifyInstance): Promise<void> {
    app.get<{ Querystring: { trackId?: string; state?: DeliveryState; limit?: number } }>(
      '/_sandbox/deliveries',
      { schema: { querystring: deliveryListQuery } },
      async (request) => {
        const { trackId, state, limit } = request.query
        let deliveries = store.listDeliveries(trackId !== undefined ? { trackId } : {})
        if (state !== undefined) deliveries = deliveries.filter((d) => d.state === state)
        if (limit !== undefined) deliveries = deliveries.slice(-limit)
        return { deliveries }
      },
    )

    app.get<{ Params: { id: string } }>('/_sandbox/deliveries/:id', { schema: { params: idParams } }, async (request) => {
      const delivery = store.getDelivery(request.params.id)
      if (!delivery) throw new SandboxError('notFound', `no delivery with id ${request.params.id}`)
      return { delivery }
    })

    app.post<{ Params: { ref: string }; Body: { to?: string } }>(
      '/_sandbox/deliveries/:ref/replay',
      { schema: { params: refParams, body: replayBody } },
      async (request, reply) => {
        const delivery = await dispatcher.replay(request.params.ref, request.body.to)
        request.outcome = { trackId: delivery.trackId }
        return reply.code(201).send({ delivery })
      },
    )
  }
}
