import { editDistance } from '../domain/nearest.js'
import { outcomes, paymentStatuses, type Outcome } from '../domain/payment.js'
import type { PaymentStatus } from '../domain/types.js'
import { collectRefs, type Json } from './template.js'
import {
  BOUND_FIELDS,
  CREATE_FIELDS,
  SCENARIO_VERSION,
  type CallbackStep,
  type CreateExpect,
  type CreateStep,
  type Presence,
  type Scenario,
  type SimulateStep,
  type Step,
  type VerifyExpect,
} from './types.js'

/** Step kinds, each named by the one action key a step object carries. */
export const STEP_KINDS = ['receiver', 'merchant', 'disable', 'enable', 'create', 'simulate', 'verify', 'callback', 'wait'] as const

const COMMON_KEYS = ['title', 'expect']
const NAME = /^[A-Za-z_][A-Za-z0-9_-]*$/
const RESERVED = new Set(['sandbox', 'repeat'])
export const LIMITS = { waitMs: 60_000, withinMs: 120_000, defaultWithinMs: 5_000, failFirst: 100, steps: 500, depth: 64 } as const

/** Problems found in one file; nothing in it runs. */
export class ScenarioFileError extends Error {
  readonly file: string
  readonly problems: string[]
  constructor(file: string, problems: string[]) {
    super(`${file} is not a valid scenario:\n${problems.map((p) => `  ${p}`).join('\n')}`)
    this.name = 'ScenarioFileError'
    this.file = file
    this.problems = problems
  }
}

type Bound = { kind: keyof typeof BOUND_FIELDS; step: number; fields: readonly string[]; create?: CreateStep }

/** Parses and checks a scenario file's text. Pure: every problem is reported, with its step and field. */
export function parseScenario(text: string, file: string): { scenario: Scenario } | { problems: string[] } {
  let doc: unknown
  try {
    doc = JSON.parse(text)
  } catch (error) {
    return { problems: [`${file}: not valid JSON: ${jsonErrorWhere(text, (error as Error).message)}`] }
  }
  // Checking and running walk values recursively; a deeper file would overflow the stack.
  if (deeperThan(doc, LIMITS.depth)) {
    return { problems: [`${file}: arrays and objects nested more than ${LIMITS.depth} levels deep; a scenario needs far fewer`] }
  }
  const checker = new Checker(file)
  const scenario = checker.scenario(doc)
  return checker.problems.length > 0 || !scenario ? { problems: checker.problems } : { scenario }
}

/** Like parseScenario, but throws ScenarioFileError. */
export function parseScenarioOrThrow(text: string, file: string): Scenario {
  const parsed = parseScenario(text, file)
  if ('problems' in parsed) throw new ScenarioFileError(file, parsed.problems)
  return parsed.scenario
}

/** Whether arrays and objects nest more than `limit` levels; iterative, so any depth is safe to measure. */
function deeperThan(value: unknown, limit: number): boolean {
  const stack: Array<[unknown, number]> = [[value, 1]]
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    const [v, depth] = next
    if (typeof v !== 'object' || v === null) continue
    if (depth > limit) return true
    for (const child of Array.isArray(v) ? v : Object.values(v)) stack.push([child, depth + 1])
  }
  return false
}

function jsonErrorWhere(text: string, message: string): string {
  const at = /at position (\d+)/.exec(message)
  if (!at) return message
  const pos = Number(at[1])
  const before = text.slice(0, pos).split('\n')
  return `${message.replace(/ in JSON at position \d+.*$/, '')} at line ${before.length}, column ${before.at(-1)!.length + 1}`
}

class Checker {
  readonly problems: string[] = []
  private readonly bound = new Map<string, Bound>()
  private where = ''

  constructor(private readonly file: string) {
    this.bound.set('sandbox', { kind: 'sandbox', step: 0, fields: BOUND_FIELDS.sandbox })
  }

  private problem(field: string, message: string): void {
    const at = [this.where, field].filter(Boolean).join(' › ')
    this.problems.push(`${this.file}: ${at ? `${at}: ` : ''}${message}`)
  }

