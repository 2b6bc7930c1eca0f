import { MAX_DURATION_MS } from './duration.js'
import { defineModes, durationArg, integerArg, type ModeArg, type ModeLike, type ModeRow, type ModeText, type ModeValue, modeWith, plainMode } from './mode-table.js'
import { SandboxError } from './outcomes.js'

/**
 * What the sandbox does with one notification: send it (the default), or play one of the faults a merchant's
 * endpoint must survive. Each mode is one row of CALLBACK_MODES; its text (flags, bodies, scenario files, the
 * checkout page), its schemas and help are read from the row, and deliveries read its `effect`, never its name.
 * Pure.
 */

/** What a fault does to a delivery. The dispatcher, the delivery log, the audit and the import read these. */
export interface FaultEffect<F extends string = string> {
  /** Never sent: recorded as dropped, as if lost on the way. */
  readonly lost?: true
  /**
   * Held back (no due time) until the payment's next notification has been sent or dropped. A final payment has
   * no next one: the fault is not played there.
   */
  readonly held?: true
  /** The first attempt waits this long on the sandbox clock, read from the recorded fault. */
  readonly waitMs?: (fault: Partial<Record<F, unknown>>) => unknown
  /** Sent this many times one after the other, whatever the answers, before retries count. */
  readonly copies?: (fault: Partial<Record<F, unknown>>) => unknown
}

interface CallbackModeExtras<F extends string = string, T = unknown> {
  readonly description: string
  readonly example?: string
  /** The checkout page's words for the mode, under "Notification of the next change". */
  readonly choice: string
  /** What it does to the delivery; a mode without one (send) is no fault and is not recorded. */
  readonly effect?: FaultEffect<F>
  /** Chaos may pick it; for a mode with an argument, the argument from a roll in [0, 1). */
  readonly chaos?: true | ((roll: number) => T)
}

export const MAX_COPIES = 20

/** Delays chaos picks from, on the sandbox clock. */
const CHAOS_DELAYS_MS = [1_000, 5_000, 30_000, 120_000]

const pick = <T>(list: readonly T[], roll: number): T => list[Math.min(Math.floor(roll * list.length), list.length - 1)]!

/** Every callback mode: one row each. */
export const CALLBACK_MODES = defineModes('callback mode', [
  plainMode('send', {
    description: 'sent at once, retried as the policy says; the default',
    choice: 'send it',
  } satisfies CallbackModeExtras),
  plainMode('drop', {
    description: 'lost: recorded, never sent',
    choice: 'drop it (lost on the way)',
    effect: { lost: true },
    chaos: true,
  } satisfies CallbackModeExtras),
  modeWith('delay', durationArg('delayMs', { min: 1, max: MAX_DURATION_MS }), {
    example: 'delay=30s',
    description: 'late: the first attempt waits that long on the sandbox clock',
    choice: 'delay it 30 s (sandbox clock)',
    effect: { waitMs: (f) => f.delayMs },
    chaos: (roll: number) => pick(CHAOS_DELAYS_MS, roll),
  } satisfies CallbackModeExtras<'delayMs', number>),
  modeWith('duplicate', integerArg('copies', { min: 2, max: MAX_COPIES }), {
    example: 'duplicate=2',
    description: 'sent n times with the same delivery id, as a sender that lost the replies would',
    choice: 'send it twice',
    effect: { copies: (f) => f.copies },
    chaos: (roll: number) => 2 + Math.floor(roll * 2),
  } satisfies CallbackModeExtras<'copies', number>),
  plainMode('reorder', {
    description: "held back and sent right after the payment's next notification; not for a final outcome",
    choice: 'hold it until the next one (out of order)',
    effect: { held: true },
    chaos: true,
  } satisfies CallbackModeExtras),
])

type CallbackModeRow = (typeof CALLBACK_MODES.rows)[number]
type FaultRow = Extract<CallbackModeRow, { effect: FaultEffect }>

export type CallbackMode = ModeValue<CallbackModeRow>
/** A callback mode as typed: `send`, `delay=${string}`, … */
export type CallbackModeText = ModeText<CallbackModeRow>
export type CallbackModeName = CallbackModeRow['name']
/** The modes recorded as a fault on a delivery: all but send. */
export type FaultName = FaultRow['name']
type ArgField = NonNullable<Extract<CallbackModeRow, { arg: ModeArg }>['arg']>['field']

