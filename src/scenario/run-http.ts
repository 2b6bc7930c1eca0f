import { isDeepStrictEqual } from 'node:util'
import { checkoutTrackId } from '../domain/checkout-url.js'
import { inert } from '../domain/display.js'
import { formatDuration } from '../domain/duration.js'
import { type HttpAccess, type HttpAnswer, HttpCallError, httpCall, statusText, targetProblem } from './http-call.js'
import { PatternTimeout, patternRegExp, shownPattern, timedExec } from './pattern.js'
import { Unmet } from './run-lab.js'
import { HTTP_LIMITS } from './schema-http.js'
import { parseTemplate, type Json, type Lookup } from './template.js'
import type { HttpBind, HttpExpect, HttpStep, JsonMatcher, Scenario } from './types.js'
import { version } from '../version.js'

/** How often a step with `within` asks again. */
const POLL_MS = 250
/** Characters of an answer's body a message quotes. */
const SHOWN_BODY = 300

/** What an http step did, for the report, and what its `as` binds. */
export interface HttpOutcome {
  detail: string
  bound: Record<string, unknown>
}

/**
 * The http steps of a run: a request to the merchant's own system, its answer held to the step's expectations,
 * values taken from it. With `within`, the request is made again until the answer meets them.
 */
export class HttpSteps {
  constructor(
    private readonly access: HttpAccess,
    private readonly resolve: (value: Json) => unknown,
    private readonly lookup: Lookup,
  ) {}

  async step(step: HttpStep): Promise<HttpOutcome> {
    const request = this.request(step)
    const deadline = performance.now() + (step.withinMs ?? 0)
    let tries = 0
    for (;;) {
      tries++
      let answer: HttpAnswer | undefined
      let failure: string
      try {
        // Asking again never runs past `within`: each try gets at most the time that is left.
        const left = step.withinMs === undefined ? step.timeoutMs : Math.max(1, Math.min(step.timeoutMs, Math.round(deadline - performance.now())))
        answer = await httpCall({ ...request, timeoutMs: left })
        const judged = this.judge(step, request.url, answer)
        if ('bound' in judged) return { detail: `${describeAnswer(request.method, request.url, answer, false)}${tries > 1 ? ` (after ${tries} tries)` : ''}`, bound: judged.bound }
        failure = `${judged.problems.join('; ')} — ${describeAnswer(request.method, request.url, answer, true)}`
      } catch (error) {
        if (error instanceof PatternTimeout) throw new Unmet(error.message)
        if (!(error instanceof HttpCallError)) throw error
        failure = `${request.method} ${request.url.href}: ${error.message}`
        // Once, and nothing came back: the request itself failed, not an expectation.
        if (step.withinMs === undefined) throw new Error(failure)
      }
      if (step.withinMs === undefined) throw new Unmet(failure)
      if (performance.now() + POLL_MS >= deadline) {
        throw new Unmet(`not met within ${formatDuration(step.withinMs)} (${tries} ${tries === 1 ? 'try' : 'tries'}); the last: ${failure}`)
      }
      await new Promise((r) => setTimeout(r, POLL_MS))
    }
  }

  /** The request as the step says, references replaced; refused when its URL is not one the run may call. */
  private request(step: HttpStep) {
    const text = String(this.resolve(step.url))
    let url: URL
    try {
      url = new URL(text)
    } catch {
      throw new Unmet(`url ${JSON.stringify(text)} is not an absolute URL such as http://127.0.0.1:3000/orders`)
    }
    const refused = targetProblem(url, this.access)
    if (refused) throw new Error(`${step.method} ${url.href}: ${refused}`)
    const headers: Record<string, string> = { 'user-agent': `pay-sandbox/${version} (scenario)` }
    let body: Buffer | undefined
    if (step.body && 'json' in step.body) {
      headers['content-type'] = 'application/json'
      body = Buffer.from(JSON.stringify(this.resolve(step.body.json)))
    } else if (step.body && 'form' in step.body) {
      headers['content-type'] = 'application/x-www-form-urlencoded'
      const form = this.resolve(step.body.form) as Record<string, unknown>
      body = Buffer.from(new URLSearchParams(Object.entries(form).map(([k, v]) => [k, String(v)])).toString())
    } else if (step.body && 'text' in step.body) {
      body = Buffer.from(String(this.resolve(step.body.text)))
    }
    // The file's headers win, names as written (a Content-Type of its own for a text body).
    for (const [name, value] of Object.entries(step.headers)) {
      for (const key of Object.keys(headers)) if (key === name.toLowerCase()) delete headers[key]
      headers[name] = String(this.resolve(value))
    }
    return { method: step.method, url, headers, ...(body !== undefined ? { body } : {}), timeoutMs: step.timeoutMs, maxBytes: HTTP_LIMITS.bodyBytes }
  }

