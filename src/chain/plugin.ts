import type { FastifyInstance } from 'fastify'
import { json, noQuery, replies } from '../http/schemas.js'
import { MAX_BLOCKS_PER_MINE } from './rules.js'
import type { ChainService } from './service.js'

const chainView = {
  type: 'object',
  properties: {
    confirmations: { type: 'object', additionalProperties: { type: 'integer' }, description: 'Confirmations needed, per asset.' },
    blockTimeMs: { type: 'integer', description: 'A block is mined this often on the sandbox clock.' },
    height: { type: 'integer', description: 'Blocks mined since the sandbox started.' },
    unfinalized: { type: 'integer', description: 'Payments waiting for confirmations.' },
  },
  required: ['confirmations', 'height', 'unfinalized'],
  additionalProperties: false,
} as const

const mineBody = {
  type: 'object',
  properties: { blocks: { type: 'integer', minimum: 1, maximum: MAX_BLOCKS_PER_MINE, default: 1, description: 'Blocks to mine.' } },
  additionalProperties: false,
} as const

const mineResult = {
  type: 'object',
  properties: {
    blocks: { type: 'integer' },
    height: { type: 'integer' },
    payments: {
      type: 'array',
      description: 'Payments the blocks confirmed further; status paid once they had enough.',
      items: {
        type: 'object',
        properties: {
          trackId: { type: 'string' },
          status: { type: 'string' },
          confirmations: { type: 'integer' },
          confirmationsRequired: { type: 'integer' },
        },
        required: ['trackId', 'status', 'confirmations', 'confirmationsRequired'],
        additionalProperties: false,
      },
    },
  },
  required: ['blocks', 'height', 'payments'],
  additionalProperties: false,
} as const

const tags = ['Lab']

/** The sandbox chain under /_sandbox/chain: its settings, and mining blocks. */
export function chainPlugin(chain: ChainService) {
  return async function (app: FastifyInstance): Promise<void> {
    app.get(
      '/_sandbox/chain',
      { schema: { tags, summary: 'Confirmations needed per asset, and payments confirming', querystring: noQuery, response: replies('GET', { 200: json('the chain', chainView) }) } },
      async () => chain.view(),
    )

    app.post<{ Body: { blocks: number } }>(
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
