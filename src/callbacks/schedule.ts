/** How callbacks are sent: per-attempt timeout, the waits between attempts, how many go out at once. Pure. */

import { formatDuration, MAX_DURATION_MS, parseDuration, readDuration } from '../domain/duration.js'

export { formatDuration }

import { MAX_RETRIES } from '../domain/callback.js'

import type { CallbackPolicy } from '../domain/settings.js'

export type { CallbackPolicy }

export const DEFAULT_CALLBACK_POLICY: Readonly<CallbackPolicy> = Object.freeze({
  retries: 3,
  timeoutMs: 5_000,
  scheduleMs: [1_000, 5_000, 30_000],
  concurrency: 64,
})

export { MAX_RETRIES }
export const MAX_TIMEOUT_MS = 60_000
/** Longest wait before a retry: the longest duration any flag takes. */
export const MAX_WAIT_MS = MAX_DURATION_MS
export const MAX_CONCURRENCY = 1024

/** Fills in defaults and checks ranges; throws a RangeError naming the bad setting. */
export function resolvePolicy(input: Partial<CallbackPolicy> = {}): CallbackPolicy {
  const scheduleMs = input.scheduleMs ?? [...DEFAULT_CALLBACK_POLICY.scheduleMs]
  const retries = input.retries ?? (input.scheduleMs ? input.scheduleMs.length : DEFAULT_CALLBACK_POLICY.retries)
  const timeoutMs = input.timeoutMs ?? DEFAULT_CALLBACK_POLICY.timeoutMs
  const concurrency = input.concurrency ?? DEFAULT_CALLBACK_POLICY.concurrency
  if (!Number.isInteger(retries) || retries < 0 || retries > MAX_RETRIES) {
    throw new RangeError(`callback retries must be a whole number from 0 to ${MAX_RETRIES} (got ${retries})`)
  }
  if (!Number.isFinite(timeoutMs) || timeoutMs < 1 || timeoutMs > MAX_TIMEOUT_MS) {
    throw new RangeError(`callback timeout must be from 1 ms to ${MAX_TIMEOUT_MS / 1000} s (got ${timeoutMs} ms)`)
  }
  if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > MAX_CONCURRENCY) {
    throw new RangeError(`callback concurrency must be a whole number from 1 to ${MAX_CONCURRENCY} (got ${concurrency})`)
  }
  if (scheduleMs.length === 0 && retries > 0) {
    throw new RangeError('callback schedule needs at least one wait when retries are allowed')
  }
  for (const wait of scheduleMs) {
    if (!Number.isFinite(wait) || wait < 0 || wait > MAX_WAIT_MS) {
      throw new RangeError(`callback schedule waits must be from 0 to 24 h (got ${wait} ms)`)
    }
  }
  return { retries, timeoutMs: Math.round(timeoutMs), scheduleMs: scheduleMs.map(Math.round), concurrency }
}

/** Wait before the attempt after `attemptsMade` attempts (attemptsMade ≥ 1). */
export function retryDelay(policy: Pick<CallbackPolicy, 'scheduleMs'>, attemptsMade: number): number {
  const schedule = policy.scheduleMs
  if (schedule.length === 0) return 0
  return schedule[Math.min(attemptsMade, schedule.length) - 1] ?? 0
}

/** The longest wait of the schedule: no retry is ever due later than this after it is scheduled. */
export function longestWait(policy: CallbackPolicy): number {
  return policy.scheduleMs.reduce((a, b) => Math.max(a, b), 0)
}

/** Parses a comma-separated list of durations, e.g. `1s,5s,30s`. */
export function parseSchedule(text: string): number[] | undefined {
  const parts = text.split(',')
  const out: number[] = []
  for (const part of parts) {
    const ms = parseDuration(part)
    if (ms === undefined) return undefined
    out.push(ms)
  }
  return out
}

/**
 * The policy from `pay sandbox start` flags (text as typed); throws a RangeError naming the flag.
 * Retries default to the schedule's length when only a schedule is given.
 */
export function policyFromFlags(flags: { retries?: number; timeout?: string; schedule?: string; concurrency?: number }): CallbackPolicy {
  const input: Partial<CallbackPolicy> = {}
  if (flags.retries !== undefined) input.retries = flags.retries
  if (flags.concurrency !== undefined) input.concurrency = flags.concurrency
  if (flags.timeout !== undefined) {
    const read = readDuration('--callback-timeout', flags.timeout, { min: 1, max: MAX_TIMEOUT_MS })
    if ('problem' in read) throw new RangeError(read.problem)
    input.timeoutMs = read.ms
  }
  if (flags.schedule !== undefined) {
    const waits = parseSchedule(flags.schedule)
    if (waits === undefined || waits.some((w) => w > MAX_WAIT_MS)) {
      throw new RangeError(`--callback-schedule must be comma-separated durations of at most ${formatDuration(MAX_WAIT_MS)}, e.g. 1s,5s,30s (got ${JSON.stringify(flags.schedule)})`)
    }
    input.scheduleMs = waits
  }
  return resolvePolicy(input)
}

/** `3 retries after 1s, 5s, 30s; 5s timeout per attempt; at most 64 at once` */
export function describePolicy(policy: CallbackPolicy): string {
  const waits = policy.retries === 0 ? 'no retries' : `${policy.retries} ${policy.retries === 1 ? 'retry' : 'retries'} after ${retryWaits(policy).join(', ')}`
  return `${waits}; ${formatDuration(policy.timeoutMs)} timeout per attempt; at most ${policy.concurrency} at once`
}

function retryWaits(policy: CallbackPolicy): string[] {
  const shown = Math.min(policy.retries, 5)
  const out: string[] = []
  for (let n = 1; n <= shown; n++) out.push(formatDuration(retryDelay(policy, n)))
  if (policy.retries > shown) out.push('…')
  return out
}