  scenario(doc: unknown): Scenario | undefined {
    if (!isObject(doc)) {
      this.problem('', `must be a JSON object {"version": ${SCENARIO_VERSION}, "name": …, "steps": […]}, got ${describe(doc)}`)
      return undefined
    }
    this.onlyKeys(doc, ['version', 'name', 'description', 'steps'], '')
    if (doc.version !== SCENARIO_VERSION) {
      this.problem('version', doc.version === undefined ? `missing; write "version": ${SCENARIO_VERSION}` : `must be ${SCENARIO_VERSION} (the only format version), got ${describe(doc.version)}`)
    }
    const name = this.text(doc, 'name', { required: true, max: 200 })
    const description = this.text(doc, 'description', { max: 2000 })
    const steps: Step[] = []
    if (!Array.isArray(doc.steps)) {
      this.problem('steps', doc.steps === undefined ? 'missing; a scenario is a list of steps' : `must be an array of steps, got ${describe(doc.steps)}`)
    } else if (doc.steps.length === 0) {
      this.problem('steps', 'is empty; a scenario needs at least one step')
    } else if (doc.steps.length > LIMITS.steps) {
      this.problem('steps', `has ${doc.steps.length} steps; at most ${LIMITS.steps}`)
    } else {
      doc.steps.forEach((raw, i) => {
        const step = this.step(raw, i + 1)
        if (step) steps.push(step)
      })
    }
    this.where = ''
    if (name === undefined) return undefined
    return { version: SCENARIO_VERSION, name, ...(description !== undefined ? { description } : {}), file: this.file, steps }
  }

  private step(raw: unknown, number: number): Step | undefined {
    this.where = `step ${number}`
    if (!isObject(raw)) {
      this.problem('', `must be an object with one of ${STEP_KINDS.join(', ')}, got ${describe(raw)}`)
      return undefined
    }
    const actions = Object.keys(raw).filter((k) => !COMMON_KEYS.includes(k))
    const kinds = actions.filter((k): k is (typeof STEP_KINDS)[number] => (STEP_KINDS as readonly string[]).includes(k))
    const unknown = actions.filter((k) => !kinds.includes(k as never))
    if (kinds.length !== 1) {
      this.problem(
        '',
        kinds.length === 0
          ? `has no action; use one of ${STEP_KINDS.join(', ')}${unknown.length ? ` (unknown: ${unknown.join(', ')})` : ''}`
          : `has ${kinds.join(' and ')}; a step does one thing`,
      )
      return undefined
    }
    const kind = kinds[0]!
    this.where = `step ${number} (${kind})`
    for (const key of unknown) this.problem(key, `is not a step field; a step has "${kind}" and optionally ${COMMON_KEYS.map((k) => `"${k}"`).join(', ')}`)
    const title = this.text(raw, 'title', { max: 200 })
    const base = { number, ...(title !== undefined ? { title } : {}) }
    if (raw.expect !== undefined && !['create', 'simulate', 'verify'].includes(kind)) {
      this.problem('expect', `a ${kind} step takes no "expect"${kind === 'callback' ? '; the step itself is the expectation' : ''}`)
    }
    const body = raw[kind]
    switch (kind) {
      case 'wait': {
        if (!isInt(body) || body < 0 || body > LIMITS.waitMs) {
          this.problem('wait', `must be a whole number of milliseconds from 0 to ${LIMITS.waitMs}, got ${describe(body)}`)
          return undefined
        }
        return { ...base, kind, ms: body }
      }
      case 'disable':
      case 'enable': {
        if (typeof body !== 'string') {
          this.problem(kind, `must be the name of a merchant step (its "as"), got ${describe(body)}`)
          return undefined
        }
        this.mustBe(kind, body, 'merchant')
        return { ...base, kind, merchant: body }
      }
      case 'receiver':
        return this.receiver(body, base)
      case 'merchant':
        return this.merchant(body, base)
      case 'create':
        return this.create(body, raw.expect, base)
      case 'simulate':
        return this.simulate(body, raw.expect, base)
      case 'verify':
        return this.verify(body, raw.expect, base)
      case 'callback':
        return this.callback(body, base)
    }
  }

