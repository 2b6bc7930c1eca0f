/** JSON schemas of the routes. Spec bodies are only required to be objects: the spec's own rules answer the rest. */

import { deliveryStates, REPLAY_URL_MAX } from '../domain/callback.js'
import { CALLBACK_MODE_PATTERN, CALLBACK_MODE_RULE } from '../domain/fault.js'
import { assetSchema, outcomes, paymentStatuses } from '../domain/payment.js'

export const anyObject = { type: 'object' } as const

/** Body-less POSTs send `{}` (src/server/guard.ts reads an empty JSON body as {}). */
export const emptyBody = { type: 'object', additionalProperties: false } as const

export const specCreateResponse = {
  type: 'object',
  properties: {
    result: { type: 'integer' },
    trackId: { type: 'string' },
    message: { type: 'string' },
  },
  required: ['result'],
} as const

export const specVerifyResponse = {
  type: 'object',
  properties: {
    result: { type: 'integer' },
    amount: { type: 'number' },
    refNumber: { type: 'string' },
    message: { type: 'string' },
  },
  required: ['result'],
} as const

export const trackIdParams = {
  type: 'object',
  properties: { trackId: { type: 'string', minLength: 1, maxLength: 200 } },
  required: ['trackId'],
} as const

export const keyParams = {
  type: 'object',
  properties: { key: { type: 'string', minLength: 1, maxLength: 200 } },
  required: ['key'],
} as const

export const idParams = {
  type: 'object',
  properties: { id: { type: 'string', minLength: 1, maxLength: 200 } },
  required: ['id'],
} as const

/** What to do with the notification of a change: send, drop, delay=<d>, duplicate=<n>, reorder. */
export const callbackModeSchema = {
  type: 'string',
  maxLength: 40,
  pattern: CALLBACK_MODE_PATTERN,
  description: `What the sandbox does with this change's notification: ${CALLBACK_MODE_RULE}.`,
} as const

export const simulateBody = {
  type: 'object',
  properties: {
    outcome: { type: 'string', enum: outcomes },
    amount: { type: 'number' },
    asset: assetSchema,
    callback: callbackModeSchema,
  },
  required: ['outcome'],
  additionalProperties: false,
} as const

export const createMerchantBody = {
  type: 'object',
  properties: {
    key: { type: 'string' },
    name: { type: 'string' },
  },
  additionalProperties: false,
} as const

export const paymentListQuery = {
  type: 'object',
  properties: {
    status: { type: 'string', enum: paymentStatuses },
    merchant: { type: 'string' },
    limit: { type: 'integer', minimum: 1, maximum: 100000 },
  },
  additionalProperties: false,
} as const

export const deliveryListQuery = {
  type: 'object',
  properties: {
    trackId: { type: 'string', minLength: 1, maxLength: 200 },
    state: { type: 'string', enum: deliveryStates },
    limit: { type: 'integer', minimum: 1, maximum: 100000 },
  },
  additionalProperties: false,
} as const

export const refParams = {
  type: 'object',
  properties: { ref: { type: 'string', minLength: 1, maxLength: 200 } },
  required: ['ref'],
} as const

export const replayBody = {
  type: 'object',
  properties: { to: { type: 'string', minLength: 1, maxLength: REPLAY_URL_MAX } },
  additionalProperties: false,
} as const
