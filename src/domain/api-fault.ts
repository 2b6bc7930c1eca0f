import { brief } from './brief.js'
import { formatDuration } from './duration.js'
import { MERCHANT_KEY, MERCHANT_KEY_RULE } from './merchant.js'
import { defineModes, durationArg, integerArg, type ModeArg, type ModeLike, type ModeRow, type ModeValue, modeWith, plainMode } from './mode-table.js'

/**
 * Faults of the spec API itself: a rule says which requests get a fault (a route and a scope) and which one (a row
 * of API_FAULTS), played instead of the real answer or, for a create with `after`, once the payment is made. The
 * rule's fields are named as the CLI's flags; its JSON Schemas, the flags, the compact form of `--api-fault`
 * (`verify:status=503:times=2`) and the help texts are read from the tables below. Pure.
 */

/** The longest a request is held open (timeout), and the longest delay. */
export const HOLD_MAX_MS = 5 * 60_000
/**
 * The most requests held open (timeout) or kept waiting (delay) at once: each keeps a connection, and a client that
 * retries without a timeout would open them without end. Past it, a held request is closed at once and a delayed
 * one answered at once.
 */
export const HELD_MAX = 100

/** What a fault does to the request it is played on. The plugin that plays faults reads these, never the names. */
export interface ApiFaultEffect {
  /** Answered at once instead of the real answer: a JSON error as the sandbox's own (`json`), or a proxy's HTML page. */
  readonly answer?: 'json' | 'html'
  /** The answer carries a Retry-After header (the rule's `seconds`). */
  readonly retryAfter?: true
  /** The real answer, once the argument's time has passed. */
  readonly waits?: true
  /** No answer: the request is held open until the client gives up, or HOLD_MAX_MS. */
  readonly holds?: true
  /** No answer: the connection is reset. */
  readonly resets?: true
}

interface ApiFaultExtras {
  /** The field's title in a schema (editors show it). */
  readonly title: string
  readonly description: string
  readonly example?: string
  readonly effect: ApiFaultEffect
}

/** Every fault a rule can play: one row each. */
export const API_FAULTS = defineModes('fault', [
  modeWith('status', integerArg('status', { min: 400, max: 599, placeholder: '<code>' }), {
    title: 'Error status',
    example: 'status=503',
    description: "answered with this HTTP status and a JSON error carrying an integer result (the status), as the sandbox's own request errors are",
    effect: { answer: 'json' },
  } satisfies ApiFaultExtras),
  modeWith('html', integerArg('status', { min: 502, max: 504, oneOf: [502, 503, 504], placeholder: '<code>' }), {
    title: 'Proxy error page',
    example: 'html=502',
    description: 'answered with this status and the HTML error page a reverse proxy (nginx) sends',
    effect: { answer: 'html' },
  } satisfies ApiFaultExtras),
  modeWith('delay', durationArg('delayMs', { min: 1, max: HOLD_MAX_MS }), {
    title: 'Delay',
    example: 'delay=1.5s',
    description: 'answered normally, after this long',
    effect: { waits: true },
  } satisfies ApiFaultExtras),
  plainMode('timeout', {
    title: 'Hold with no answer (timeout)',
    description: `held open with no answer until the client gives up (closed after ${formatDuration(HOLD_MAX_MS)})`,
    effect: { holds: true },
  } satisfies ApiFaultExtras),
  plainMode('reset', {
    title: 'Reset the connection',
    description: 'the connection is reset, with no answer',
    effect: { resets: true },
  } satisfies ApiFaultExtras),
  modeWith('retry-after', integerArg('status', { min: 429, max: 503, oneOf: [429, 503], placeholder: '<code>' }), {
    title: 'Retry-After answer',
    example: 'retry-after=429',
    description: 'answered 429 or 503 with a Retry-After header (see seconds) and a JSON error',
    effect: { answer: 'json', retryAfter: true },
  } satisfies ApiFaultExtras),
])

