import type { StepFile } from './file.js'
import { CREATE_FIELDS, LIMITS, STEP_KINDS, stepSchemas, type StepKind } from './schema.js'
import { formatOf, readSource, type Format, type Path, type Position, type Source } from './source.js'
import { collectRefs, type Json } from './template.js'
import { envMissing, readVars, type VarValue } from './vars.js'
import { patternProblem } from './pattern.js'
import { HTTP_LIMITS } from './schema-http.js'
import {
  BOUND_FIELDS,
  SCENARIO_VERSION,
  type ChatAction,
  type CreateExpect,
  type FaultStep,
  type HttpBind,
  type HttpExpect,
  type HttpMethod,
  type HttpStep,
  type JsonMatcher,
  type PaymentRef,
  type Scenario,
  type Step,
} from './types.js'
import { nearest, schemaProblems, type Problem } from './validate.js'
import { CLOCK_LATEST, CLOCK_LATEST_MS } from '../domain/clock-range.js'
import { readDuration } from '../domain/duration.js'
import { faultRuleProblem } from '../domain/api-fault.js'

export { LIMITS, STEP_KINDS }

/** An http step as the schema accepts it. */
interface HttpFile {
  as?: string
  method?: HttpMethod
  url: string
  headers?: Record<string, string>
  json?: Json
  form?: Record<string, string | number | boolean>
  body?: string
  timeout?: string
  within?: string
  bind?: Record<string, HttpBind>
}

interface HttpExpectFile {
  status?: number | string | Array<number | string>
  json?: Record<string, Json>
  body?: string
  headers?: Record<string, string>
}

/** Names the runner binds itself: ${sandbox.url}, ${env.…}, ${vars.…}, and the ${repeat:…} template. */
const RESERVED = new Set(['sandbox', 'repeat', 'env', 'vars'])
/** More than this many problems in one file are counted, not listed; a longer line is cut. */
const MAX_PROBLEMS = 50
const MAX_LINE = 1000

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

export interface ParseOptions {
  /** By default YAML for a name ending in .yaml or .yml, JSON otherwise. */
  format?: Format
  /** What `${env.NAME}` reads; a name it lacks is a mistake in the file. Default: none (loadScenarios passes process.env). */
  env?: Readonly<Record<string, string | undefined>>
  /** `--var name=value`: replaces the file's var of that name (a name the file does not declare is left to the caller). */
  vars?: Readonly<Record<string, string>>
}


/**
 * Parses and checks a scenario file's text (JSON or YAML). Pure: every problem is reported, as
 * `file:line:col: step N (kind) › field: what is wrong`.
 */
export function parseScenario(text: string, file: string, options: ParseOptions = {}): { scenario: Scenario } | { problems: string[] } {
  const read = readSource(text, options.format ?? formatOf(file), LIMITS.depth)
  if ('problems' in read) return { problems: read.problems.map((p) => `${located(file, p.at)}: ${p.message}`) }
  const { value } = read.source
  const problems = schemaProblems(value)
  const env = options.env ?? {}
  // The schema cannot say what a name refers to: checked on every step the schema accepted.
  const doc = value as { name?: string; description?: string; steps?: unknown; vars?: unknown }
  const declared = problems.some((p) => p.path[0] === 'vars') ? {} : ((doc?.vars ?? {}) as Record<string, VarValue>)
  const vars = readVars(declared, options.vars ?? {}, env, problems)
  const checker = new Checker(problems, (path) => `${located(file, read.source.locate(path))}: ${label(path, value)}`, { env, vars: Object.keys(declared) })
  const steps = Array.isArray(doc?.steps) && !problems.some((p) => p.path.length === 1 && p.path[0] === 'steps') ? checker.steps(doc.steps) : []
  if (problems.length > 0) return { problems: report(problems, read.source, file) }
  const variables = { env: checker.envUsed, vars }
  return { scenario: { version: SCENARIO_VERSION, name: doc.name!, ...(doc.description !== undefined ? { description: doc.description } : {}), file, variables, steps } }
}

