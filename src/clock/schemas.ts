/** The clock's route schemas, and the types of its answers read from them. */

import { CLOCK_LATEST } from '../domain/clock-range.js'
import { MAX_DURATION_MS } from '../domain/duration.js'
import type { Answer } from '../http/wire.js'

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
export type ClockView = Answer<typeof clockViewSchema>

export const clockChange = {
  type: 'object',
  properties: {
    clock: clockViewSchema,
    fired: { type: 'integer', description: 'Timers the move made due and fired (retries, expiries, blocks).' },
  },
  required: ['clock', 'fired'],
  additionalProperties: false,
} as const
export type ClockChange = Answer<typeof clockChange>

export const advanceBody = {
  type: 'object',
  properties: { ms: { type: 'integer', minimum: 1, maximum: MAX_DURATION_MS, description: `How far to move the clock forward, in ms; the clock goes no later than ${CLOCK_LATEST}.` } },
  required: ['ms'],
  additionalProperties: false,
} as const

export const setBody = {
  type: 'object',
  properties: { time: { type: 'string', minLength: 1, maxLength: 100, description: `The time to move to (ISO 8601); never earlier than the sandbox time, never later than ${CLOCK_LATEST}.` } },
  required: ['time'],
  additionalProperties: false,
} as const