type ApiFaultRow = (typeof API_FAULTS.rows)[number]
/** A fault as parsed: `{ mode: 'status', status: 503 }`, `{ mode: 'delay', delayMs: 1500 }`, `{ mode: 'reset' }`. */
export type ApiFault = ModeValue<ApiFaultRow>
export type ApiFaultName = ApiFaultRow['name']
/** A row as code that walks the table sees it: every field a row may have. */
export type ApiFaultRowShape = ModeRow<ApiFaultName> & ApiFaultExtras
type AnyRow = ApiFaultRowShape
const ROWS: readonly AnyRow[] = API_FAULTS.rows
/** The rows, for code that walks the table (flags, schemas, help). */
export const API_FAULT_ROWS = ROWS
const rowOf = (name: string): AnyRow | undefined => API_FAULTS.row(name)

/** A fault's field in a rule, as its flag is named: `retry-after` is `retryAfter`. */
export const actionKey = (name: string): string => name.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase())

/** The rule fields that name a fault: `status`, `html`, `delay`, `timeout`, `reset`, `retryAfter`. */
export const ACTION_KEYS: readonly string[] = ROWS.map((r) => actionKey(r.name))

/** The faults in words, each with what it does, for help texts. */
export const API_FAULT_HELP = ROWS.map((r) => `${API_FAULTS.usage(r as ApiFaultRow)} (${r.description})`).join('; ')

/** What a fault does to its request; a name the table lacks does nothing. */
export function effectOf(fault: { mode: string }): ApiFaultEffect {
  return rowOf(fault.mode)?.effect ?? {}
}

/** Whether a merchant must take the fault as a failure of the call (anything but a late real answer). */
export const isFailure = (fault: { mode: string }): boolean => effectOf(fault).waits !== true

// ── routes and scope ──────────────────────────────────────────────────

/** The requests a rule applies to. */
export const FAULT_ROUTES = {
  create: { request: 'POST /api/v1/request', description: 'create a payment' },
  verify: { request: 'POST /api/v1/verify', description: 'verify a payment' },
  checkout: { request: 'GET /pay/<trackId>', description: 'the checkout page itself (not its status, events or sandbox controls)' },
  all: { request: 'all three', description: 'create, verify and the checkout page' },
} as const
export type FaultRoute = keyof typeof FAULT_ROUTES
/** A route a request is on. */
export type FaultedRoute = Exclude<FaultRoute, 'all'>
export const FAULT_ROUTE_NAMES = Object.keys(FAULT_ROUTES) as FaultRoute[]

export const MAX_TIMES = 1_000_000
export const MAX_SEED = 2 ** 31 - 1
export const MAX_RETRY_AFTER_S = 3600
export const DEFAULT_RETRY_AFTER_S = 5
const TRACK_ID_PATTERN = '^[A-Za-z0-9_-]{1,64}$'

interface ScopeField {
  readonly title: string
  readonly kind: 'integer' | 'number' | 'string' | 'boolean'
  readonly schema: Readonly<Record<string, unknown>>
  /** In words, after the field's name: `must be …`. */
  readonly rule: string
  readonly description: string
}