/** Like parseScenario, but throws ScenarioFileError. */
export function parseScenarioOrThrow(text: string, file: string, options: ParseOptions = {}): Scenario {
  const parsed = parseScenario(text, file, options)
  if ('problems' in parsed) throw new ScenarioFileError(file, parsed.problems)
  return parsed.scenario
}

/** In the order of the file's steps, each with its position and the step it belongs to. */
function report(problems: Problem[], source: Source, file: string): string[] {
  const stepOf = (p: Problem) => (p.path[0] === 'steps' && typeof p.path[1] === 'number' ? p.path[1] : -1)
  const sorted = problems
    .map((p, i) => [p, i] as const)
    .sort(([a, i], [b, j]) => stepOf(a) - stepOf(b) || i - j)
    .map(([p]) => p)
  const lines = sorted.slice(0, MAX_PROBLEMS).map((p) => {
    const where = label(p.path, source.value)
    const line = `${located(file, source.locate(p.path, p.key))}: ${where ? `${where}: ` : ''}${p.message}`
    // Field names and ${…} come from the file: a huge one is cut, not printed whole.
    return line.length > MAX_LINE ? `${line.slice(0, MAX_LINE - 1)}…` : line
  })
  return sorted.length > MAX_PROBLEMS ? [...lines, `${file}: … and ${sorted.length - MAX_PROBLEMS} more problems`] : lines
}

/** `file:line:col`, the form editors and terminals link to the place. */
function located(file: string, position: Position | undefined): string {
  return position ? `${file}:${position.line}:${position.col}` : file
}

/** ['steps', 2, 'create', 'amout'] → `step 3 (create) › create.amout` */
function label(path: Path, value: unknown): string {
  const field = (segments: Path) => segments.reduce<string>((s, seg) => (typeof seg === 'number' ? `${s}[${seg}]` : s ? `${s}.${seg}` : seg), '')
  if (path[0] !== 'steps' || typeof path[1] !== 'number') return field(path)
  const kind = kindOf((value as { steps: unknown[] }).steps[path[1]])
  const step = `step ${path[1] + 1}${kind ? ` (${kind})` : ''}`
  const rest = field(path.slice(2))
  return rest ? `${step} › ${rest}` : step
}

/** The one action key of a step object, if it has exactly one. */
function kindOf(step: unknown): StepKind | undefined {
  if (typeof step !== 'object' || step === null) return undefined
  const kinds = STEP_KINDS.filter((k) => Object.hasOwn(step, k))
  return kinds.length === 1 ? kinds[0] : undefined
}

type BoundKind = 'sandbox' | 'receiver' | 'merchant' | 'create' | 'createFailure' | 'verify' | 'chat' | 'http'
/** A name bound by a step; `fields` is left out for a step with schema problems, whose references are not checked. */
type Bound = { kind: BoundKind; step: number; fields?: readonly string[] }

/** Checks names across steps (each `as` unique, each reference to an earlier step that binds it) and builds the steps. */
class Checker {
  private readonly bound = new Map<string, Bound>([['sandbox', { kind: 'sandbox', step: 0, fields: BOUND_FIELDS.sandbox }]])
  /** The environment variables the steps use, with their values. */
  readonly envUsed: Record<string, string> = {}

  constructor(
    private readonly problems: Problem[],
    /** `file:line:col: step N (kind) › field` of a place in the file, for what only the sandbox can check. */
    private readonly where: (path: Path) => string,
    private readonly variables: { env: Readonly<Record<string, string | undefined>>; vars: readonly string[] },
  ) {}

  steps(raw: unknown[]): Step[] {
    const invalid = new Set(this.problems.flatMap((p) => (p.path[0] === 'steps' && typeof p.path[1] === 'number' ? [p.path[1]] : [])))
    const steps: Step[] = []
    raw.forEach((item, i) => {
      const kind = kindOf(item)
      if (kind === undefined) return
      if (invalid.has(i)) return this.bindUnchecked(item, kind, i)
      const step = this.step(item, kind, i)
      if (step) steps.push(step)
    })
    return steps
  }

  private problem(path: Path, message: string): void {
    this.problems.push({ path, message })
  }

