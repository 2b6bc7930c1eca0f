import chalk from 'chalk'
import type { RequestEntry } from '../client/index.js'
import { line, paint, type Shown, shown, Styled } from './format.js'

const statusColor = (status: number): ((s: string) => string) =>
  status >= 500 ? chalk.red : status >= 400 ? chalk.yellow : status >= 300 ? chalk.cyan : chalk.green

/** One answered request on one line: time, method, path and query, HTTP status, result or error, trackId, time taken. */
export function requestLine(entry: RequestEntry): Styled {
  const parts: Shown[] = [
    paint(chalk.dim, entry.at.slice(11, 23)),
    entry.method.padEnd(4),
    entry.query !== undefined ? `${entry.path}?${entry.query}` : entry.path,
    paint(statusColor(entry.status), entry.status),
  ]
  if (entry.result !== undefined) parts.push(line`result=${entry.result}`)
  if (entry.error !== undefined) parts.push(line`error=${entry.error}`)
  if (entry.trackId !== undefined) parts.push(line`trackId=${entry.trackId}`)
  parts.push(paint(chalk.dim, `${entry.ms.toFixed(1)}ms`))
  return new Styled(parts.map(shown).join(' '))
}