  private receiver(body: unknown, base: { number: number; title?: string }): Step | undefined {
    if (!this.isObjectAt('receiver', body, '{"as": "receiver"}')) return undefined
    this.onlyKeys(body, ['as', 'failFirst', 'failStatus'], 'receiver')
    const as = this.bindName(body, 'receiver')
    const failFirst = this.int(body, 'failFirst', 'receiver', 0, LIMITS.failFirst) ?? 0
    const failStatus = this.int(body, 'failStatus', 'receiver', 400, 599) ?? 500
    if (as === undefined) return undefined
    this.bind(as, { kind: 'receiver', step: base.number, fields: BOUND_FIELDS.receiver })
    return { ...base, kind: 'receiver', as, failFirst, failStatus }
  }

  private merchant(body: unknown, base: { number: number; title?: string }): Step | undefined {
    if (!this.isObjectAt('merchant', body, '{"as": "shop"}')) return undefined
    this.onlyKeys(body, ['as', 'key', 'name'], 'merchant')
    const as = this.bindName(body, 'merchant')
    for (const field of ['key', 'name'] as const) {
      if (body[field] !== undefined && typeof body[field] !== 'string') this.problem(`merchant.${field}`, `must be a string, got ${describe(body[field])}`)
    }
    this.refs(body.key as Json, 'merchant.key')
    this.refs(body.name as Json, 'merchant.name')
    if (as === undefined) return undefined
    this.bind(as, { kind: 'merchant', step: base.number, fields: BOUND_FIELDS.merchant })
    return {
      ...base,
      kind: 'merchant',
      as,
      ...(typeof body.key === 'string' ? { key: body.key } : {}),
      ...(typeof body.name === 'string' ? { name: body.name } : {}),
    }
  }

  private create(body: unknown, expectRaw: unknown, base: { number: number; title?: string }): Step | undefined {
    if (!this.isObjectAt('create', body, '{"as": "order", "merchant": "${shop.key}", "amount": 10, "callbackUrl": "${receiver.url}"}')) return undefined
    this.onlyKeys(body, ['as', ...CREATE_FIELDS], 'create')
    const as = body.as === undefined ? undefined : this.bindName(body, 'create')
    const sent: Record<string, Json> = {}
    for (const field of CREATE_FIELDS) {
      if (body[field] === undefined) continue
      sent[field] = body[field] as Json
      this.refs(body[field] as Json, `create.${field}`)
    }
    let expect: CreateExpect = { result: 100 }
    if (expectRaw !== undefined && this.isObjectAt('expect', expectRaw, '{"result": 105, "message": "Amount is missing or invalid"}')) {
      if (expectRaw.error !== undefined) {
        this.onlyKeys(expectRaw, ['error', 'message'], 'expect')
        const error = this.text(expectRaw, 'error', { required: true, max: 100, prefix: 'expect.' })
        const message = this.presence(expectRaw, 'message')
        if (error !== undefined) expect = { error, ...(message !== undefined ? { message } : {}) }
      } else {
        this.onlyKeys(expectRaw, ['result', 'message', 'trackId'], 'expect')
        const result = this.int(expectRaw, 'result', 'expect', 0, 999)
        if (result === undefined && expectRaw.result === undefined) this.problem('expect.result', 'missing; give the expected result code (or "error" for a request error)')
        const message = this.presence(expectRaw, 'message')
        let trackId: boolean | undefined
        if (expectRaw.trackId !== undefined) {
          if (typeof expectRaw.trackId !== 'boolean') this.problem('expect.trackId', `must be true (present) or false (absent), got ${describe(expectRaw.trackId)}`)
          else trackId = expectRaw.trackId
        }
        expect = { result: result ?? 100, ...(message !== undefined ? { message } : {}), ...(trackId !== undefined ? { trackId } : {}) }
      }
    }
    const step: CreateStep = { ...base, kind: 'create', ...(as !== undefined ? { as } : {}), body: sent, expect }
    if (as !== undefined) {
      const succeeds = 'result' in expect && expect.result === 100
      const fields = succeeds ? BOUND_FIELDS.create : 'result' in expect ? BOUND_FIELDS.createFailure : BOUND_FIELDS.createError
      this.bind(as, { kind: succeeds ? 'create' : 'createFailure', step: base.number, fields, create: step })
    }
    return step
  }