  /** A step the schema accepted (so it has the schema's shape) as the runner takes it. */
  private step(raw: unknown, kind: StepKind, i: number): Step | undefined {
    const number = i + 1
    const at = (...rest: Path): Path => ['steps', i, ...rest]
    const { title } = raw as { title?: string }
    const base = { number, ...(title !== undefined ? { title } : {}) }
    switch (kind) {
      case 'receiver': {
        const { as, failFirst, failStatus, verifyWith, refuseRepeats } = (raw as StepFile<'receiver'>).receiver
        const defaults = stepSchemas.receiver.properties.receiver.properties
        this.refs(verifyWith, at('receiver', 'verifyWith'))
        this.bind(as, at('receiver', 'as'), { kind, step: number, fields: BOUND_FIELDS.receiver })
        return {
          ...base,
          kind,
          as,
          failFirst: failFirst ?? defaults.failFirst.default,
          failStatus: failStatus ?? defaults.failStatus.default,
          ...(verifyWith !== undefined ? { verifyWith } : {}),
          refuseRepeats: refuseRepeats ?? defaults.refuseRepeats.default,
        }
      }
      case 'merchant': {
        const { as, key, name } = (raw as StepFile<'merchant'>).merchant
        this.refs(key, at('merchant', 'key'))
        this.refs(name, at('merchant', 'name'))
        this.bind(as, at('merchant', 'as'), { kind, step: number, fields: BOUND_FIELDS.merchant })
        return { ...base, kind, as, ...(key !== undefined ? { key } : {}), ...(name !== undefined ? { name } : {}) }
      }
      case 'disable':
      case 'enable': {
        const merchant = (raw as Record<typeof kind, string>)[kind]
        this.mustBe(merchant, at(kind), 'merchant')
        return { ...base, kind, merchant }
      }
      case 'create': {
        const { create, expect = { result: 100 } } = raw as StepFile<'create'>
        const body: Record<string, Json> = {}
        for (const field of CREATE_FIELDS) {
          if (create[field] === undefined) continue
          body[field] = create[field] as Json
          this.refs(body[field], at('create', field))
        }
        this.refs(expect.message, at('expect', 'message'))
        const step = { ...base, kind, ...(create.as !== undefined ? { as: create.as } : {}), body, expect: expect satisfies CreateExpect }
        if (create.as !== undefined) {
          const succeeds = 'result' in expect && expect.result === 100
          const fields = succeeds ? BOUND_FIELDS.create : 'result' in expect ? BOUND_FIELDS.createFailure : BOUND_FIELDS.createError
          this.bind(create.as, at('create', 'as'), { kind: succeeds ? 'create' : 'createFailure', step: number, fields })
        }
        return step
      }
      case 'simulate': {
        const { simulate, expect = { status: simulate.outcome } } = raw as StepFile<'simulate'>
        const payment = this.paymentRef(simulate, at('simulate'))
        this.refs(simulate.amount as Json | undefined, at('simulate', 'amount'))
        this.refs(simulate.asset as Json | undefined, at('simulate', 'asset'))
        const { amount, asset } = simulate as { amount?: Json; asset?: Json }
        return {
          ...base,
          kind,
          ...payment,
          outcome: simulate.outcome,
          ...(amount !== undefined ? { amount } : {}),
          ...(asset !== undefined ? { asset } : {}),
          ...(simulate.callback !== undefined ? { callback: simulate.callback } : {}),
          expect,
        }
      }
      case 'verify': {
        const { verify, expect = {} } = raw as StepFile<'verify'>
        if (verify.payment !== undefined) this.payment(verify.payment, at('verify', 'payment'))
        const { trackId, merchant } = verify as { trackId?: Json; merchant?: Json }
        this.refs(trackId, at('verify', 'trackId'))
        this.refs(merchant, at('verify', 'merchant'))
        for (const field of ['amount', 'refNumber', 'message'] as const) this.refs(expect[field], at('expect', field))
        if (verify.as !== undefined) this.bind(verify.as, at('verify', 'as'), { kind, step: number, fields: BOUND_FIELDS.verify })
        return {
          ...base,
          kind,
          ...(verify.as !== undefined ? { as: verify.as } : {}),
          ...(verify.payment !== undefined ? { payment: verify.payment } : {}),
          ...(trackId !== undefined ? { trackId } : {}),
          ...(merchant !== undefined ? { merchant } : {}),
          operator: verify.operator ?? false,
          expect,
        }
      }
      case 'callback': {
        const { receiver, payment, trackId, within, attempts, match = {} } = (raw as StepFile<'callback'>).callback
        if (receiver !== undefined) this.mustBe(receiver, at('callback', 'receiver'), 'receiver')
        if (payment !== undefined) this.payment(payment, at('callback', 'payment'))
        this.refs(trackId, at('callback', 'trackId'))
        this.refs(match as Json, at('callback', 'match'))
        return {
          ...base,
          kind,
          ...(receiver !== undefined ? { receiver } : {}),
          ...(payment !== undefined ? { payment } : {}),
          ...(trackId !== undefined ? { trackId } : {}),
          match: match as Record<string, Json>,
          within: within ?? stepSchemas.callback.properties.callback.properties.within.default,
          ...(attempts !== undefined ? { attempts } : {}),
        }
      }
      case 'wait':
        return { ...base, kind, ms: (raw as StepFile<'wait'>).wait }
      case 'clock': {
        const move = (raw as StepFile<'clock'>).clock
        if ('advance' in move && move.advance !== undefined) {
          const read = readDuration('clock.advance', move.advance, { min: 1 })
          if ('problem' in read) this.problem(at('clock', 'advance'), read.problem.replace(/^clock\.advance /, ''))
          return { ...base, kind, move: { advance: move.advance } }
        }
        if ('set' in move && move.set !== undefined) {
          const time = Date.parse(move.set)
          if (!Number.isFinite(time)) this.problem(at('clock', 'set'), `must be an ISO 8601 time, e.g. 2030-01-31T12:00:00Z (got ${JSON.stringify(move.set)})`)
          else if (time > CLOCK_LATEST_MS) this.problem(at('clock', 'set'), `must be no later than ${CLOCK_LATEST}, the latest time the sandbox clock goes to (got ${JSON.stringify(move.set)})`)
          return { ...base, kind, move: { set: move.set } }
        }
        return { ...base, kind, move: { reset: true } }
      }
      case 'mine': {
        const { blocks, until } = (raw as StepFile<'mine'>).mine
        if (until !== undefined) this.payment(until, at('mine', 'until'))
        return { ...base, kind, blocks: blocks ?? stepSchemas.mine.properties.mine.properties.blocks.default, ...(until !== undefined ? { until } : {}) }
      }
      case 'verifies': {
        const { verifies, expect = {} } = raw as StepFile<'verifies'>
        const payment = this.paymentRef(verifies, at('verifies'))
        const within = verifies.within ?? stepSchemas.verifies.properties.verifies.properties.within.default
        return {
          ...base,
          kind,
          ...payment,
          within,
          expect: { verified: expect.verified ?? true, ...(expect.result !== undefined ? { result: expect.result } : {}), ...(expect.count !== undefined ? { count: expect.count } : {}) },
        }
      }
      case 'audit': {
        const { audit, expect = { fail: 0 } } = raw as StepFile<'audit'>
        const merchant = audit.merchant as Json | undefined
        this.refs(merchant, at('audit', 'merchant'))
        if (audit.payment !== undefined) this.payment(audit.payment, at('audit', 'payment'))
        this.refs(audit.trackId, at('audit', 'trackId'))
        return {
          ...base,
          kind,
          ...(merchant !== undefined ? { merchant } : {}),
          ...(audit.payment !== undefined ? { payment: audit.payment } : {}),
          ...(audit.trackId !== undefined ? { trackId: audit.trackId } : {}),
          strict: audit.strict ?? false,
          ignore: [...(audit.ignore ?? [])],
          expect: {
            ...(expect.verdict !== undefined ? { verdict: expect.verdict } : {}),
            ...(expect.fail !== undefined ? { fail: expect.fail } : {}),
            ...(expect.warn !== undefined ? { warn: expect.warn } : {}),
            ...(expect.found !== undefined ? { found: [...expect.found] } : {}),
            ...(expect.absent !== undefined ? { absent: [...expect.absent] } : {}),
          },
        }
      }
      case 'fault':
        return this.fault((raw as { fault: Record<string, unknown> }).fault, base, at)
      case 'chat': {
        const chat = (raw as StepFile<'chat'>).chat
        const where = this.where(chat.bot !== undefined ? at('chat', 'bot') : at('chat'))
        const common = {
          ...base,
          kind,
          where,
          chat: chat.chat ?? stepSchemas.chat.properties.chat.oneOf[0].properties.chat.default,
          ...(chat.bot !== undefined ? { bot: chat.bot } : {}),
          ...(chat.as !== undefined ? { as: chat.as } : {}),
        }
        let action: ChatAction
        let fields: readonly string[]
        if ('send' in chat) {
          this.refs(chat.send, at('chat', 'send'))
          action = { send: chat.send }
          fields = BOUND_FIELDS.chatSend
        } else if ('expect' in chat) {
          const problem = patternProblem(chat.expect)
          if (problem) this.problem(at('chat', 'expect'), problem)
          this.refs(chat.expect, at('chat', 'expect'))
          const within = readDuration('within', chat.within ?? stepSchemas.chat.properties.chat.oneOf[1].properties.within.default, { min: 1, max: LIMITS.withinMs })
          if ('problem' in within) this.problem(at('chat', 'within'), within.problem.replace(/^within /, ''))
          action = { expect: chat.expect, within: 'ms' in within ? within.ms : 0 }
          fields = BOUND_FIELDS.chatExpect
        } else {
          this.refs(chat.message, at('chat', 'message'))
          action = { press: chat.press, ...(chat.message !== undefined ? { message: chat.message } : {}) }
          fields = BOUND_FIELDS.chatPress
        }
        if (chat.as !== undefined) this.bind(chat.as, at('chat', 'as'), { kind, step: number, fields })
        return { ...common, action }
      }
      case 'http':
        return this.http(raw as { http: HttpFile; expect?: HttpExpectFile }, base, at)
      default:
        // A step kind in the schema with no case here fails to compile.
        return kind satisfies never
    }
  }

