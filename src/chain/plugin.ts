import type { FastifyInstance } from 'fastify'
import type { WireProvider } from '../http/type-provider.js'
import { json, noQuery, replies } from '../http/schemas.js'
import { chainView, mineBody, mineResult } from './schemas.js'
import type { ChainService } from './service.js'

const tags = ['Lab']

/** The sandbox chain under /_sandbox/chain: its settings, and mining blocks. */
export function chainPlugin(chain: ChainService) {
  return async function (fastify: FastifyInstance): Promise<void> {
    const app = fastify.withTypeProvider<WireProvider>()
    app.get(
      '/_sandbox/chain',
      { schema: { tags, summary: 'Confirmations needed per asset, and payments confirming', querystring: noQuery, response: replies('GET', { 200: json('the chain', chainView) }) } },
      async () => chain.view(),
    )

    app.post(
      '/_sandbox/chain/mine',
      {
        schema: {
          tags,
          summary: 'Mine blocks: one confirmation each for every unfinalized payment; paid once it has enough',
          body: mineBody,
          response: replies('POST', { 200: json('the blocks mined and the payments they confirmed', mineResult) }, ['invalidBody', 'storageUnavailable']),
        },
      },
      async (request) => chain.mine(request.body.blocks),
    )
  }
}