  /** The step's expectations on an answer, then its bindings: what is not met, or what is bound. */
  private judge(step: HttpStep, url: URL, answer: HttpAnswer): { problems: string[] } | { bound: Record<string, unknown> } {
    const problems = checkAnswer(answer, step.expect, (value) => this.resolve(value), (pattern) => patternRegExp(pattern, this.lookup))
    if (problems.length > 0) return { problems }
    const location = header(answer, 'location')
    let absolute: string | undefined
    try {
      absolute = location === undefined ? undefined : new URL(location, url).href
    } catch {
      absolute = location
    }
    const trackId = absolute === undefined ? undefined : checkoutTrackId(absolute)
    const bound: Record<string, unknown> = {
      status: answer.status,
      body: answer.text,
      ...(absolute !== undefined ? { location: absolute } : {}),
      ...(trackId !== undefined ? { trackId } : {}),
    }
    for (const [name, source] of Object.entries(step.bind)) {
      const taken = take(answer, source, (pattern) => patternRegExp(pattern, this.lookup))
      if ('problem' in taken) problems.push(`bind ${name}: ${taken.problem}`)
      else bound[name] = taken.value
    }
    return problems.length > 0 ? { problems } : { bound }
  }
}

/** What an answer fails of the expectations, in words; empty when it meets them all. Pure but for the patterns' time limit. */
export function checkAnswer(answer: HttpAnswer, expect: HttpExpect, resolve: (value: Json) => unknown, regex: (pattern: string) => RegExp): string[] {
  const problems: string[] = []
  const statuses = expect.status
  if (statuses === undefined ? answer.status >= 400 : !statuses.some((s) => statusMatches(s, answer.status))) {
    problems.push(`expected status ${statuses === undefined ? 'below 400' : statuses.map(String).join(' or ')}, got ${statusText(answer.status)}`)
  }
  if (expect.json !== undefined) {
    const doc = parseJson(answer)
    if ('problem' in doc) problems.push(doc.problem)
    else for (const [pointer, matcher] of Object.entries(expect.json)) problems.push(...matchValue(pointer, at(doc.value, pointer), matcher, resolve, regex))
  }
  if (expect.body !== undefined && timedExec(regex(expect.body), answer.text) === null) problems.push(`expected the body to match ${shownPattern(expect.body)}`)
  for (const [name, pattern] of Object.entries(expect.headers ?? {})) {
    const value = header(answer, name)
    if (value === undefined) problems.push(`expected a ${name} header matching ${shownPattern(pattern)}, there is none`)
    else if (timedExec(regex(pattern), value) === null) problems.push(`expected ${name} to match ${shownPattern(pattern)}, got ${JSON.stringify(value)}`)
  }
  return problems
}

function statusMatches(expected: number | string, status: number): boolean {
  return typeof expected === 'number' ? expected === status : String(status)[0] === expected[0] && status >= 100 && status < 600
}

function parseJson(answer: HttpAnswer): { value: unknown } | { problem: string } {
  try {
    return { value: JSON.parse(answer.text) }
  } catch {
    const type = header(answer, 'content-type')
    return { problem: `expected a JSON body, got ${answer.text === '' ? 'an empty body' : `one that is not JSON${type ? ` (${type})` : ''}`}` }
  }
}

type Found = { found: true; value: unknown } | { found: false }

/** The value at an RFC 6901 pointer. */
export function at(doc: unknown, pointer: string): Found {
  if (pointer === '') return { found: true, value: doc }
  let value = doc
  for (const raw of pointer.slice(1).split('/')) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~')
    if (Array.isArray(value) && /^(0|[1-9]\d*)$/.test(key) && Number(key) < value.length) value = value[Number(key)]
    else if (typeof value === 'object' && value !== null && !Array.isArray(value) && Object.hasOwn(value, key)) value = (value as Record<string, unknown>)[key]
    else return { found: false }
  }
  return { found: true, value }
}

const COMPARISONS = { gt: ['>', (a: number, b: number) => a > b], gte: ['≥', (a: number, b: number) => a >= b], lt: ['<', (a: number, b: number) => a < b], lte: ['≤', (a: number, b: number) => a <= b] } as const

