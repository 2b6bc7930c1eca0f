import { formatDuration, parseDuration } from './duration.js'

/**
 * A table of modes as people type them in flags, request bodies and scenario files: a name, at most one argument
 * after `=` with its bounds, and a line that says what the mode does (`send`, `delay=30s`, `duplicate=3`). A mode's
 * text is read from its row and nowhere else: parsing, writing it back, the JSON Schema pattern, the rule in words,
 * the schema of the value as recorded. Pure.
 */

/** The argument after `=`: how it reads, how it is written, its bounds, and the field the parsed value keeps it in. */
export interface ModeArg<Field extends string = string, T = unknown> {
  /** The field of the parsed mode: `delayMs` in `{ mode: 'delay', delayMs: 30000 }`. */
  readonly field: Field
  /** As a rule shows it: `<duration>`, `<n>`. */
  readonly placeholder: string
  /** The text's shape, a regular expression without anchors, for JSON Schemas; the bounds are `parse`'s. */
  readonly pattern: string
  /** The bounds in words, after the placeholder: `2 to 20`; `example` is the mode's example (`delay=30s`). */
  bounds(example: string): string
  /** The value, or undefined when the text is not one or is out of bounds. */
  parse(text: string): T | undefined
  /** As people read it (may round); a recorded mode may lack the value. */
  show(value: T | undefined): string
  /** As written back into a flag or a file: it parses back to the same value. */
  write(value: T): string
  /** The JSON Schema of the value as recorded. */
  readonly schema: Readonly<Record<string, unknown>>
  /** The JSON Schema of the value as a JSON body or a scenario file types it: a number as a number, a duration as its text. */
  readonly input: Readonly<Record<string, unknown>>
}

export interface ModeRow<Name extends string = string, Field extends string = string, T = unknown> {
  readonly name: Name
  readonly arg?: ModeArg<Field, T>
  /** What the mode does, in one line, for help texts. */
  readonly description: string
  /** A typical value as typed: `delay=30s`; the name for a mode without an argument. */
  readonly example: string
}

/** The parsed form of a row's text: `{ mode: 'drop' }`, `{ mode: 'delay', delayMs: 30000 }`. */
export type ModeValue<R> = R extends { name: infer N extends string; arg: ModeArg<infer F extends string, infer T> }
  ? { mode: N } & { [K in F]: T }
  : R extends { name: infer N extends string }
    ? { mode: N }
    : never

/** The text form of a row, as a type: `'drop'`, `` `delay=${string}` ``. */
export type ModeText<R> = R extends { name: infer N extends string; arg: ModeArg }
  ? `${N}=${string}`
  : R extends { name: infer N extends string }
    ? N
    : never

/** A mode as recorded or read back: its name and, perhaps, its argument's field. */
export type ModeLike = { readonly mode: string } & Readonly<Record<string, unknown>>

export interface ModeTable<R extends ModeRow> {
  readonly rows: readonly R[]
  readonly names: ReadonlyArray<R['name']>
  /** Every mode's text, anchored, for JSON Schemas. */
  readonly pattern: string
  /** Every mode in words: `send, drop, delay=<duration> (e.g. delay=30s, at most 24h), duplicate=<n> (2 to 20) or reorder`. */
  readonly rule: string
  /** `delay=<duration>` for a row with an argument, else its name. */
  usage(row: R): string
  row(name: string): R | undefined
  /** The mode a text names, or what is wrong with it. */
  parse(text: string): { mode: ModeValue<R> } | { problem: string }
  /** As people read it: `delay=30s`. */
  show(mode: ModeLike): string
  /** As written back into a flag: `delay=30000ms`, read back to the same mode. */
  write(mode: ModeLike): string
}

/** Defines a mode without an argument. */
export function plainMode<const N extends string, E extends object>(name: N, row: { description: string } & E): { name: N; example: N; description: string } & E {
  return { ...row, name, example: name }
}

/** Defines a mode with an argument. */
export function modeWith<const N extends string, const F extends string, T, E extends object>(
  name: N,
  arg: ModeArg<F, T>,
  row: { description: string; example: string } & E,
): { name: N; arg: ModeArg<F, T>; example: string; description: string } & E {
  return { ...row, name, arg }
}