/** The fields that say which requests get the fault, and how. */
export const FAULT_SCOPE = {
  times: {
    title: 'Times',
    kind: 'integer',
    schema: { type: 'integer', minimum: 1, maximum: MAX_TIMES },
    rule: `a whole number from 1 to ${MAX_TIMES}`,
    description: 'how many matching requests get the fault, from the next one [default: every one]',
  },
  rate: {
    title: 'Rate',
    kind: 'number',
    schema: { type: 'number', exclusiveMinimum: 0, maximum: 1 },
    rule: 'a share above 0 and at most 1, e.g. 0.3',
    description: "the share of matching requests that get it, decided from seed and each request's place in the sequence",
  },
  seed: {
    title: 'Seed',
    kind: 'integer',
    schema: { type: 'integer', minimum: 0, maximum: MAX_SEED },
    rule: `a whole number from 0 to ${MAX_SEED}`,
    description: 'seed of rate: the same seed faults the same requests of the sequence on every run [default: random, shown]',
  },
  merchant: {
    title: 'Merchant API key',
    kind: 'string',
    schema: { type: 'string', pattern: MERCHANT_KEY.source },
    rule: `a merchant key: ${MERCHANT_KEY_RULE}`,
    description: "only requests of this merchant key (create, verify: the key sent; checkout: the payment's merchant)",
  },
  trackId: {
    title: 'Track ID',
    kind: 'string',
    schema: { type: 'string', pattern: TRACK_ID_PATTERN },
    rule: '1 to 64 letters, digits, _ or -',
    description: 'only requests about this payment (verify, checkout)',
  },
  after: {
    title: 'Answer lost (after)',
    kind: 'boolean',
    schema: { type: 'boolean' },
    rule: 'true or false',
    description: 'create only: the payment is made first and its answer lost to the fault, so the merchant never learns the trackId',
  },
  seconds: {
    title: 'Retry-After seconds',
    kind: 'integer',
    schema: { type: 'integer', minimum: 1, maximum: MAX_RETRY_AFTER_S },
    rule: `a whole number of seconds from 1 to ${MAX_RETRY_AFTER_S}`,
    description: `retry-after only: the Retry-After header, in seconds [default: ${DEFAULT_RETRY_AFTER_S}]`,
  },
} as const satisfies Record<string, ScopeField>
export type ScopeKey = keyof typeof FAULT_SCOPE
const SCOPE_KEYS = Object.keys(FAULT_SCOPE) as ScopeKey[]

/** The fields that name the fault, as a rule writes them: a code, a duration's text, or true. */
interface ActionFields {
  status?: number
  html?: number
  delay?: string
  timeout?: true
  reset?: true
  retryAfter?: number
}

/** A rule as given: to the control API, `pay fault add`, `--api-fault` or a scenario's `fault:` step. */
export interface FaultRuleInput extends ActionFields {
  route: FaultRoute
  times?: number
  rate?: number
  seed?: number
  merchant?: string
  trackId?: string
  after?: boolean
  seconds?: number
}

/** Who made a rule: the control API (CLI, scripts, pages, scenarios), or `pay sandbox start --api-fault`. */
export type FaultSource = 'api' | 'start'

/** A rule as kept: normalized, with its id and what it has done so far. */
export interface FaultRule extends ActionFields {
  id: string
  route: FaultRoute
  times?: number
  rate?: number
  seed?: number
  merchant?: string
  trackId?: string
  after?: true
  seconds?: number
  /** Requests that matched its route and scope so far (the place in the sequence rate decides on). */
  matched: number
  /** Faults played so far; with `times`, the rule is spent once it reaches it. */
  played: number
  createdAt: string
  source: FaultSource
}

/** `flt_` and 12 characters of base64url. */
export const FAULT_ID_PATTERN = '^flt_[A-Za-z0-9_-]{12}$'
export const isFaultId = (text: string): boolean => new RegExp(FAULT_ID_PATTERN).test(text)

const describedAction = (row: AnyRow) => `${row.description}${row.arg ? ` (${row.arg.bounds(row.example)})` : ''}`

/** The schema of a rule's fault and scope fields as given; `rate`, `seed`, `after` … as described in FAULT_SCOPE. */
const givenFields = {
  ...Object.fromEntries(ROWS.map((r) => [actionKey(r.name), r.arg ? { title: r.title, ...r.arg.input, description: describedAction(r) } : { title: r.title, const: true, description: describedAction(r) }])),
  ...Object.fromEntries(SCOPE_KEYS.map((k) => [k, { title: FAULT_SCOPE[k].title, ...FAULT_SCOPE[k].schema, description: FAULT_SCOPE[k].description }])),
} as Record<keyof ActionFields | ScopeKey, object>

const routeField = {
  title: 'Route',
  type: 'string',
  enum: FAULT_ROUTE_NAMES,
  description: `which requests: ${FAULT_ROUTE_NAMES.map((r) => `${r} (${FAULT_ROUTES[r].request})`).join(', ')}`,
} as const

/** A rule as the control API and a scenario's `fault:` step take it. */
export const faultRuleInputSchema = {
  type: 'object',
  description: `a fault rule: route, one fault (${ACTION_KEYS.join(', ')}) and its scope`,
  properties: { route: routeField, ...givenFields },
  required: ['route'],
  additionalProperties: false,
} as const

