import { CST, isAlias, isMap, isScalar, isSeq, Lexer, LineCounter, parseDocument, type Document, type Node } from 'yaml'

/**
 * A scenario file's text turned into a value, with the line and column of any part of it. JSON files must be
 * strict JSON; YAML files are YAML 1.2 with the core schema. Both are hostile input: the size, the nesting and
 * YAML's aliases are bounded before anything walks the value, tags are refused, and only JSON values come out.
 */

export type Path = Array<string | number>
export type Format = 'json' | 'yaml'
export interface Position {
  line: number
  col: number
}
/** A problem with the text itself, found before the schema is applied. */
export interface TextProblem {
  message: string
  at?: Position
}

export interface Source {
  value: unknown
  /** Where the value at `path` starts; with `key`, where its key does. As near as the path leads when part is missing. */
  locate(path: Path, key?: boolean): Position | undefined
}

export const SOURCE_LIMITS = { bytes: 1024 * 1024, aliases: 100, column: 128 } as const

export const TOO_LARGE = `larger than ${SOURCE_LIMITS.bytes / 1024 / 1024} MiB; a scenario needs far less (\${repeat:TEXT:COUNT} makes long strings)`

export function formatOf(file: string): Format {
  return /\.ya?ml$/i.test(file) ? 'yaml' : 'json'
}

const YAML_OPTIONS = {
  version: '1.2',
  schema: 'core',
  merge: false,
  uniqueKeys: true,
  stringKeys: true,
  prettyErrors: false,
  logLevel: 'error',
} as const

export function readSource(text: string, format: Format, depth: number): { source: Source } | { problems: TextProblem[] } {
  if (text.length > SOURCE_LIMITS.bytes) {
    return { problems: [{ message: TOO_LARGE }] }
  }
  return format === 'json' ? readJson(text, depth) : readYaml(text, depth)
}

function readJson(text: string, depth: number): { source: Source } | { problems: TextProblem[] } {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (error) {
    const message = (error as Error).message
    const offset = /at position (\d+)/.exec(message)
    const at = offset ? positionAt(text, Number(offset[1])) : undefined
    return { problems: [{ message: `not valid JSON: ${message.replace(/ in JSON at position \d+.*$/s, '')}`, ...(at ? { at } : {}) }] }
  }
  const found = inspect(value, depth)
  if (found) return { problems: [found] }
  // JSON is YAML 1.2: the YAML parser gives the positions, when there is a problem to place. The value is
  // already known to be shallow.
  let locate: Source['locate'] | undefined
  return {
    source: {
      value,
      locate: (path, key) => {
        const lineCounter = new LineCounter()
        locate ??= locator(parseDocument(text, { ...YAML_OPTIONS, lineCounter }), lineCounter)
        return locate(path, key)
      },
    },
  }
}

function readYaml(text: string, depth: number): { source: Source } | { problems: TextProblem[] } {
  // The YAML composer recurses once per level: the structure is measured on tokens before it runs.
  const structure = checkTokens(text, depth)
  if (structure) return { problems: [structure] }
  const lineCounter = new LineCounter()
  const doc = parseDocument(text, { ...YAML_OPTIONS, lineCounter })
  const troubles = [...doc.errors, ...doc.warnings]
  if (troubles.length > 0) {
    return { problems: troubles.map((e) => ({ message: `not valid YAML: ${e.message}`, at: lineCounter.linePos(e.pos[0]) })) }
  }
  let value: unknown
  try {
    value = doc.toJS({ maxAliasCount: SOURCE_LIMITS.aliases })
  } catch (error) {
    if (!(error instanceof ReferenceError)) throw error
    return { problems: [{ message: `aliases expand too much (${error.message}); a scenario needs few, if any` }] }
  }
  const locate = locator(doc, lineCounter)
  const found = inspect(value, depth)
  if (found) return { problems: [{ ...found, ...(found.path ? { at: locate(found.path) } : {}) }] }
  return { source: { value, locate } }
}

