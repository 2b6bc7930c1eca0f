import { formatDuration, MAX_DURATION_MS, parseDuration } from './duration.js'
import { SandboxError } from './outcomes.js'
import type { DeliveryFault } from './types.js'

/**
 * What the sandbox does with one notification: send it (the default), or play one of the faults a merchant's
 * endpoint must survive. Pure.
 *
 *   send           sent at once (retried as the policy says)
 *   drop           recorded, never sent: as if lost on the way
 *   delay=<d>      the first attempt waits d on the sandbox clock
 *   duplicate=<n>  sent n times, each with the same delivery id and the next attempt number, as a sender that
 *                  lost the replies would; then retried as usual if none was answered 2xx
 *   reorder        held back and sent right after the payment's next notification
 */
export type CallbackMode =
  | { mode: 'send' }
  | { mode: 'drop' }
  | { mode: 'delay'; delayMs: number }
  | { mode: 'duplicate'; copies: number }
  | { mode: 'reorder' }

export const CALLBACK_MODE_NAMES = ['send', 'drop', 'delay', 'duplicate', 'reorder'] as const

export const MAX_COPIES = 20

/** The text form, for flags, bodies and scenario files: `send`, `drop`, `delay=30s`, `duplicate=3`, `reorder`. */
export const CALLBACK_MODE_PATTERN = '^(send|drop|reorder|delay=[0-9.]+(ms|s|m|h)?|duplicate=[0-9]+)$'

export const CALLBACK_MODE_RULE = `send, drop, delay=<duration> (e.g. delay=30s, at most ${formatDuration(MAX_DURATION_MS)}), duplicate=<n> (2 to ${MAX_COPIES}) or reorder`

/** The mode a text names, or what is wrong with it. */
export function parseCallbackMode(text: string): { mode: CallbackMode } | { problem: string } {
  const [name, value, ...rest] = text.trim().split('=')
  const bad = { problem: `callback mode must be ${CALLBACK_MODE_RULE} (got ${JSON.stringify(text)})` }
  if (rest.length > 0) return bad
  switch (name) {
    case 'send':
    case 'drop':
    case 'reorder':
      return value === undefined ? { mode: { mode: name } } : bad
    case 'delay': {
      const ms = value === undefined ? undefined : parseDuration(value)
      if (ms === undefined || ms < 1 || ms > MAX_DURATION_MS) return bad
      return { mode: { mode: 'delay', delayMs: ms } }
    }
    case 'duplicate': {
      const copies = value !== undefined && /^\d+$/.test(value) ? Number(value) : Number.NaN
      if (!Number.isInteger(copies) || copies < 2 || copies > MAX_COPIES) return bad
      return { mode: { mode: 'duplicate', copies } }
    }
    default:
      return bad
  }
}

/** The `callback` field of a request, as a mode (none when absent); 400 `invalid_field` naming what is wrong. */
export function callbackField(text: string | undefined): { callback?: CallbackMode } {
  if (text === undefined) return {}
  const parsed = parseCallbackMode(text)
  if ('problem' in parsed) throw new SandboxError('invalidField', parsed.problem)
  return { callback: parsed.mode }
}

export function formatCallbackMode(mode: CallbackMode | DeliveryFault): string {
  switch (mode.mode) {
    case 'delay':
      return `delay=${formatDuration(mode.delayMs ?? 0)}`
    case 'duplicate':
      return `duplicate=${mode.copies ?? 2}`
    default:
      return mode.mode
  }
}

/** The fault recorded on a delivery for a mode (none for `send`). */
export function faultOf(mode: CallbackMode, reason: string): DeliveryFault | undefined {
  switch (mode.mode) {
    case 'send':
      return undefined
    case 'delay':
      return { mode: 'delay', delayMs: mode.delayMs, reason }
    case 'duplicate':
      return { mode: 'duplicate', copies: mode.copies, reason }
    default:
      return { mode: mode.mode, reason }
  }
}

/** How many times a delivery is sent before retries count: `copies` of a duplicate, else 1. */
export function copiesOf(delivery: { fault?: DeliveryFault }): number {
  const copies = delivery.fault?.mode === 'duplicate' ? delivery.fault.copies : undefined
  return typeof copies === 'number' && Number.isInteger(copies) && copies >= 1 ? Math.min(copies, MAX_COPIES) : 1
}

/** Why a fault was played, as recorded on the delivery. */
export const FaultReason = {
  requested: 'requested by simulate',
  sandboxDefault: 'sandbox default',
  chaos: (seed: number) => `chaos seed ${seed}`,
} as const

/**
 * A small seeded generator (mulberry32): the same seed gives the same sequence, so a chaos run can be replayed
 * exactly by starting the sandbox with the same seed and sending the same notifications in the same order.
 */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/** Chaos: for a share `rate` of notifications, a fault picked by a seeded generator. */
export interface ChaosSettings {
  rate: number
  seed: number
}

/** Delays chaos picks from, on the sandbox clock. */
const CHAOS_DELAYS_MS = [1_000, 5_000, 30_000, 120_000]

/**
 * The fault chaos plays on the next notification, or `send`. `final`: the payment can change no more, so a
 * notification held for its next one would wait forever: reorder is not picked then.
 */
export function chaosPick(random: () => number, rate: number, final: boolean): CallbackMode {
  const roll = random()
  const kind = random()
  const detail = random()
  if (roll >= rate) return { mode: 'send' }
  const kinds: Array<CallbackMode['mode']> = final ? ['drop', 'delay', 'duplicate'] : ['drop', 'delay', 'duplicate', 'reorder']
  const picked = kinds[Math.min(Math.floor(kind * kinds.length), kinds.length - 1)]!
  if (picked === 'delay') return { mode: 'delay', delayMs: CHAOS_DELAYS_MS[Math.min(Math.floor(detail * CHAOS_DELAYS_MS.length), CHAOS_DELAYS_MS.length - 1)]! }
  if (picked === 'duplicate') return { mode: 'duplicate', copies: 2 + Math.floor(detail * 2) }
  return { mode: picked } as CallbackMode
}