  private simulate(body: unknown, expectRaw: unknown, base: { number: number; title?: string }): Step | undefined {
    if (!this.isObjectAt('simulate', body, '{"payment": "order", "outcome": "paid"}')) return undefined
    this.onlyKeys(body, ['payment', 'outcome', 'amount', 'asset'], 'simulate')
    const payment = this.paymentName(body, 'simulate', true)
    let outcome: Outcome | undefined
    if (typeof body.outcome !== 'string' || !(outcomes as readonly string[]).includes(body.outcome)) {
      this.problem('simulate.outcome', `must be one of ${outcomes.join(', ')}, got ${describe(body.outcome)}`)
    } else outcome = body.outcome as Outcome
    this.refs(body.amount as Json, 'simulate.amount')
    this.refs(body.asset as Json, 'simulate.asset')
    let expect: SimulateStep['expect'] | undefined = outcome ? { status: outcome } : undefined
    if (expectRaw !== undefined && this.isObjectAt('expect', expectRaw, '{"status": "paid"} or {"error": "invalid_transition"}')) {
      this.onlyKeys(expectRaw, expectRaw.error !== undefined ? ['error'] : ['status'], 'expect')
      if (expectRaw.error !== undefined) {
        const error = this.text(expectRaw, 'error', { required: true, max: 100, prefix: 'expect.' })
        if (error !== undefined) expect = { error }
      } else if (typeof expectRaw.status !== 'string' || !(paymentStatuses as readonly string[]).includes(expectRaw.status)) {
        this.problem('expect.status', `must be one of ${paymentStatuses.join(', ')}, got ${describe(expectRaw.status)}`)
      } else expect = { status: expectRaw.status as PaymentStatus }
    }
    if (payment === undefined || outcome === undefined || expect === undefined) return undefined
    return {
      ...base,
      kind: 'simulate',
      payment,
      outcome,
      ...(body.amount !== undefined ? { amount: body.amount as Json } : {}),
      ...(body.asset !== undefined ? { asset: body.asset as Json } : {}),
      expect,
    }
  }

  private verify(body: unknown, expectRaw: unknown, base: { number: number; title?: string }): Step | undefined {
    if (!this.isObjectAt('verify', body, '{"payment": "order"}')) return undefined
    this.onlyKeys(body, ['as', 'payment', 'trackId', 'merchant'], 'verify')
    const as = body.as === undefined ? undefined : this.bindName(body, 'verify')
    const payment = this.paymentName(body, 'verify', false)
    if (body.payment === undefined) {
      for (const field of ['trackId', 'merchant'] as const) {
        if (body[field] === undefined) this.problem(`verify.${field}`, `missing; without "payment", verify needs both "trackId" and "merchant"`)
      }
    }
    this.refs(body.trackId as Json, 'verify.trackId')
    this.refs(body.merchant as Json, 'verify.merchant')
    const expect: VerifyExpect = {}
    if (expectRaw !== undefined && this.isObjectAt('expect', expectRaw, '{"result": 100, "amountMatchesOrder": true, "refNumber": true}')) {
      this.onlyKeys(expectRaw, ['result', 'amount', 'amountMatchesOrder', 'refNumber', 'message'], 'expect')
      const result = this.int(expectRaw, 'result', 'expect', 0, 999)
      if (result !== undefined) expect.result = result
      if (expectRaw.amount !== undefined) {
        if (typeof expectRaw.amount !== 'number' && typeof expectRaw.amount !== 'string') this.problem('expect.amount', `must be a number, got ${describe(expectRaw.amount)}`)
        else {
          expect.amount = expectRaw.amount
          this.refs(expectRaw.amount, 'expect.amount')
        }
      }
      if (expectRaw.amountMatchesOrder !== undefined) {
        if (typeof expectRaw.amountMatchesOrder !== 'boolean') this.problem('expect.amountMatchesOrder', `must be true or false, got ${describe(expectRaw.amountMatchesOrder)}`)
        else if (body.payment === undefined) this.problem('expect.amountMatchesOrder', 'needs "payment" in verify, to know the order amount')
        else expect.amountMatchesOrder = expectRaw.amountMatchesOrder
      }
      const refNumber = this.presence(expectRaw, 'refNumber')
      if (refNumber !== undefined) expect.refNumber = refNumber
      const message = this.presence(expectRaw, 'message')
      if (message !== undefined) expect.message = message
    }
    if (as !== undefined) this.bind(as, { kind: 'verify', step: base.number, fields: BOUND_FIELDS.verify })
    return {
      ...base,
      kind: 'verify',
      ...(as !== undefined ? { as } : {}),
      ...(payment !== undefined ? { payment } : {}),
      ...(body.trackId !== undefined ? { trackId: body.trackId as Json } : {}),
      ...(body.merchant !== undefined ? { merchant: body.merchant as Json } : {}),
      expect,
    }
  }

