/**
 * `${…}` in scenario strings. Pure.
 *
 *   ${order.trackId}   a value bound by an earlier step (`as`), or ${sandbox.url}
 *   ${env.SHOP_URL}    an environment variable, read when the file is loaded
 *   ${vars.shop}       a variable of the file's `vars`, or its `--var` override
 *   ${repeat:ab:3}     "ababab": long strings for boundary tests; the count is the part after the last colon
 *   $${                a literal "${"
 *
 * A string that is exactly one reference takes the referenced value as is (a number stays a number).
 */

/** The names whose fields are variables (environment, the file's vars) rather than what a step bound. */
export const VARIABLE_SOURCES = ['env', 'vars'] as const

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json }

export type Piece =
  | { kind: 'text'; text: string }
  | { kind: 'ref'; name: string; field: string; source: string }
  | { kind: 'repeat'; text: string; count: number; source: string }

/** Longest text `${repeat:…}` may produce: well past every limit of the spec, small enough to stay fast. */
export const MAX_REPEAT = 100_000

const NAME = /^[A-Za-z_][A-Za-z0-9_-]*$/
const FIELD = /^[A-Za-z][A-Za-z0-9]*$/
/** A variable's name, as environment variables are named: SHOP_URL, shop, price2. */
export const VARIABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/

/** Splits a string into text and references, or returns the problem with the first malformed `${…}`. */
export function parseTemplate(input: string): { pieces: Piece[] } | { error: string } {
  const pieces: Piece[] = []
  let text = ''
  let i = 0
  while (i < input.length) {
    if (input.startsWith('$${', i)) {
      text += '${'
      i += 3
      continue
    }
    if (!input.startsWith('${', i)) {
      text += input[i]
      i++
      continue
    }
    const end = input.indexOf('}', i + 2)
    if (end === -1) return { error: `unclosed "\${" at character ${i + 1} (write $\${ for a literal "\${")` }
    const source = input.slice(i, end + 1)
    const inner = input.slice(i + 2, end)
    if (text) pieces.push({ kind: 'text', text })
    text = ''
    if (inner.startsWith('repeat:')) {
      const colon = inner.lastIndexOf(':')
      const unit = inner.slice('repeat:'.length, colon)
      const countText = inner.slice(colon + 1)
      if (colon < 'repeat:'.length || unit.length === 0 || !/^\d+$/.test(countText)) {
        return { error: `${source}: write \${repeat:TEXT:COUNT}, e.g. \${repeat:a:513}` }
      }
      const count = Number(countText)
      if (count * unit.length > MAX_REPEAT) return { error: `${source}: produces more than ${MAX_REPEAT} characters` }
      pieces.push({ kind: 'repeat', text: unit, count, source })
    } else {
      const dot = inner.indexOf('.')
      const name = inner.slice(0, dot)
      const field = inner.slice(dot + 1)
      const variable = (VARIABLE_SOURCES as readonly string[]).includes(name)
      if (dot === -1 || !NAME.test(name) || !(variable ? VARIABLE_NAME : FIELD).test(field)) {
        return { error: `${source}: a reference is \${name.field} (e.g. \${order.trackId}, \${env.SHOP_URL}, \${vars.shop}) or \${repeat:TEXT:COUNT}` }
      }
      pieces.push({ kind: 'ref', name, field, source })
    }
    i = end + 1
  }
  if (text) pieces.push({ kind: 'text', text })
  return { pieces }
}

type Path = Array<string | number>

/** Every reference in a JSON value (strings at any depth), with the problems of malformed ones. */
export function collectRefs(value: Json, path: Path): { refs: Array<{ path: Path; name: string; field: string; source: string }>; errors: Array<{ path: Path; message: string }> } {
  const refs: Array<{ path: Path; name: string; field: string; source: string }> = []
  const errors: Array<{ path: Path; message: string }> = []
  const walk = (v: Json, p: Path) => {
    if (typeof v === 'string') {
      const parsed = parseTemplate(v)
      if ('error' in parsed) errors.push({ path: p, message: parsed.error })
      else for (const piece of parsed.pieces) if (piece.kind === 'ref') refs.push({ path: p, name: piece.name, field: piece.field, source: piece.source })
    } else if (Array.isArray(v)) {
      v.forEach((item, i) => walk(item, [...p, i]))
    } else if (v !== null && typeof v === 'object') {
      for (const [k, item] of Object.entries(v)) walk(item, [...p, k])
    }
  }
  walk(value, path)
  return { refs, errors }
}

/** Looks up a reference; throws when the bound value lacks the field (e.g. a verify answer with no refNumber). */
export type Lookup = (name: string, field: string, source: string) => unknown

/** Replaces references in every string of a value. Templates were checked by the validator. */
export function resolveValue(value: Json, lookup: Lookup): unknown {
  if (typeof value === 'string') return resolveString(value, lookup)
  if (Array.isArray(value)) return value.map((v) => resolveValue(v, lookup))
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, resolveValue(v, lookup)]))
  }
  return value
}

function resolveString(value: string, lookup: Lookup): unknown {
  const parsed = parseTemplate(value)
  if ('error' in parsed) throw new Error(parsed.error)
  const { pieces } = parsed
  if (pieces.length === 1 && pieces[0]!.kind === 'ref') {
    const only = pieces[0]!
    return lookup(only.name, only.field, only.source)
  }
  return pieces
    .map((p) => (p.kind === 'text' ? p.text : p.kind === 'repeat' ? p.text.repeat(p.count) : String(lookup(p.name, p.field, p.source))))
    .join('')
}