/** Nesting past `depth`, or a number JSON cannot carry (YAML's .nan, .inf); iterative, so any depth is safe. */
function inspect(value: unknown, depth: number): (TextProblem & { path?: Path }) | undefined {
  const stack: Array<[unknown, Path]> = [[value, []]]
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    const [v, path] = next
    if (typeof v === 'number' && !Number.isFinite(v)) return { message: `${String(v)} is not a JSON number`, path }
    if (typeof v !== 'object' || v === null) continue
    if (path.length >= depth) return tooDeep(depth)
    if (Array.isArray(v)) v.forEach((item, i) => stack.push([item, [...path, i]]))
    else for (const [k, item] of Object.entries(v)) stack.push([item, [...path, k]])
  }
  return undefined
}

function tooDeep(depth: number, at?: Position): TextProblem {
  return { message: `arrays and objects nested more than ${depth} levels deep; a scenario needs far fewer`, ...(at ? { at } : {}) }
}

const CONTROL = new Set(['doc-mode', 'scalar', 'byte-order-mark', 'flow-error-end'])
const LINE_PREFIX = new Set(['space', 'seq-item-ind', 'explicit-key-ind', 'map-value-ind', 'anchor'])

/**
 * Walks the tokens (the lexer does not recurse) and refuses what the composer should never see: flow
 * collections nested past `depth`, block structure starting past column SOURCE_LIMITS.column (each block level
 * needs more indentation, so this bounds the block nesting) and tags (scenario files are plain data).
 */
function checkTokens(text: string, depth: number): TextProblem | undefined {
  let flow = 0
  let line = 1
  let col = 1
  let lineStart = true
  for (const token of new Lexer().lex(text)) {
    const type = CST.tokenType(token)
    if (type && CONTROL.has(type)) continue
    const at = { line, col }
    if (type === 'tag' || type === 'directive-line') return { message: `${token.trim().slice(0, 40)}: scenario files use no YAML tags or directives`, at }
    if (type === 'flow-seq-start' || type === 'flow-map-start') {
      if (++flow > depth) return tooDeep(depth, at)
    } else if (type === 'flow-seq-end' || type === 'flow-map-end') {
      flow = Math.max(0, flow - 1)
    }
    if (lineStart && flow === 0 && type !== 'space' && type !== 'newline' && col > SOURCE_LIMITS.column) {
      return { message: `nested too deep: a value starts past column ${SOURCE_LIMITS.column}; a scenario needs far less indentation`, at }
    }
    if (type !== 'space' && type !== 'newline' && !(type && LINE_PREFIX.has(type))) lineStart = false
    const newlines = token.split('\n').length - 1
    if (newlines > 0) {
      line += newlines
      col = token.length - token.lastIndexOf('\n')
      lineStart = true
    } else col += token.length
  }
  return undefined
}

function positionAt(text: string, offset: number): Position {
  const before = text.slice(0, offset).split('\n')
  return { line: before.length, col: before.at(-1)!.length + 1 }
}

function locator(doc: Document, lineCounter: LineCounter): Source['locate'] {
  const where = (node: Node | null | undefined) => (node?.range ? lineCounter.linePos(node.range[0]) : undefined)
  return (path, key = false) => {
    let node = doc.contents as Node | null
    let at = where(node) ?? { line: 1, col: 1 }
    for (const [i, segment] of path.entries()) {
      if (isAlias(node)) node = node.resolve(doc) ?? null
      let keyNode: Node | null = null
      if (isMap(node)) {
        const pair = node.items.find((p) => isScalar(p.key) && String(p.key.value) === String(segment))
        keyNode = (pair?.key as Node | undefined) ?? null
        node = (pair?.value as Node | null | undefined) ?? null
      } else if (isSeq(node) && typeof segment === 'number') {
        node = (node.items[segment] as Node | undefined) ?? null
      } else node = null
      const last = i === path.length - 1
      const found = where(last && key ? keyNode : node) ?? where(keyNode)
      if (!found) break
      at = found
    }
    return at
  }
}