/** A callback fault as recorded on a delivery: its mode, its argument, and why it was played. */
export type DeliveryFault = { mode: FaultName } & { [K in ArgField]?: number } & {
  /** `requested by simulate`, `sandbox default`, `chaos seed 42`. */
  reason: string
}

export const CALLBACK_MODE_NAMES = CALLBACK_MODES.names

/** A row as the code that walks the table sees it: every field it may have, whichever a row sets. */
type AnyRow = ModeRow<CallbackModeName> & CallbackModeExtras
type AnyFaultRow = AnyRow & { name: FaultName; effect: FaultEffect }
const ROWS: readonly AnyRow[] = CALLBACK_MODES.rows
const isFault = (row: AnyRow | undefined): row is AnyFaultRow => row?.effect !== undefined
const FAULT_ROWS = ROWS.filter(isFault)
const rowOf = (name: string): AnyRow | undefined => CALLBACK_MODES.row(name)

/** The names of the modes recorded as faults: `drop`, `delay`, `duplicate`, `reorder`. */
export const FAULT_NAMES: readonly FaultName[] = FAULT_ROWS.map((r) => r.name)

/** The faults as a FAULT column shows them: `drop, delay=…, duplicate=…, reorder`. */
export const FAULT_FORMS = FAULT_ROWS.map((r) => (r.arg ? `${r.name}=…` : r.name)).join(', ')

/** The modes chaos picks from, in the order its generator counts them. */
export const CHAOS_NAMES: readonly FaultName[] = FAULT_ROWS.filter((r) => r.chaos !== undefined).map((r) => r.name)

/** The text form, for flags, bodies and scenario files: `send`, `drop`, `delay=30s`, `duplicate=3`, `reorder`. */
export const CALLBACK_MODE_PATTERN = CALLBACK_MODES.pattern

/** `send, drop, delay=<duration> (e.g. delay=30s, at most 24h), duplicate=<n> (2 to 20) or reorder` */
export const CALLBACK_MODE_RULE = CALLBACK_MODES.rule

/** Each mode with what it does: `send (sent at once, …), drop (lost: recorded, never sent), …`, for help texts. */
export const CALLBACK_MODE_HELP = CALLBACK_MODES.rows.map((r) => `${CALLBACK_MODES.usage(r)} (${r.description})`).join(', ')

/** The examples of the modes played as faults, as typed: `drop`, `delay=30s`, `duplicate=2`, `reorder`. */
export const FAULT_EXAMPLES: readonly string[] = FAULT_ROWS.map((r) => r.example)

/** The checkout page's choices: each mode's example as the value, its words as the label. */
export const CALLBACK_MODE_CHOICES: ReadonlyArray<readonly [string, string]> = ROWS.map((r) => [r.example, r.choice] as const)

/** The mode a text names, or what is wrong with it. */
export function parseCallbackMode(text: string): { mode: CallbackMode } | { problem: string } {
  return CALLBACK_MODES.parse(text)
}

/** The `callback` field of a request, as a mode (none when absent); 400 `invalid_field` naming what is wrong. */
export function callbackField(text: string | undefined): { callback?: CallbackMode } {
  if (text === undefined) return {}
  const parsed = parseCallbackMode(text)
  if ('problem' in parsed) throw new SandboxError('invalidField', parsed.problem)
  return { callback: parsed.mode }
}

/** `delay=30s`, `duplicate=3`: as people read it. */
export function formatCallbackMode(mode: CallbackMode | DeliveryFault): string {
  return CALLBACK_MODES.show(mode as ModeLike)
}

/** `delay=30000ms`: as written into a flag, read back to the same mode. */
export function writeCallbackMode(mode: CallbackMode): string {
  return CALLBACK_MODES.write(mode as ModeLike)
}

/** The fault recorded on a delivery for a mode (none for a mode that plays none: send). */
export function faultOf(mode: CallbackMode, reason: string): DeliveryFault | undefined {
  if (!isFault(rowOf(mode.mode))) return undefined
  return { ...(mode as DeliveryFault), reason }
}

/** What a mode or a recorded fault does to its delivery, its values read defensively (stored data can hold anything). */
export interface DeliveryPlan {
  lost: boolean
  held: boolean
  /** Wait before the first attempt. */
  waitMs: number
  /** Times sent before retries count, 1 to MAX_COPIES. */
  copies: number
}

const NO_FAULT: DeliveryPlan = Object.freeze({ lost: false, held: false, waitMs: 0, copies: 1 })