/** A rule's fields as kept, for the data file's schema and the API document; times and counters added by the caller. */
export const faultRuleFields = {
  id: { type: 'string', pattern: FAULT_ID_PATTERN },
  route: routeField,
  ...givenFields,
  after: { const: true, description: FAULT_SCOPE.after.description },
  matched: { type: 'integer', minimum: 0, description: 'requests that matched its route and scope so far' },
  played: { type: 'integer', minimum: 0, description: 'faults played so far; with times, it is spent once it reaches it' },
  source: { type: 'string', enum: ['api', 'start'], description: 'api: added through the control API; start: pay sandbox start --api-fault' },
} as const
export const FAULT_RULE_REQUIRED = ['id', 'route', 'matched', 'played', 'createdAt', 'source'] as const

// ── checking and normalizing a rule ───────────────────────────────────

/** What a problem names a field as: its flag's name (`retry-after`), as people type it. */
const flagName = (key: string): string => key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)

/** A rule's fault as parsed, from its fault field; undefined when it has none or more than one. */
export function faultOf(rule: ActionFields): ApiFault | undefined {
  const given = ROWS.filter((r) => (rule as Record<string, unknown>)[actionKey(r.name)] !== undefined)
  if (given.length !== 1) return undefined
  const row = given[0]!
  const value = (rule as Record<string, unknown>)[actionKey(row.name)]
  const parsed = API_FAULTS.parse(row.arg ? `${row.name}=${String(value)}` : row.name)
  return 'mode' in parsed ? parsed.mode : undefined
}

/**
 * What is wrong with a rule as given (types, bounds, one fault, fields that go together), in words naming the field
 * as its flag is named; undefined when it is a rule.
 */
export function faultRuleProblem(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return `a fault rule must be an object (got ${brief(value)})`
  const input = value as Record<string, unknown>
  const known = new Set(['route', ...ACTION_KEYS, ...SCOPE_KEYS])
  const unknown = Object.keys(input).filter((k) => !known.has(k))
  if (unknown.length > 0) return `unknown field ${brief(unknown[0])}; a rule has route, one fault (${ROWS.map((r) => r.name).join(', ')}) and ${SCOPE_KEYS.map(flagName).join(', ')}`
  if (!FAULT_ROUTE_NAMES.includes(input.route as FaultRoute)) return `route must be one of ${FAULT_ROUTE_NAMES.join(', ')} (got ${brief(input.route)})`
  const given = ROWS.filter((r) => input[actionKey(r.name)] !== undefined)
  if (given.length === 0) return `give one fault: ${API_FAULTS.rule}`
  if (given.length > 1) return `give one fault, not ${given.length}: ${given.map((r) => r.name).join(' and ')}`
  const row = given[0]!
  const raw = input[actionKey(row.name)]
  const typed = row.arg ? (row.arg.input.type === 'integer' ? Number.isInteger(raw) : typeof raw === 'string') : raw === true
  const parsed = typed ? API_FAULTS.parse(row.arg ? `${row.name}=${String(raw)}` : row.name) : undefined
  if (!parsed || 'problem' in parsed) {
    return row.arg ? `${row.name} must be ${row.arg.placeholder} (${row.arg.bounds(row.example)}) (got ${brief(raw)})` : `${row.name} must be true (got ${brief(raw)})`
  }
  for (const key of SCOPE_KEYS) {
    const problem = scopeProblem(key, input[key])
    if (problem) return problem
  }
  const route = input.route as FaultRoute
  if (input.after === true && route !== 'create') {
    return `after makes the payment and then loses its answer: it needs route create (got ${route})`
  }
  if (input.after === true && effectOf(parsed.mode).waits) return 'after with delay is an answer that comes late, not one that is lost: leave after out'
  if (input.trackId !== undefined && route === 'create') return 'a create has no trackId yet: trackId needs route verify, checkout or all'
  if (input.seconds !== undefined && !effectOf(parsed.mode).retryAfter) return 'seconds is the Retry-After of a retry-after fault: give retry-after=<code> with it'
  if (input.seed !== undefined && input.rate === undefined) return 'seed seeds rate: give rate too'
  return undefined
}

