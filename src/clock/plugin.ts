import type { FastifyInstance } from 'fastify'
import { CLOCK_LATEST } from '../domain/clock-range.js'
import { MAX_DURATION_MS } from '../domain/duration.js'
import { emptyBody, json, noQuery, replies } from '../http/schemas.js'
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
  properties: { ms: { type: 'integer', minimum: 1, maximum: MAX_DURATION_MS, description: `How far to move the clock forward, in ms; the clock goes no later than ${CLOCK_LATEST}.` } },
  required: ['ms'],
  additionalProperties: false,
} as const

const setBody = {
  type: 'object',
  properties: { time: { type: 'string', minLength: 1, maxLength: 100, description: `The time to move to (ISO 8601); never earlier than the sandbox time, never later than ${CLOCK_LATEST}.` } },
  required: ['time'],
  additionalProperties: false,
} as const


const tags = ['Lab']

/** The sandbox clock under /_sandbox/clock: show, advance, set, reset. */
export function clockPlugin(clock: ClockService) {
  return async function (app: FastifyInstance): Promise<void> {
    app.get(
      '/_sandbox/clock',
      { schema: { tags, summary: 'The sandbox clock', querystring: noQuery, response: replies('GET', { 200: json('the clock', clockViewSchema) }) } },
      async () => clock.view(),
    )

    app.post<{ Body: { ms: number } }>(
      '/_sandbox/clock/advance',
      {
        schema: {
          tags,
          summary: 'Move the clock forward; answers once what became due (retries, delayed notifications, expiries, blocks) has run',
          body: advanceBody,
          response: replies('POST', { 200: json('the clock moved, and how many timers fired', clockChange) }, ['invalidBody', 'invalidField', 'storageUnavailable']),
        },
      },
      async (request) => clock.advance(request.body.ms),
    )

    app.post<{ Body: { time: string } }>(
      '/_sandbox/clock/set',
      {
        schema: {
          tags,
          summary: `Move the clock to a time, never earlier than its own, at most ${CLOCK_LATEST}`,
          body: setBody,
          response: replies('POST', { 200: json('the clock moved, and how many timers fired', clockChange) }, ['invalidBody', 'invalidField', 'storageUnavailable']),
        },
      },
      async (request) => clock.set(request.body.time),
    )

    app.post(
      '/_sandbox/clock/reset',
      {
        schema: {
          tags,
          summary: 'Back to real time (standing still until real time catches up, when it was ahead)',
          body: emptyBody,
          response: replies('POST', { 200: json('the clock now', clockChange) }, ['invalidBody', 'storageUnavailable']),
        },
      },
      async () => clock.reset(),
    )
  }
}