export function planOf(fault: CallbackMode | DeliveryFault | undefined): DeliveryPlan {
  const row = fault === undefined ? undefined : rowOf(fault.mode)
  if (!isFault(row)) return NO_FAULT
  const effect = row.effect
  const recorded = fault as unknown as Partial<Record<string, unknown>>
  const wait = effect.waitMs?.(recorded)
  const copies = effect.copies?.(recorded)
  return {
    lost: effect.lost === true,
    held: effect.held === true,
    waitMs: typeof wait === 'number' && Number.isFinite(wait) ? wait : 0,
    copies: typeof copies === 'number' && Number.isInteger(copies) && copies >= 1 ? Math.min(copies, MAX_COPIES) : 1,
  }
}

/** How to ask for a late notification instead of a held one: `delay=<duration>`. */
const LATE_ROW = FAULT_ROWS.find((r) => r.effect.waitMs !== undefined)
export const LATE_MODE_USAGE: string = LATE_ROW ? CALLBACK_MODES.usage(LATE_ROW as CallbackModeRow) : ''

/**
 * Why a mode cannot be played on the change to a final status, whose payment has no next notification: a held one
 * would wait forever. Undefined when it can.
 */
export function heldForever(mode: CallbackMode, outcome: string): string | undefined {
  if (!planOf(mode).held) return undefined
  return `callback mode ${formatCallbackMode(mode)} holds a notification back until the payment's next one, and a ${outcome} payment has no next one${LATE_MODE_USAGE ? `; use ${LATE_MODE_USAGE} to make it late` : ''}`
}

/** The wait a mode given in code asks for before the first attempt, unchecked, and the field it is in; for checking it. */
export function waitAskedBy(mode: CallbackMode): { field: string; ms: unknown } | undefined {
  const row = rowOf(mode.mode)
  if (!isFault(row) || !row.effect.waitMs) return undefined
  return { field: row.arg ? row.arg.field : 'mode', ms: row.effect.waitMs(mode as unknown as Record<string, unknown>) }
}

/** How many times a delivery is sent before retries count: `copies` of a duplicate, else 1. */
export function copiesOf(delivery: { fault?: DeliveryFault }): number {
  return planOf(delivery.fault).copies
}

/** The names of the modes whose effect has the trait, for messages: `drop`. */
export function namesWith(trait: 'lost' | 'held'): string {
  const names = FAULT_ROWS.filter((r) => r.effect[trait] === true).map((r) => r.name)
  return names.length > 1 ? `${names.slice(0, -1).join(', ')} or ${names.at(-1)}` : (names[0] ?? '')
}

/** Each argument's field as recorded, with its schema; two modes may share a field only with the same schema. */
function recordedFields(): Record<string, object> {
  const fields: Record<string, object> = {}
  for (const row of FAULT_ROWS) {
    if (!row.arg) continue
    const known = fields[row.arg.field]
    if (known && JSON.stringify(known) !== JSON.stringify(row.arg.schema)) {
      throw new Error(`callback modes that keep ${row.arg.field} must bound it alike; give ${row.name} a field of its own`)
    }
    fields[row.arg.field] = row.arg.schema
  }
  return fields
}

/** The schema of a fault as recorded on a delivery (export files, the data file, API documents). */
export const deliveryFaultSchema = {
  type: 'object',
  properties: {
    mode: { type: 'string', enum: [...FAULT_NAMES] },
    ...recordedFields(),
    reason: { type: 'string', minLength: 1, maxLength: 100 },
  } as Record<keyof DeliveryFault, object>,
  required: ['mode', 'reason'],
  additionalProperties: false,
} as const

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

/**
 * The fault chaos plays on the next notification, or `send`. `final`: the payment can change no more, so a
 * notification held for its next one would wait forever: a held mode is not picked then.
 */
export function chaosPick(random: () => number, rate: number, final: boolean): CallbackMode {
  const roll = random()
  const kind = random()
  const detail = random()
  if (roll >= rate) return { mode: 'send' }
  const rows = FAULT_ROWS.filter((r) => r.chaos !== undefined && !(final && r.effect.held))
  const row = pick(rows, kind)
  if (row.chaos === true || row.chaos === undefined || !row.arg) return { mode: row.name } as CallbackMode
  return { mode: row.name, [row.arg.field]: row.chaos(detail) } as CallbackMode
}
