import { nearest as closest } from '../domain/nearest.js'
import { Ajv, type ErrorObject, type SchemaObject, type ValidateFunction } from 'ajv'
import { scenarioSchema } from './schema.js'
import type { Path } from './source.js'

/** One problem of a file: where it is (a path into the value; `key` when the key itself is wrong) and what. */
export interface Problem {
  path: Path
  key?: boolean
  message: string
}

/** The Ajv the schema is compiled with; strict, so a mistake in the schema fails at compile time. */
export function scenarioAjv(): Ajv {
  const ajv = new Ajv({ strict: true, allErrors: true, verbose: true, strictNumbers: true, allowUnionTypes: true })
  // An annotation editors read as the message of a mismatch; the messages below use it too.
  ajv.addVocabulary(['errorMessage'])
  return ajv
}

let compiled: ValidateFunction | undefined

/** Compiled on first use: commands that run no scenario never pay for it. */
function validator(): ValidateFunction {
  compiled ??= scenarioAjv().compile(scenarioSchema)
  return compiled
}

/** The schema's verdict on a parsed file, in words that name the field, the step and what is allowed. */
export function schemaProblems(value: unknown): Problem[] {
  const validate = validator()
  if (validate(value)) return []
  return explain(validate.errors ?? [])
}

/** Ajv errors whose schema path and instance path both start with these are left out. */
interface Muted {
  instancePath: string
  schemaPath: string
}

function explain(errors: ErrorObject[]): Problem[] {
  const muted: Muted[] = []
  const isMuted = (e: ErrorObject) => muted.some((m) => within(e.instancePath, m.instancePath) && e.schemaPath.startsWith(m.schemaPath))
  const problems: Problem[] = []
  // Outer combinators first, so a oneOf can mute the branches it did not pick before they are explained.
  const ordered = errors.map((e, i) => [e, i] as const).sort(([a, i], [b, j]) => depthOf(a.schemaPath) - depthOf(b.schemaPath) || i - j)
  const picked: Problem[][] = errors.map(() => [])
  for (const [error, i] of ordered) {
    if (isMuted(error)) continue
    if (error.keyword === 'oneOf') {
      const { problem, keep } = pickBranch(error)
      muted.push(...(keep === undefined ? [{ instancePath: error.instancePath, schemaPath: `${error.schemaPath}/` }] : otherBranches(error, keep)))
      if (problem) picked[i]!.push(problem)
      continue
    }
    const problem = describeError(error)
    if (problem) picked[i]!.push(problem)
  }
  // Back in Ajv's order (the file's order); one message per field.
  const seen = new Set<string>()
  for (const problem of picked.flat()) {
    const id = `${JSON.stringify(problem.path)} ${problem.message}`
    if (!seen.has(id)) problems.push(problem)
    seen.add(id)
  }
  return problems
}

function describeError(error: ErrorObject): Problem | undefined {
  const path = pathOf(error.instancePath)
  const schema = error.parentSchema as SchemaObject
  // A key that breaks propertyNames: the key itself is wrong, and its own error (pattern, length) says how.
  if (error.propertyName !== undefined) {
    return { path: [...path, error.propertyName], key: true, message: `${typeof schema.errorMessage === 'string' ? schema.errorMessage : expected(schema)}, got ${describe(error.propertyName)}` }
  }
  switch (error.keyword) {
    case 'if':
    case 'propertyNames':
      return undefined // its then/else errors, or the key's own, say what is wrong
    case 'not':
      return { path, message: typeof schema.errorMessage === 'string' ? schema.errorMessage : 'is not allowed here' }
    case 'additionalProperties': {
      const field = (error.params as { additionalProperty: string }).additionalProperty
      const allowed = Object.keys((schema.properties as object | undefined) ?? {}).filter((k) => !k.startsWith('$'))
      const near = nearest(field, allowed)
      return { path: [...path, field], key: true, message: `unknown field${near ? ` (did you mean "${near}"?)` : ''}; allowed: ${allowed.join(', ')}` }
    }
    case 'required': {
      const field = (error.params as { missingProperty: string }).missingProperty
      const example = (schema.properties?.[field] as SchemaObject | undefined)?.examples?.[0]
      // In a then/else branch, the errorMessage says why the field is needed there.
      const why = /\/(then|else)\//.test(error.schemaPath) && typeof schema.errorMessage === 'string' ? schema.errorMessage : undefined
      const hint = why ? `; ${why}` : example !== undefined ? `; e.g. "${field}": ${short(JSON.stringify(example))}` : ''
      return { path: [...path, field], message: `missing${hint}` }
    }
    default:
      return { path, message: `${typeof schema.errorMessage === 'string' ? schema.errorMessage : expected(schema)}, got ${describe(error.data)}` }
  }
}