function scopeProblem(key: ScopeKey, value: unknown): string | undefined {
  if (value === undefined) return undefined
  const field: ScopeField = FAULT_SCOPE[key]
  const s = field.schema as { minimum?: number; maximum?: number; exclusiveMinimum?: number; pattern?: string }
  const ok =
    field.kind === 'boolean'
      ? typeof value === 'boolean'
      : field.kind === 'string'
        ? typeof value === 'string' && new RegExp(s.pattern!).test(value)
        : typeof value === 'number' &&
          Number.isFinite(value) &&
          (field.kind === 'number' || Number.isInteger(value)) &&
          (s.minimum === undefined || value >= s.minimum) &&
          (s.exclusiveMinimum === undefined || value > s.exclusiveMinimum) &&
          (s.maximum === undefined || value <= s.maximum)
  return ok ? undefined : `${flagName(key)} must be ${field.rule} (got ${brief(value)})`
}

/**
 * A rule as kept, from one as given (checked first with faultRuleProblem): the fault's argument as written back
 * (`delay: "1500ms"`), `after` only when true, and a seed for a rate without one.
 */
export function newFaultRule(input: FaultRuleInput, made: { id: string; at: string; source: FaultSource; randomSeed: () => number }): FaultRule {
  const fault = faultOf(input)!
  const row = rowOf(fault.mode)!
  const value = row.arg ? (fault as Record<string, unknown>)[row.arg.field] : undefined
  const action = row.arg ? (row.arg.input.type === 'integer' ? value : (row.arg as ModeArg<string, unknown>).write(value)) : true
  const rule = { id: made.id, route: input.route, [actionKey(row.name)]: action, matched: 0, played: 0, createdAt: made.at, source: made.source } as FaultRule
  for (const k of SCOPE_KEYS) {
    const v = input[k]
    if (v === undefined || v === false) continue
    ;(rule as unknown as Record<string, unknown>)[k] = v
  }
  if (rule.rate !== undefined && rule.seed === undefined) rule.seed = made.randomSeed()
  return rule
}

/** The rule as given back: its route, fault and scope (what `pay fault add` and `--api-fault` take). */
export function inputOf(rule: FaultRule | FaultRuleInput): FaultRuleInput {
  const input: Record<string, unknown> = { route: rule.route }
  for (const key of [...ACTION_KEYS, ...SCOPE_KEYS]) {
    const v = (rule as unknown as Record<string, unknown>)[key]
    if (v !== undefined) input[key] = v
  }
  return input as unknown as FaultRuleInput
}

// ── the compact form: verify:status=503:times=2 ───────────────────────

/** `<route>:<fault>[:<field>=<value>…]`, for `--api-fault` and messages. */
export const COMPACT_FORM = `<route>:<fault>[:<field>=<value>…], e.g. verify:status=503:times=2, create:status=503:after, all:timeout:merchant=shop_1, verify:retry-after=429:seconds=2:rate=0.5:seed=7`

