import { expect, test } from 'vitest'
import { CALLBACK_EVENT, newDelivery, withAttempt } from '../../src/callbacks/delivery.js'
import { resolvePolicy } from '../../src/callbacks/schedule.js'
import type { Delivery } from '../../src/domain/types.js'

const policy = resolvePolicy({ retries: 3, scheduleMs: [1000] })
const made = newDelivery({ id: 'dlv_a', trackId: 't1', url: 'http://127.0.0.1:1/cb', event: CALLBACK_EVENT, body: {}, maxRetries: 3, now: '2026-01-01T12:00:00.000Z' })
const failed = { ok: false, durationMs: 2, error: 'HTTP 500', status: 500 }

test('a wall clock set back does not make updatedAt go before createdAt or the previous updatedAt', () => {
  const hourBack = new Date('2026-01-01T11:00:00.000Z')
  expect(withAttempt(made, failed, hourBack, policy, hourBack).updatedAt).toBe('2026-01-01T12:00:00.000Z')
  const touched = { ...made, updatedAt: '2026-01-01T12:00:05.000Z' }
  const next = withAttempt(touched, failed, hourBack, policy, hourBack)
  expect(next.updatedAt).toBe('2026-01-01T12:00:05.000Z')
  // The due time stays a plain wall-clock time: the wait after now, as the clock reads now.
  expect(next.nextAttemptAt).toBe('2026-01-01T11:00:01.000Z')
  const ahead = new Date('2026-01-01T13:00:00.000Z')
  expect(withAttempt(touched, failed, ahead, policy, ahead).updatedAt).toBe('2026-01-01T13:00:00.000Z')
})

test('stored fields of the wrong type do not throw and do not allow endless retries', () => {
  const odd = { ...made, attempts: 'none', maxRetries: 'many', updatedAt: 'then' } as unknown as Delivery
  const next = withAttempt(odd, failed, new Date('2026-01-01T12:00:01.000Z'), policy, new Date('2026-01-01T12:00:01.000Z'))
  expect(next.attempts).toEqual([expect.objectContaining({ attempt: 1, status: 500 })])
  expect(next).toMatchObject({ state: 'pending', updatedAt: '2026-01-01T12:00:01.000Z' })
  const huge = { ...made, maxRetries: 1e12, attempts: Array.from({ length: 100 }, (_, i) => ({ attempt: i + 1, at: made.createdAt, durationMs: 1 })) }
  expect(withAttempt(huge, failed, new Date(), policy, new Date()).state).toBe('failed')
})