  private callback(body: unknown, base: { number: number; title?: string }): Step | undefined {
    if (!this.isObjectAt('callback', body, '{"receiver": "receiver", "payment": "order", "match": {"status": "paid"}}')) return undefined
    this.onlyKeys(body, ['receiver', 'payment', 'match', 'within', 'attempts'], 'callback')
    let receiver: string | undefined
    if (body.receiver !== undefined) {
      if (typeof body.receiver !== 'string') this.problem('callback.receiver', `must be the name of a receiver step, got ${describe(body.receiver)}`)
      else if (this.mustBe('callback.receiver', body.receiver, 'receiver')) receiver = body.receiver
    }
    const payment = this.paymentName(body, 'callback', body.receiver === undefined)
    let match: Record<string, Json> = {}
    if (body.match !== undefined) {
      if (!isObject(body.match)) this.problem('callback.match', `must be an object of body fields, e.g. {"status": "paid"}, got ${describe(body.match)}`)
      else {
        match = body.match as Record<string, Json>
        this.refs(match, 'callback.match')
      }
    }
    if (body.payment === undefined && Object.keys(match).length === 0) this.problem('callback', 'give "payment" or "match": something to tell this callback from others')
    const within = this.int(body, 'within', 'callback', 1, LIMITS.withinMs) ?? LIMITS.defaultWithinMs
    const attempts = this.int(body, 'attempts', 'callback', 1, LIMITS.failFirst + 1)
    const step: CallbackStep = {
      ...base,
      kind: 'callback',
      ...(receiver !== undefined ? { receiver } : {}),
      ...(payment !== undefined ? { payment } : {}),
      match,
      within,
      ...(attempts !== undefined ? { attempts } : {}),
    }
    return step
  }

  // ── helpers ──────────────────────────────────────────────────────────

  private isObjectAt(field: string, value: unknown, example: string): value is Record<string, unknown> {
    if (isObject(value)) return true
    this.problem(field, `must be an object like ${example}, got ${describe(value)}`)
    return false
  }

  private onlyKeys(obj: Record<string, unknown>, allowed: string[], field: string): void {
    for (const key of Object.keys(obj)) {
      if (!allowed.includes(key)) {
        const path = field ? `${field}.${key}` : key
        const near = allowed.find((a) => editDistance(a.toLowerCase(), key.toLowerCase()) <= 2)
        this.problem(path, `unknown field${near ? ` (did you mean "${near}"?)` : ''}; allowed: ${allowed.join(', ')}`)
      }
    }
  }

  private text(obj: Record<string, unknown>, key: string, options: { required?: boolean; max: number; prefix?: string }): string | undefined {
    const value = obj[key]
    const path = `${options.prefix ?? ''}${key}`
    if (value === undefined) {
      if (options.required) this.problem(path, 'missing')
      return undefined
    }
    if (typeof value !== 'string' || value.trim().length === 0 || value.length > options.max) {
      this.problem(path, `must be a non-empty string of at most ${options.max} characters, got ${describe(value)}`)
      return undefined
    }
    return value
  }

  private int(obj: Record<string, unknown>, key: string, field: string, min: number, max: number): number | undefined {
    const value = obj[key]
    if (value === undefined) return undefined
    if (!isInt(value) || value < min || value > max) {
      this.problem(`${field}.${key}`, `must be a whole number from ${min} to ${max}, got ${describe(value)}`)
      return undefined
    }
    return value
  }

  private presence(obj: Record<string, unknown>, key: string): Presence | undefined {
    const value = obj[key]
    if (value === undefined) return undefined
    if (typeof value !== 'boolean' && typeof value !== 'string') {
      this.problem(`expect.${key}`, `must be true (present), false (absent) or the exact text, got ${describe(value)}`)
      return undefined
    }
    if (typeof value === 'string') this.refs(value, `expect.${key}`)
    return value
  }

