import chalk from 'chalk'
import { forTerminal } from '../domain/display.js'
import type { PaymentStatus } from '../domain/types.js'

/**
 * Text ready for the terminal: its untrusted parts went through `forTerminal` and the colour codes in it are
 * ours. Commands print plain strings only after `forTerminal`, so a colour must come as Styled.
 */
export class Styled {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text
  }
}

/** Anything shown: plain values are made inert (and URL credentials masked); Styled passes as it is. */
export type Shown = string | number | Styled

/** A value as it reaches the terminal, on one line. */
export function shown(value: Shown): string {
  return value instanceof Styled ? value.text : forTerminal(String(value))
}

/** `style` applied to untrusted text, after making it inert. */
export function paint(style: (s: string) => string, value: string | number): Styled {
  return new Styled(style(shown(value)))
}

/** A line built from a template: every interpolated plain value is made inert; Styled values keep their colour. */
export function line(strings: TemplateStringsArray, ...values: Shown[]): Styled {
  let out = strings[0] ?? ''
  values.forEach((v, i) => (out += shown(v) + (strings[i + 1] ?? '')))
  return new Styled(out)
}

/** Lines joined by newlines. */
export function lines(parts: Styled[]): Styled {
  return new Styled(parts.map((p) => p.text).join('\n'))
}

const statusColor: Record<PaymentStatus, (s: string) => string> = {
  pending: chalk.yellow,
  unfinalized: chalk.cyan,
  paid: chalk.green,
  failed: chalk.red,
  expired: chalk.gray,
}

export function status(s: PaymentStatus): Styled {
  return paint(statusColor[s] ?? ((x: string) => x), s)
}

/** `label  value` lines with the labels padded to one width. */
export function fields(rows: Array<[string, Shown | undefined]>): Styled {
  const filled = rows.filter((r): r is [string, Shown] => r[1] !== undefined)
  const width = Math.max(...filled.map(([k]) => k.length))
  return new Styled(filled.map(([k, v]) => `  ${chalk.dim(k.padEnd(width))}  ${shown(v)}`).join('\n'))
}

const ANSI = /\u001b\[[0-9;]*m/g
/** Characters a terminal draws two columns wide: CJK, Hangul, full-width forms, emoji. */
const WIDE = /[\u1100-\u115f\u2e80-\u303e\u3041-\u33ff\u3400-\u4dbf\u4e00-\u9fff\ua000-\ua4cf\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60\uffe0-\uffe6\u{1f300}-\u{1f64f}\u{1f900}-\u{1f9ff}\u{20000}-\u{3fffd}]/u
const ZERO_WIDTH = /[\p{M}\u200b-\u200d\ufe0f]/u

function charColumns(char: string): number {
  return ZERO_WIDTH.test(char) ? 0 : WIDE.test(char) ? 2 : 1
}

/** Columns `text` takes on a terminal; colour codes take none. */
export function columns(text: string): number {
  let n = 0
  for (const char of text.replace(ANSI, '')) n += charColumns(char)
  return n
}

/** `text` cut to at most `max` columns, ending in `…` when cut (its colour is dropped then). */
export function truncate(text: string, max: number): string {
  if (columns(text) <= max) return text
  let out = ''
  let used = 0
  for (const char of text.replace(ANSI, '')) {
    const w = charColumns(char)
    if (used + w > max - 1) break
    out += char
    used += w
  }
  return `${out}…`
}

/**
 * The width human tables fit: COLUMNS when set (as `ls` reads it), else the terminal's; no limit when stdout is not
 * a terminal, so a pipe, `less` or a file gets every character (as gh does). --json and `show` commands are never cut.
 */
export function outputWidth(): number | undefined {
  const set = Number(process.env.COLUMNS)
  if (Number.isInteger(set) && set > 0) return set
  return process.stdout.isTTY && process.stdout.columns > 0 ? process.stdout.columns : undefined
}

/** A column never cut narrower than this (or its header). */
const MIN_CUT = 10

/**
 * A plain-text table. When it is wider than `width` (default: outputWidth()), the columns named in `shrink` give up
 * room, the widest first, down to MIN_CUT, their cells cut with `…`; the others (ids, states, amounts) never shrink,
 * so a terminal too narrow for those wraps.
 */
export function table(header: string[], rows: Shown[][], options: { shrink?: string[]; width?: number } = {}): Styled {
  let cells = rows.map((r) => r.map(shown))
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((r) => columns(r[i] ?? ''))))
  const limit = options.width ?? outputWidth()
  if (limit !== undefined) {
    const shrinkable = (options.shrink ?? []).map((name) => header.indexOf(name)).filter((i) => i !== -1)
    const floor = widths.map((w, i) => Math.min(w, Math.max(MIN_CUT, header[i]!.length)))
    let over = widths.reduce((a, b) => a + b, 0) + 2 * (widths.length - 1) - limit
    for (; over > 0; over--) {
      const widest = shrinkable.filter((i) => widths[i]! > floor[i]!).sort((a, b) => widths[b]! - widths[a]!)[0]
      if (widest === undefined) break
      widths[widest]!--
    }
    cells = cells.map((r) => r.map((c, i) => (columns(c) > widths[i]! ? truncate(c, widths[i]!) : c)))
  }
  const row = (values: string[]) =>
    values.map((c, i) => (i === values.length - 1 ? c : c + ' '.repeat(Math.max(0, widths[i]! - columns(c))))).join('  ')
  return new Styled([chalk.bold(row(header)), ...cells.map(row)].join('\n'))
}

/**
 * Parses a decimal flag (`25`, `1.1400000000000001`, `1e-8`) into the number a JSON client would send;
 * undefined for text that is not a decimal number, or one too large for a double (`1e400`).
 */
export function parseNumber(text: string): number | undefined {
  if (!/^\s*[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?\s*$/.test(text)) return undefined
  const value = Number(text)
  return Number.isFinite(value) ? value : undefined
}

/**
 * A whole number with a comma between each three digits (`10,000`), as `toLocaleString('en-US')` writes it, without
 * starting ICU's number formatting: that takes about 20 ms, and a command's static text is made at every start.
 */
export function grouped(n: number): string {
  return Number.isSafeInteger(n) ? String(n).replace(/\B(?=(\d{3})+$)/g, ',') : n.toLocaleString('en-US')
}
