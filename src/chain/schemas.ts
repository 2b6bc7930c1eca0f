/** The chain's route schemas, and the types of its answers read from them. */

import { paymentStatuses } from '../domain/payment.js'
import type { Answer } from '../http/wire.js'
import { MAX_BLOCKS_PER_MINE } from './rules.js'

export const chainView = {
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
export type ChainView = Answer<typeof chainView>

export const mineBody = {
  type: 'object',
  properties: { blocks: { type: 'integer', minimum: 1, maximum: MAX_BLOCKS_PER_MINE, default: 1, description: 'Blocks to mine.' } },
  additionalProperties: false,
} as const

export const mineResult = {
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
          status: { type: 'string', enum: paymentStatuses },
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
export type MineResult = Answer<typeof mineResult>
export type MinedPayment = MineResult['payments'][number]