  private bindName(obj: Record<string, unknown>, field: string): string | undefined {
    const as = obj.as
    if (as === undefined) {
      this.problem(`${field}.as`, 'missing; name it so later steps can refer to it, e.g. "as": "order"')
      return undefined
    }
    if (typeof as !== 'string' || !NAME.test(as)) {
      this.problem(`${field}.as`, `must be a name of letters, digits, _ or - starting with a letter or _, got ${describe(as)}`)
      return undefined
    }
    if (RESERVED.has(as)) {
      this.problem(`${field}.as`, `"${as}" is reserved; pick another name`)
      return undefined
    }
    const earlier = this.bound.get(as)
    if (earlier) {
      this.problem(`${field}.as`, `"${as}" is already the name of step ${earlier.step}`)
      return undefined
    }
    return as
  }

  private bind(name: string, bound: Bound): void {
    this.bound.set(name, bound)
  }

  /** A name that must belong to an earlier step of the given kind. */
  private mustBe(field: string, name: string, kind: 'merchant' | 'receiver'): boolean {
    const bound = this.bound.get(name)
    if (!bound) {
      this.problem(field, `no earlier ${kind} step is named "${name}"${this.known(kind)}`)
      return false
    }
    if (bound.kind !== kind) {
      this.problem(field, `"${name}" is step ${bound.step}, a ${bound.kind === 'createFailure' ? 'create' : bound.kind} step, not a ${kind} step`)
      return false
    }
    return true
  }

  private paymentName(body: Record<string, unknown>, field: string, required: boolean): string | undefined {
    const name = body.payment
    if (name === undefined) {
      if (required) this.problem(`${field}.payment`, 'missing; the name of an earlier create step (its "as")')
      return undefined
    }
    if (typeof name !== 'string') {
      this.problem(`${field}.payment`, `must be the name of a create step, got ${describe(name)}`)
      return undefined
    }
    const bound = this.bound.get(name)
    if (!bound || (bound.kind !== 'create' && bound.kind !== 'createFailure')) {
      this.problem(`${field}.payment`, bound ? `"${name}" is step ${bound.step}, a ${bound.kind} step, not a create step` : `no earlier create step is named "${name}"${this.known('create')}`)
      return undefined
    }
    if (bound.kind === 'createFailure') {
      this.problem(`${field}.payment`, `"${name}" (step ${bound.step}) expects a failure, so it has no trackId`)
      return undefined
    }
    return name
  }

  private known(kind: string): string {
    const names = [...this.bound.entries()].filter(([, b]) => b.kind === kind || (kind === 'create' && b.kind === 'createFailure')).map(([n]) => n)
    return names.length > 0 ? ` (earlier ${kind} steps: ${names.join(', ')})` : ''
  }

  /** Every ${name.field} must name an earlier step and a field it binds. */
  private refs(value: Json | undefined, path: string): void {
    if (value === undefined) return
    const { refs, errors } = collectRefs(value, path)
    for (const e of errors) this.problem(e.path, e.message)
    for (const ref of refs) {
      const bound = this.bound.get(ref.name)
      if (!bound) {
        const all = [...this.bound.keys()]
        this.problem(ref.path, `${ref.source} refers to "${ref.name}", which no earlier step defines (defined so far: ${all.join(', ')})`)
      } else if (!bound.fields.includes(ref.field)) {
        this.problem(ref.path, `${ref.source}: "${ref.name}" (${bound.step === 0 ? 'built in' : `step ${bound.step}`}) has ${bound.fields.join(', ')}, not ${ref.field}`)
      }
    }
  }
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}

function isInt(v: unknown): v is number {
  return typeof v === 'number' && Number.isInteger(v)
}

function describe(v: unknown): string {
  if (v === undefined) return 'nothing'
  if (v === null) return 'null'
  if (Array.isArray(v)) return 'an array'
  if (typeof v === 'object') return 'an object'
  const text = JSON.stringify(v)
  return text.length > 60 ? `${text.slice(0, 57)}…"` : text
}
