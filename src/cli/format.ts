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

/** A plain-text table; colour codes are not counted in widths. */
export function table(header: string[], rows: Shown[][]): Styled {
  const cells = rows.map((r) => r.map(shown))
  const visible = (s: string) => s.replace(/\u001b\[[0-9;]*m/g, '').length
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((r) => visible(r[i] ?? ''))))
  const row = (values: string[]) =>
    values.map((c, i) => (i === values.length - 1 ? c : c + ' '.repeat(widths[i]! - visible(c)))).join('  ')
  return new Styled([chalk.bold(row(header)), ...cells.map(row)].join('\n'))
}

/** The first `max` characters (code points) of `text`, with `…` when cut. */
export function truncate(text: string, max: number): string {
  const chars = Array.from(text)
  return chars.length > max ? `${chars.slice(0, max - 1).join('')}…` : text
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