  /** An http step: references, patterns and durations checked, bodies and matchers put in one shape. */
  private http(raw: { http: HttpFile; expect?: HttpExpectFile }, base: { number: number; title?: string }, at: (...rest: Path) => Path): HttpStep {
    const { http, expect = {} } = raw
    const method = http.method ?? stepSchemas.http.properties.http.properties.method.default
    this.refs(http.url, at('http', 'url'))
    const headers: Record<string, Json> = {}
    for (const [name, value] of Object.entries(http.headers ?? {})) {
      this.refs(value, at('http', 'headers', name))
      headers[name] = value
    }
    let body: HttpStep['body']
    const given = http.json !== undefined ? 'json' : http.form !== undefined ? 'form' : http.body !== undefined ? 'body' : undefined
    if (given !== undefined && (method === 'GET' || method === 'HEAD')) this.problem(at('http', given), `a ${method} request sends no body; use method POST (or PUT, PATCH, DELETE)`)
    if (http.json !== undefined) {
      this.refs(http.json, at('http', 'json'))
      body = { json: http.json }
    } else if (http.form !== undefined) {
      this.refs(http.form, at('http', 'form'))
      body = { form: http.form }
    } else if (http.body !== undefined) {
      this.refs(http.body, at('http', 'body'))
      body = { text: http.body }
    }
    const duration = (field: 'timeout' | 'within', text: string | undefined, max: number): number | undefined => {
      if (text === undefined) return undefined
      const read = readDuration(field, text, { min: 1, max })
      if ('problem' in read) {
        this.problem(at('http', field), read.problem.replace(new RegExp(`^${field} `), ''))
        return undefined
      }
      return read.ms
    }
    const timeoutMs = duration('timeout', http.timeout ?? stepSchemas.http.properties.http.properties.timeout.default, HTTP_LIMITS.timeoutMs) ?? 0
    const withinMs = duration('within', http.within, LIMITS.withinMs)
    const bind: Record<string, HttpBind> = {}
    for (const [name, source] of Object.entries(http.bind ?? {})) {
      const path = at('http', 'bind', name)
      if ((BOUND_FIELDS.http as readonly string[]).includes(name)) this.problem(path, `"${name}" is bound by every http step already (${BOUND_FIELDS.http.join(', ')}); pick another name`)
      if ('body' in source) this.pattern(source.body, [...path, 'body'])
      if ('header' in source && source.pattern !== undefined) this.pattern(source.pattern, [...path, 'pattern'])
      bind[name] = 'header' in source ? { ...source, header: source.header.toLowerCase() } : source
    }
    const expected: HttpExpect = {}
    if (expect.status !== undefined) expected.status = Array.isArray(expect.status) ? expect.status : [expect.status]
    if (expect.json !== undefined) {
      expected.json = {}
      for (const [pointer, value] of Object.entries(expect.json)) {
        const path = at('expect', 'json', pointer)
        const matcher: JsonMatcher = typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as JsonMatcher) : { equals: value }
        for (const key of ['equals', 'gt', 'gte', 'lt', 'lte'] as const) {
          if (matcher[key] !== undefined) this.refs(matcher[key], key === 'equals' && !(typeof value === 'object' && value !== null && !Array.isArray(value)) ? path : [...path, key])
        }
        if (matcher.pattern !== undefined) this.pattern(matcher.pattern, [...path, 'pattern'])
        expected.json[pointer] = matcher
      }
    }
    if (expect.body !== undefined) {
      this.pattern(expect.body, at('expect', 'body'))
      expected.body = expect.body
    }
    if (expect.headers !== undefined) {
      expected.headers = {}
      for (const [name, value] of Object.entries(expect.headers)) {
        this.pattern(value, at('expect', 'headers', name))
        expected.headers[name.toLowerCase()] = value
      }
    }
    if (http.as !== undefined) this.bind(http.as, at('http', 'as'), { kind: 'http', step: base.number, fields: [...BOUND_FIELDS.http, ...Object.keys(bind)] })
    return {
      ...base,
      kind: 'http',
      ...(http.as !== undefined ? { as: http.as } : {}),
      method,
      url: http.url,
      headers,
      ...(body !== undefined ? { body } : {}),
      timeoutMs,
      ...(withinMs !== undefined ? { withinMs } : {}),
      bind,
      expect: expected,
      where: this.where(at('http', 'url')),
    }
  }

  /**
   * A fault step: the rule checked as the sandbox checks it (a reference in merchant or trackId stands for a value
   * that passes, its own value is checked when the step runs), `payment` as a create step of the file.
   */
  private fault(fault: Record<string, unknown>, base: { number: number; title?: string }, at: (...rest: Path) => Path): FaultStep {
    if (fault.clear === true) return { ...base, kind: 'fault', clear: true }
    const { payment, ...rule } = fault as { payment?: string } & Record<string, Json>
    if (payment !== undefined) this.payment(payment, at('fault', 'payment'))
    const stand = { ...rule } as Record<string, unknown>
    for (const field of ['merchant', 'trackId'] as const) {
      if (rule[field] === undefined) continue
      this.refs(rule[field], at('fault', field))
      if (typeof rule[field] === 'string' && rule[field].includes('${')) stand[field] = 'a_reference'
    }
    if (payment !== undefined) stand.trackId = 'a_payment'
    const problem = faultRuleProblem(stand)
    if (problem !== undefined) this.problem(at('fault'), payment !== undefined ? problem.replace(/^a create has no trackId yet: trackId/, 'a create has no trackId yet: payment') : problem)
    return { ...base, kind: 'fault', rule, ...(payment !== undefined ? { payment } : {}) }
  }

  /** A regular expression of the file: it compiles, and its references name what earlier steps bind. */
  private pattern(pattern: string, path: Path): void {
    const problem = patternProblem(pattern)
    if (problem) this.problem(path, problem)
    this.refs(pattern, path)
  }

  /** A step with schema problems still binds its name, so later steps that use it get no second error. */
  private bindUnchecked(raw: unknown, kind: StepKind, i: number): void {
    const body = (raw as Record<string, unknown>)[kind]
    const as = typeof body === 'object' && body !== null ? (body as { as?: unknown }).as : undefined
    const bindable: Partial<Record<StepKind, BoundKind>> = { receiver: 'receiver', merchant: 'merchant', create: 'create', verify: 'verify', chat: 'chat', http: 'http' }
    if (typeof as === 'string' && bindable[kind] && !this.bound.has(as)) this.bound.set(as, { kind: bindable[kind], step: i + 1 })
  }

  private bind(as: string, path: Path, bound: Bound): void {
    const earlier = this.bound.get(as)
    if (RESERVED.has(as)) this.problem(path, `"${as}" is reserved; pick another name`)
    else if (earlier) this.problem(path, `"${as}" is already the name of step ${earlier.step}`)
    else this.bound.set(as, bound)
  }

  /** A name that must belong to an earlier step of the given kind. */
  private mustBe(name: string, path: Path, kind: 'merchant' | 'receiver'): void {
    const bound = this.bound.get(name)
    if (!bound) this.problem(path, `no earlier ${kind} step is named "${name}"${this.known(kind)}`)
    else if (bound.kind !== kind) this.problem(path, `"${name}" is step ${bound.step}, a ${bound.kind === 'createFailure' ? 'create' : bound.kind} step, not a ${kind} step`)
  }

  /** A step's `payment` (checked as below) or its `trackId` (any text, references checked); the schema lets exactly one through. */
  private paymentRef(body: { payment?: string; trackId?: string }, path: Path): PaymentRef {
    if (body.payment !== undefined) {
      this.payment(body.payment, [...path, 'payment'])
      return { payment: body.payment }
    }
    this.refs(body.trackId, [...path, 'trackId'])
    return { trackId: body.trackId! }
  }

  /** The name of an earlier create step that expects success, so it has a trackId. */
  private payment(name: string, path: Path): void {
    const bound = this.bound.get(name)
    if (!bound || (bound.kind !== 'create' && bound.kind !== 'createFailure')) {
      this.problem(path, bound ? `"${name}" is step ${bound.step}, a ${bound.kind} step, not a create step` : `no earlier create step is named "${name}"${this.known('create')}`)
    } else if (bound.kind === 'createFailure') {
      this.problem(path, `"${name}" (step ${bound.step}) expects a failure, so it has no trackId`)
    }
  }

  private known(kind: 'merchant' | 'receiver' | 'create'): string {
    const names = [...this.bound.entries()].filter(([, b]) => b.kind === kind || (kind === 'create' && b.kind === 'createFailure')).map(([n]) => n)
    return names.length > 0 ? ` (earlier ${kind} steps: ${names.join(', ')})` : ''
  }

  /** Every ${name.field} must name an earlier step and a field it binds. */
  private refs(value: Json | undefined, path: Path): void {
    if (value === undefined) return
    const { refs, errors } = collectRefs(value, path)
    for (const e of errors) this.problem(e.path, e.message)
    for (const ref of refs) {
      if (ref.name === 'env') {
        const value = this.variables.env[ref.field]
        if (value === undefined) this.problem(ref.path, envMissing(ref.source, ref.field))
        else this.envUsed[ref.field] = value
        continue
      }
      if (ref.name === 'vars') {
        if (!this.variables.vars.includes(ref.field)) {
          const near = nearest(ref.field, this.variables.vars)
          const declared = this.variables.vars.length > 0 ? `declared: ${this.variables.vars.join(', ')}` : 'the file has no "vars"'
          this.problem(ref.path, `${ref.source}: no var "${ref.field}" (${near ? `did you mean "${near}"? ` : ''}${declared})`)
        }
        continue
      }
      const bound = this.bound.get(ref.name)
      if (!bound) {
        const near = nearest(ref.name, this.bound.keys())
        this.problem(ref.path, `${ref.source} refers to "${ref.name}", which no earlier step defines (${near ? `did you mean "${near}"? ` : ''}defined so far: ${[...this.bound.keys()].join(', ')})`)
      } else if (bound.fields && !bound.fields.includes(ref.field)) {
        this.problem(ref.path, `${ref.source}: "${ref.name}" (${bound.step === 0 ? 'built in' : `step ${bound.step}`}) has ${bound.fields.join(', ')}, not ${ref.field}`)
      }
    }
  }
}
