import type { FastifyInstance } from 'fastify'
import { MAX_DURATION_MS } from '../domain/duration.js'
import { emptyBody } from '../server/schemas.js'
import type { ClockService } from './service.js'

export const clockViewSchema = {
  type: 'object',
  description: 'The sandbox clock.',
  properties: {
    now: { type: 'string', description: 'The sandbox time (ISO 8601).' },
    realNow: { type: 'string', description: 'Real time.' },
    aheadMs: { type: 'integer', description: 'How far the sandbox time is ahead of real time, in ms.' },
    offsetMs: { type: 'number', description: 'The offset added to real time.' },
    holdingUntil: { type: 'string', description: 'Reset while ahead: the time stands still until real time reaches this.' },
    real: { type: 'boolean', description: 'The clock is at real time.' },
  },
  required: ['now', 'realNow', 'aheadMs', 'offsetMs', 'real'],
  additionalProperties: false,
} as const

const clockChange = {
  type: 'object',
  properties: {
    clock: clockViewSchema,
    fired: { type: 'integer', description: 'Timers the move made due and fired (retries, expiries, blocks).' },
  },
  required: ['clock', 'fired'],
  additionalProperties: false,
} as const

const advanceBody = {
  type: 'object',
  properties: { ms: { type: 'integer', minimum: 1, maximum: MAX_DURATION_MS, description: 'How far to move the clock forward, in ms.' } },
  required: ['ms'],
  additionalProperties: false,
} as const

const setBody = {
  type: 'object',
  properties: { time: { type: 'string', minLength: 1, maxLength: 100, description: 'The time to move to (ISO 8601); never earlier than the sandbox time.' } },
  required: ['time'],
  additionalProperties: false,
} as const


/** The sandbox clock under /_sandbox/clock: show, advance, set, reset. */
export function clockPlugin(clock: ClockService) {
  return async function (app: FastifyInstance): Promise<void> {
    app.get('/_sandbox/clock', { schema: { response: { 200: clockViewSchema } } }, async () => clock.view())

    app.post<{ Body: { ms: number } }>(
      '/_sandbox/clock/advance',
      { schema: { body: advanceBody, response: { 200: clockChange } } },
      async (request) => clock.advance(request.body.ms),
    )

    app.post<{ Body: { time: string } }>(
      '/_sandbox/clock/set',
      { schema: { body: setBody, response: { 200: clockChange } } },
      async (request) => clock.set(request.body.time),
    )

    app.post('/_sandbox/clock/reset', { schema: { body: emptyBody, response: { 200: clockChange } } }, async () => clock.reset())
  }
}
