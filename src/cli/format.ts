import chalk from 'chalk'
import type { PaymentStatus } from '../domain/types.js'

const statusColor: Record<PaymentStatus, (s: string) => string> = {
  pending: chalk.yellow,
  unfinalized: chalk.cyan,
  paid: chalk.green,
  failed: chalk.red,
}

export function status(s: PaymentStatus): string {
  return statusColor[s](s)
}

/** `label  value` lines with the labels padded to one width. */
export function fields(rows: Array<[string, string | number | undefined]>): string {
  const shown = rows.filter((r): r is [string, string | number] => r[1] !== undefined)
  const width = Math.max(...shown.map(([k]) => k.length))
  return shown.map(([k, v]) => `  ${chalk.dim(k.padEnd(width))}  ${v}`).join('\n')
}

/** A plain-text table; colour codes are not counted in widths. */
export function table(header: string[], rows: string[][]): string {
  const visible = (s: string) => s.replace(/\u001b\[[0-9;]*m/g, '').length
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => visible(r[i] ?? ''))))
  const line = (cells: string[]) =>
    cells.map((c, i) => (i === cells.length - 1 ? c : c + ' '.repeat(widths[i]! - visible(c)))).join('  ')
  return [chalk.bold(line(header)), ...rows.map(line)].join('\n')
}

/** Parses a positive-looking decimal flag; returns undefined for text that is not a number. */
export function parseNumber(text: string): number | undefined {
  if (!/^\s*[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?\s*$/.test(text)) return undefined
  return Number(text)
}
