/** How callbacks are retried: per-attempt timeout and the waits between attempts. Pure. */

import { MAX_RETRIES } from '../domain/callback.js'

export interface CallbackPolicy {
  /** Retries after the first attempt; 0 means one attempt only. */
  retries: number
  /** Time allowed per attempt, from connecting to the end of the response excerpt. */
  timeoutMs: number
  /** Wait before retry n is scheduleMs[n-1]; the last value repeats when there are more retries than entries. */
  scheduleMs: number[]
}

export const DEFAULT_CALLBACK_POLICY: Readonly<CallbackPolicy> = Object.freeze({
  retries: 3,
  timeoutMs: 5_000,
  scheduleMs: [1_000, 5_000, 30_000],
})

export { MAX_RETRIES }
export const MAX_TIMEOUT_MS = 60_000
export const MAX_WAIT_MS = 24 * 60 * 60 * 1000

/** Fills in defaults and checks ranges; throws a RangeError naming the bad setting. */
export function resolvePolicy(input: Partial<CallbackPolicy> = {}): CallbackPolicy {
  const scheduleMs = input.scheduleMs ?? [...DEFAULT_CALLBACK_POLICY.scheduleMs]
  const retries = input.retries ?? (input.scheduleMs ? input.scheduleMs.length : DEFAULT_CALLBACK_POLICY.retries)
  const timeoutMs = input.timeoutMs ?? DEFAULT_CALLBACK_POLICY.timeoutMs
  if (!Number.isInteger(retries) || retries < 0 || retries > MAX_RETRIES) {
    throw new RangeError(`callback retries must be a whole number from 0 to ${MAX_RETRIES} (got ${retries})`)
  }
  if (!Number.isFinite(timeoutMs) || timeoutMs < 1 || timeoutMs > MAX_TIMEOUT_MS) {
    throw new RangeError(`callback timeout must be from 1 ms to ${MAX_TIMEOUT_MS / 1000} s (got ${timeoutMs} ms)`)
  }
  if (scheduleMs.length === 0 && retries > 0) {
    throw new RangeError('callback schedule needs at least one wait when retries are allowed')
  }
  for (const wait of scheduleMs) {
    if (!Number.isFinite(wait) || wait < 0 || wait > MAX_WAIT_MS) {
      throw new RangeError(`callback schedule waits must be from 0 to 24 h (got ${wait} ms)`)
    }
  }
  return { retries, timeoutMs: Math.round(timeoutMs), scheduleMs: scheduleMs.map(Math.round) }
}

/** Wait before the attempt after `attemptsMade` attempts (attemptsMade ≥ 1). */
export function retryDelay(policy: CallbackPolicy, attemptsMade: number): number {
  const schedule = policy.scheduleMs
  if (schedule.length === 0) return 0
  return schedule[Math.min(attemptsMade, schedule.length) - 1] ?? 0
}

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000 }

/**
 * Parses a duration: `500ms`, `1.5s`, `2m`; a bare number is seconds (as curl's --max-time).
 * Returns undefined for anything else.
 */
export function parseDuration(text: string): number | undefined {
  const match = /^\s*(\d+(?:\.\d+)?|\.\d+)\s*(ms|s|m)?\s*$/i.exec(text)
  if (!match) return undefined
  const value = Number(match[1]) * UNIT_MS[(match[2] ?? 's').toLowerCase()]!
  return Number.isFinite(value) ? Math.round(value) : undefined
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

/** `1500` → `1.5s`, `250` → `250ms`, for console lines. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)}ms`
  if (ms < 60_000) return `${Number((ms / 1000).toFixed(1))}s`
  return `${Number((ms / 60_000).toFixed(1))}m`
}

/**
 * The policy from `pay sandbox start` flags (text as typed); throws a RangeError naming the flag.
 * Retries default to the schedule's length when only a schedule is given.
 */
export function policyFromFlags(flags: { retries?: number; timeout?: string; schedule?: string }): CallbackPolicy {
  const input: Partial<CallbackPolicy> = {}
  if (flags.retries !== undefined) input.retries = flags.retries
  if (flags.timeout !== undefined) {
    const ms = parseDuration(flags.timeout)
    if (ms === undefined || ms < 1 || ms > MAX_TIMEOUT_MS) {
      throw new RangeError(`--callback-timeout must be a duration from 1ms to ${MAX_TIMEOUT_MS / 1000}s, e.g. 500ms or 5s; a bare number is seconds (got ${JSON.stringify(flags.timeout)})`)
    }
    input.timeoutMs = ms
  }
  if (flags.schedule !== undefined) {
    const waits = parseSchedule(flags.schedule)
    if (waits === undefined || waits.some((w) => w > MAX_WAIT_MS)) {
      throw new RangeError(`--callback-schedule must be comma-separated durations of at most 24h, e.g. 1s,5s,30s (got ${JSON.stringify(flags.schedule)})`)
    }
    input.scheduleMs = waits
  }
  return resolvePolicy(input)
}

/** `3 retries after 1s, 5s, 30s; 5s timeout per attempt` */
export function describePolicy(policy: CallbackPolicy): string {
  const waits = policy.retries === 0 ? 'no retries' : `${policy.retries} ${policy.retries === 1 ? 'retry' : 'retries'} after ${retryWaits(policy).join(', ')}`
  return `${waits}; ${formatDuration(policy.timeoutMs)} timeout per attempt`
}

function retryWaits(policy: CallbackPolicy): string[] {
  const shown = Math.min(policy.retries, 5)
  const out: string[] = []
  for (let n = 1; n <= shown; n++) out.push(formatDuration(retryDelay(policy, n)))
  if (policy.retries > shown) out.push('…')
  return out
}
