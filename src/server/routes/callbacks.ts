import type { FastifyInstance } from 'fastify'
import type { CallbackDispatcher } from '../../callbacks/dispatcher.js'
import type { WireProvider } from '../../http/type-provider.js'
import { SandboxError } from '../../domain/outcomes.js'
import type { Store } from '../../store/store.js'
import { deliveryListQuery, idParams, json, many, noQuery, one, refParams, replayBody, replies } from '../../http/schemas.js'

const tags = ['Control API']

/** Callback deliveries under /_sandbox/deliveries: the log, one delivery, replay. */
export function callbackRoutes(store: Store, dispatcher: CallbackDispatcher) {
  return async function (fastify: FastifyInstance): Promise<void> {
    const app = fastify.withTypeProvider<WireProvider>()
    app.get(
      '/_sandbox/deliveries',
      {
        schema: {
          tags,
          summary: 'Callback deliveries, oldest first, with every attempt',
          querystring: deliveryListQuery,
          response: replies('GET', { 200: json('the deliveries', many('deliveries', 'Delivery')) }, ['invalidBody']),
        },
      },
      async (request) => {
        const { trackId, state, limit } = request.query
        let deliveries = store.listDeliveries(trackId !== undefined ? { trackId } : {})
        if (state !== undefined) deliveries = deliveries.filter((d) => d.state === state)
        if (limit !== undefined) deliveries = deliveries.slice(-limit)
        return { deliveries }
      },
    )

    const deliverySchema = {
      tags,
      summary: 'One delivery: the request sent and every attempt',
      params: idParams,
      querystring: noQuery,
      response: replies('GET', { 200: json('the delivery', one('delivery', 'Delivery')) }, ['invalidBody', 'notFound']),
    }
    app.get('/_sandbox/deliveries/:id', { schema: deliverySchema }, async (request) => {
      const delivery = store.getDelivery(request.params.id)
      if (!delivery) throw new SandboxError('notFound', `no delivery with id ${request.params.id}`)
      return { delivery }
    })

    app.post(
      '/_sandbox/deliveries/:ref/replay',
      {
        schema: {
          tags,
          summary: 'Send a delivery\'s body again, once, as a new delivery (ref: a delivery id, or a trackId for its latest)',
          params: refParams,
          body: replayBody,
          response: replies('POST', { 201: json('the replay, with its one attempt', one('delivery', 'Delivery')) }, ['invalidBody', 'notFound', 'storageUnavailable']),
        },
      },
      async (request, reply) => {
        const delivery = await dispatcher.replay(request.params.ref, request.body.to)
        request.outcome = { trackId: delivery.trackId }
        return reply.code(201).send({ delivery })
      },
    )
  }
}