/** A rule in the compact form, or what is wrong with it. */
export function parseCompactFault(text: string): { input: FaultRuleInput } | { problem: string } {
  const bad = (why: string, quoted = false) => ({ problem: `${why}${quoted ? ' in' : ' (got'} ${brief(text)}${quoted ? '' : ')'}; write ${COMPACT_FORM}` })
  const [route, ...parts] = text.trim().split(':')
  if (!FAULT_ROUTE_NAMES.includes(route as FaultRoute)) return bad(`a fault rule starts with its route, ${FAULT_ROUTE_NAMES.join(', ')}`)
  const input: Record<string, unknown> = { route }
  for (const part of parts) {
    const eq = part.indexOf('=')
    const name = eq === -1 ? part : part.slice(0, eq)
    const value = eq === -1 ? undefined : part.slice(eq + 1)
    const row = rowOf(name)
    const key = row ? actionKey(name) : SCOPE_KEYS.find((k) => k === name || flagName(k) === name.toLowerCase())
    if (key === undefined) return bad(`${brief(name)} is neither a fault (${ROWS.map((r) => r.name).join(', ')}) nor a field (${SCOPE_KEYS.map(flagName).join(', ')})`)
    if (input[key] !== undefined) return bad(`${name} is given twice`)
    if (row) {
      if (!row.arg) {
        if (value !== undefined) return bad(`${name} takes no value`)
        input[key] = true
        continue
      }
      if (value === undefined) return bad(`${name} needs a value: ${API_FAULTS.usage(row as ApiFaultRow)}`)
      input[key] = row.arg.input.type === 'integer' ? numberOf(value) : value
      continue
    }
    const field: ScopeField = FAULT_SCOPE[key as ScopeKey]
    if (field.kind === 'boolean') {
      if (value !== undefined && value !== 'true' && value !== 'false') return bad(`${name} is true or false`)
      input[key] = value !== 'false'
    } else if (value === undefined) {
      return bad(`${name} needs a value: ${name}=<value>`)
    } else {
      input[key] = field.kind === 'string' ? value : numberOf(value)
    }
  }
  const problem = faultRuleProblem(input)
  return problem ? bad(problem, true) : { input: input as unknown as FaultRuleInput }
}

/** A number as typed, or the text itself (so that the problem quotes it). */
function numberOf(text: string): number | string {
  return /^\s*-?(\d+(\.\d*)?|\.\d+)(e[+-]?\d+)?\s*$/i.test(text) ? Number(text) : text
}

/** A rule in the compact form: written back, it parses to the same rule. `show`: durations as people read them. */
export function compactFault(rule: FaultRule | FaultRuleInput, how: 'show' | 'write' = 'write'): string {
  const fault = faultOf(rule)
  const parts: string[] = [rule.route, fault ? (how === 'show' ? API_FAULTS.show(fault as ModeLike) : API_FAULTS.write(fault as ModeLike)) : '?']
  for (const key of SCOPE_KEYS) {
    const v = (rule as unknown as Record<string, unknown>)[key]
    if (v === undefined || v === false) continue
    parts.push(v === true ? key : `${key}=${String(v)}`)
  }
  return parts.join(':')
}

// ── which requests a rule faults ──────────────────────────────────────

/** A request a rule may apply to: its route, the merchant it is about and its trackId, when known. */
export interface FaultTarget {
  route: FaultedRoute
  /** The key sent (create, verify), or the payment's merchant (checkout). */
  merchant?: string
  trackId?: string
}

/** Whether a rule is spent: it played `times` faults. */
export const isSpent = (rule: FaultRule): boolean => rule.times !== undefined && rule.played >= rule.times

/** Whether a request is in a rule's route and scope (and the rule not spent). */
export function ruleMatches(rule: FaultRule, target: FaultTarget): boolean {
  if (rule.route !== 'all' && rule.route !== target.route) return false
  if (rule.merchant !== undefined && rule.merchant !== target.merchant) return false
  if (rule.trackId !== undefined && rule.trackId !== target.trackId) return false
  return !isSpent(rule) && faultOf(rule) !== undefined
}

/**
 * A number in [0, 1) for the `n`-th matching request of a rule seeded `seed`: a hash of the two, with no state, so
 * the same seed gives the same sequence on every run and after a restart (the rule keeps its count).
 */
export function roll(seed: number, n: number): number {
  let h = mix((seed >>> 0) ^ 0x9e3779b9)
  h = mix(h ^ Math.imul(n >>> 0, 0x85ebca6b) ^ Math.floor(n / 2 ** 32))
  return h / 4294967296
}

/** murmur3's finalizer: every input bit reaches every output bit. */
function mix(x: number): number {
  let h = x >>> 0
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b)
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35)
  return (h ^ (h >>> 16)) >>> 0
}

/** Whether the `n`-th matching request (1 for the first) of the rule gets the fault. */
export function plays(rule: FaultRule, n: number): boolean {
  return rule.rate === undefined || roll(rule.seed ?? 0, n) < rule.rate
}