/**
 * The branches of a oneOf are told apart by their required keys (a step by its action key, an expectation by
 * "result" or "error"): the one whose keys the value has is explained, and the others are muted.
 */
function pickBranch(error: ErrorObject): { problem?: Problem; keep?: number } {
  const path = pathOf(error.instancePath)
  const branches = error.schema as SchemaObject[]
  const keys = branches.map((b) => (b.required as string[] | undefined)?.[0] ?? '')
  const value = error.data
  if (!isObject(value)) return { problem: { path, message: `must be an object with one of ${keys.join(', ')}, got ${describe(value)}` } }
  const present = Object.keys(value).filter((k) => keys.includes(k))
  if (present.length === 1) return { keep: keys.indexOf(present[0]!) }
  if (present.length > 1) return { problem: { path, message: `has ${present.join(' and ')}; use only one` } }
  // Fields of an object whose own properties are listed are told apart by additionalProperties instead.
  const own = (error.parentSchema as SchemaObject | undefined)?.properties !== undefined
  const known = new Set(branches.flatMap((b) => Object.keys((b.properties as object | undefined) ?? {})))
  const unknown = own ? [] : Object.keys(value).filter((k) => !known.has(k))
  return { problem: { path, message: `needs one of ${keys.join(', ')}${unknown.length > 0 ? ` (unknown: ${unknown.join(', ')})` : ''}` } }
}

function otherBranches(error: ErrorObject, keep: number): Muted[] {
  return (error.schema as unknown[]).flatMap((_, i) => (i === keep ? [] : [{ instancePath: error.instancePath, schemaPath: `${error.schemaPath}/${i}/` }]))
}

/** What a schema accepts, in words, for messages of schemas without an errorMessage. */
function expected(schema: SchemaObject): string {
  if (schema.const !== undefined) return `must be ${JSON.stringify(schema.const)}`
  if (Array.isArray(schema.enum)) return `must be one of ${schema.enum.join(', ')}`
  const types = ([] as string[]).concat(schema.type ?? [])
  if (types.length === 1 && types[0] === 'integer') {
    const { minimum: min, maximum: max } = schema as { minimum?: number; maximum?: number }
    return `must be a whole number${min !== undefined && max !== undefined ? ` from ${min} to ${max}` : min !== undefined ? ` of at least ${min}` : max !== undefined ? ` of at most ${max}` : ''}`
  }
  if (types.length === 1 && types[0] === 'object' && schema.examples?.[0] !== undefined) return `must be an object like ${short(JSON.stringify(schema.examples[0]))}`
  const words: Record<string, string> = { string: 'a string', number: 'a number', integer: 'a whole number', boolean: 'true or false', object: 'an object', array: 'a list', null: 'null' }
  return types.length > 0 ? `must be ${types.map((t) => words[t] ?? t).join(' or ')}` : 'is not valid here'
}

/** `/steps/2/create/amount` → ['steps', 2, 'create', 'amount'] */
function pathOf(pointer: string): Path {
  if (pointer === '') return []
  return pointer
    .slice(1)
    .split('/')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((s) => (/^(0|[1-9]\d*)$/.test(s) ? Number(s) : s))
}

function within(pointer: string, prefix: string): boolean {
  return pointer === prefix || pointer.startsWith(`${prefix}/`)
}

function depthOf(schemaPath: string): number {
  return schemaPath.split('/').length
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}

function short(text: string, max = 80): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text
}

/** A value as a message shows it: short, and never the whole of a long string or a big object. */
function describe(v: unknown): string {
  if (v === undefined) return 'nothing'
  if (v === null) return 'null'
  if (Array.isArray(v)) return v.length === 0 ? 'an empty list' : `a list of ${v.length}`
  if (typeof v === 'object') return Object.keys(v).length === 0 ? '{}' : 'an object'
  const text = JSON.stringify(v)
  return text.length > 60 ? `${text.slice(0, 57)}…"` : text
}

/** The one of `names` that `name` is likely a misspelling of. */
export function nearest(name: string, names: Iterable<string>): string | undefined {
  return closest(name, [...names])
}