function matchValue(pointer: string, found: Found, matcher: JsonMatcher, resolve: (value: Json) => unknown, regex: (pattern: string) => RegExp): string[] {
  const name = pointer === '' ? 'the body' : pointer
  const got = found.found ? shown(found.value) : undefined
  const problems: string[] = []
  if (matcher.exists !== undefined && matcher.exists !== found.found) problems.push(matcher.exists ? `${name}: expected a value, the body has none there` : `${name}: expected no value, got ${got}`)
  if (matcher.equals !== undefined) {
    const expected = resolve(matcher.equals)
    if (!found.found || !isDeepStrictEqual(found.value, expected)) problems.push(`${name}: expected ${shown(expected)}, ${found.found ? `got ${got}` : 'the body has no value there'}`)
  }
  if (matcher.pattern !== undefined) {
    const ok = found.found && typeof found.value === 'string' && timedExec(regex(matcher.pattern), found.value) !== null
    if (!ok) problems.push(`${name}: expected a string matching ${shownPattern(matcher.pattern)}, ${found.found ? `got ${got}` : 'the body has no value there'}`)
  }
  for (const [key, [sign, holds]] of Object.entries(COMPARISONS) as Array<[keyof typeof COMPARISONS, (typeof COMPARISONS)[keyof typeof COMPARISONS]]>) {
    if (matcher[key] === undefined) continue
    const bound = Number(resolve(matcher[key]))
    const ok = found.found && typeof found.value === 'number' && Number.isFinite(bound) && holds(found.value, bound)
    if (!ok) problems.push(`${name}: expected a number ${sign} ${Number.isFinite(bound) ? bound : shown(resolve(matcher[key]))}, ${found.found ? `got ${got}` : 'the body has no value there'}`)
  }
  return problems
}

/** A bound value from the answer, or why there is none. */
function take(answer: HttpAnswer, source: HttpBind, regex: (pattern: string) => RegExp): { value: unknown } | { problem: string } {
  if ('json' in source) {
    const doc = parseJson(answer)
    if ('problem' in doc) return doc
    const found = at(doc.value, source.json)
    return found.found ? { value: found.value } : { problem: `the body has no value at ${source.json || '""'}` }
  }
  if ('body' in source) {
    const match = timedExec(regex(source.body), answer.text)
    return match === null ? { problem: `the body does not match ${shownPattern(source.body)}` } : { value: match[1] ?? match[0] }
  }
  const value = header(answer, source.header)
  if (value === undefined) return { problem: `the answer has no ${source.header} header` }
  if (source.pattern === undefined) return { value }
  const match = timedExec(regex(source.pattern), value)
  return match === null ? { problem: `${source.header} ${JSON.stringify(value)} does not match ${shownPattern(source.pattern)}` } : { value: match[1] ?? match[0] }
}

function header(answer: HttpAnswer, name: string): string | undefined {
  const value = answer.headers[name.toLowerCase()]
  return Array.isArray(value) ? value[0] : value
}

function shown(value: unknown): string {
  const text = value === undefined ? 'nothing' : JSON.stringify(value)
  return text.length > 120 ? `${text.slice(0, 119)}…` : text
}

/** `POST http://127.0.0.1:3000/orders answered 303 See Other, Location …: {"id":…}` — what a report says of an answer. */
export function describeAnswer(method: string, url: URL, answer: HttpAnswer, withBody: boolean): string {
  const location = header(answer, 'location')
  const text = answer.text.replace(/\s+/g, ' ').trim()
  const body = !withBody ? '' : text === '' ? ', no body' : `: ${inert(text.length > SHOWN_BODY ? `${text.slice(0, SHOWN_BODY - 1)}…` : text)}`
  return `${method} ${url.href} answered ${statusText(answer.status)}${location !== undefined ? `, Location ${inert(location)}` : ''} in ${answer.ms} ms${body}`
}

/**
 * http steps whose URL is known before the run (written out, or made of variables) and that the run may not call,
 * or that are no URL at all: found before anything runs, as mistakes in the files (`file:line:col: step N (http)
 * › http.url: …`). A URL made from what earlier steps bind is checked when its step runs.
 */
export function httpTargetProblems(scenarios: Scenario[], access: HttpAccess): string[] {
  const problems: string[] = []
  for (const scenario of scenarios) {
    for (const step of scenario.steps) {
      if (step.kind !== 'http' || typeof step.url !== 'string') continue
      const parsed = parseTemplate(step.url)
      if ('error' in parsed) continue
      // What is known before the run: all of it, or the start up to the first value an earlier step binds.
      let text = ''
      let whole = true
      for (const piece of parsed.pieces) {
        if (piece.kind === 'text') text += piece.text
        else if (piece.kind === 'repeat') text += piece.text.repeat(piece.count)
        else if (piece.name === 'env') text += scenario.variables.env[piece.field] ?? ''
        else if (piece.name === 'vars') text += String(scenario.variables.vars[piece.field] ?? '')
        else {
          whole = false
          break
        }
      }
      // Part of a URL tells its host once the host is followed by a path, query or fragment.
      if (!whole && !/^[A-Za-z][A-Za-z0-9+.-]*:\/\/[^/?#]*[/?#]/.test(text)) continue
      let url: URL
      try {
        url = new URL(text)
      } catch {
        if (whole) problems.push(`${step.where}: ${JSON.stringify(text)} is not an absolute URL such as http://127.0.0.1:3000/orders`)
        continue
      }
      const refused = targetProblem(url, access)
      if (refused) problems.push(`${step.where}: ${refused}`)
    }
  }
  return problems
}