/** Reads the table's text forms from its rows. `what` names a mode in messages: `callback mode must be …`. */
export function defineModes<const R extends ModeRow>(what: string, rows: readonly R[]): ModeTable<R> {
  const byName = new Map<string, R>(rows.map((r) => [r.name, r]))
  const usage = (row: R) => (row.arg ? `${row.name}=${row.arg.placeholder}` : row.name)
  const told = rows.map((row) => (row.arg ? `${usage(row)} (${row.arg.bounds(row.example)})` : row.name))
  const rule = told.length > 1 ? `${told.slice(0, -1).join(', ')} or ${told.at(-1)}` : (told[0] ?? '')
  // The modes without an argument first: they read as a list of words.
  const alternatives = [...rows.filter((r) => !r.arg).map((r) => r.name), ...rows.filter((r) => r.arg).map((r) => `${r.name}=${r.arg!.pattern}`)]
  const text = (mode: ModeLike, how: 'show' | 'write'): string => {
    const arg = byName.get(mode.mode)?.arg
    if (!arg) return mode.mode
    const value = mode[arg.field]
    return `${mode.mode}=${how === 'show' ? arg.show(value) : arg.write(value)}`
  }
  return {
    rows,
    names: rows.map((r) => r.name),
    pattern: `^(${alternatives.join('|')})$`,
    rule,
    usage,
    row: (name) => byName.get(name),
    parse(input) {
      const [name, value, ...rest] = input.trim().split('=')
      const bad = { problem: `${what} must be ${rule} (got ${JSON.stringify(input)})` }
      const row = name === undefined ? undefined : byName.get(name)
      if (!row || rest.length > 0) return bad
      if (!row.arg) return value === undefined ? { mode: { mode: row.name } as ModeValue<R> } : bad
      const parsed = value === undefined ? undefined : row.arg.parse(value)
      if (parsed === undefined) return bad
      return { mode: { mode: row.name, [row.arg.field]: parsed } as ModeValue<R> }
    },
    show: (mode) => text(mode, 'show'),
    write: (mode) => text(mode, 'write'),
  }
}

/** An argument that is a duration (`30s`, `1.5m`, `500ms`), kept in milliseconds. */
export function durationArg<const F extends string>(field: F, range: { min: number; max: number }): ModeArg<F, number> {
  return {
    field,
    placeholder: '<duration>',
    pattern: '[0-9.]+(ms|s|m|h)?',
    bounds: (example) => `e.g. ${example}, at most ${formatDuration(range.max)}`,
    parse(text) {
      const ms = parseDuration(text)
      return ms !== undefined && ms >= range.min && ms <= range.max ? ms : undefined
    },
    show: (ms) => formatDuration(ms ?? 0),
    write: (ms) => `${ms}ms`,
    schema: { type: 'integer', minimum: range.min, maximum: range.max },
    input: { type: 'string', maxLength: 20, pattern: '^[0-9.]+(ms|s|m|h)?$' },
  }
}

/** An argument that is a whole number from `min` to `max`, or one of `oneOf` (e.g. the HTTP statuses a proxy sends). */
export function integerArg<const F extends string>(field: F, range: { min: number; max: number; oneOf?: readonly number[]; placeholder?: string }): ModeArg<F, number> {
  const { min, max, oneOf } = range
  return {
    field,
    placeholder: range.placeholder ?? '<n>',
    pattern: '[0-9]+',
    bounds: () => (oneOf ? `${oneOf.slice(0, -1).join(', ')}${oneOf.length > 1 ? ' or ' : ''}${oneOf.at(-1)}` : `${min} to ${max}`),
    parse(text) {
      const n = /^\d+$/.test(text) ? Number(text) : Number.NaN
      if (!Number.isInteger(n) || n < min || n > max) return undefined
      return oneOf && !oneOf.includes(n) ? undefined : n
    },
    show: (n) => String(n ?? min),
    write: (n) => String(n),
    schema: oneOf ? { type: 'integer', enum: [...oneOf] } : { type: 'integer', minimum: min, maximum: max },
    input: oneOf ? { type: 'integer', enum: [...oneOf] } : { type: 'integer', minimum: min, maximum: max },
  }
}
