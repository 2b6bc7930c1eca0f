import chalk from 'chalk'
import type { RequestEntry } from '../client/index.js'
import type { CutField } from '../inspector/request-entry.js'
import { line, paint, type Shown, shown, Styled } from './format.js'

const statusColor = (status: number): ((s: string) => string) =>
  status >= 500 ? chalk.red : status >= 400 ? chalk.yellow : status >= 300 ? chalk.cyan : chalk.green

/** ` … (12345 bytes)` after a text the log kept cut: what is shown is only its start. */
const cutMark = (entry: RequestEntry, field: CutField): string => {
  const bytes = entry.truncated?.[field]
  return bytes === undefined ? '' : `… (${bytes} bytes)`
}

/** One answered request on one line: time, method, path and query, HTTP status, result or error, trackId, time taken. */
export function requestLine(entry: RequestEntry): Styled {
  const parts: Shown[] = [
    paint(chalk.dim, entry.at.slice(11, 23)),
    entry.method.padEnd(4),
    line`${entry.path}${cutMark(entry, 'path')}${entry.query !== undefined ? `?${entry.query}${cutMark(entry, 'query')}` : ''}`,
    entry.status === 0 ? paint(chalk.red, '---') : paint(statusColor(entry.status), entry.status),
  ]
  if (entry.result !== undefined) parts.push(line`result=${entry.result}`)
  if (entry.error !== undefined) parts.push(line`error=${entry.error}`)
  if (entry.trackId !== undefined) parts.push(line`trackId=${entry.trackId}${cutMark(entry, 'trackId')}`)
  parts.push(paint(chalk.dim, `${entry.ms.toFixed(1)}ms`))
  if (entry.fault !== undefined) parts.push(paint(chalk.magenta, `fault: ${entry.fault}`))
  return new Styled(parts.map(shown).join(' '))
}
