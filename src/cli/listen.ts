import chalk from 'chalk'
import type { ForwardOutcome, ReceivedRequest } from '../callbacks/listener.js'
import { forTerminal, inertJson } from '../domain/display.js'
import { fields, line, lines, paint, Styled, truncate } from './format.js'

/** Body bytes shown at a terminal; --json carries all of it. */
const SHOWN_BODY_CHARS = 8192

/** A received request as one --json line's object: the body as text, and parsed when it is JSON. */
export function requestRecord(r: ReceivedRequest): Record<string, unknown> {
  const text = r.body.toString('utf8')
  const json = parseJson(text)
  return {
    kind: 'request',
    receivedAt: r.receivedAt,
    method: r.method,
    path: r.path,
    headers: r.headers,
    body: text,
    ...(json !== undefined ? { json: json.value } : {}),
    ...(r.tooLarge ? { tooLarge: true } : {}),
    answered: r.answered,
    ...(r.forward !== undefined ? { forward: r.forward } : {}),
  }
}

/** One JSON line, safe to print. */
export function jsonLine(value: unknown): string {
  return inertJson(JSON.stringify(value))
}

/** A received request for a person: method, path and answer; headers; the body (pretty when JSON); the forward. */
export function requestLines(r: ReceivedRequest): Styled {
  const ok = r.answered >= 200 && r.answered < 300
  const out: Styled[] = [
    line`${paint(chalk.dim, r.receivedAt.slice(11, 23))} ${paint(chalk.bold, r.method)} ${r.path}  ${paint(ok ? chalk.green : chalk.red, `answered ${r.answered}`)}`,
    fields(Object.entries(r.headers).map(([name, value]) => [forTerminal(name), Array.isArray(value) ? value.join(', ') : value])),
  ]
  if (r.tooLarge) out.push(paint(chalk.red, '  body over 1 MB: refused with 413, not shown'))
  else if (r.body.length > 0) out.push(bodyLines(r.body.toString('utf8')))
  if (r.forward !== undefined) out.push(forwardLine(r.forward, r.answered))
  return lines(out)
}

function bodyLines(text: string): Styled {
  const json = parseJson(text)
  const pretty = json !== undefined && typeof json.value === 'object' && json.value !== null ? inertJson(JSON.stringify(json.value, null, 2)) : text
  const shown = truncate(pretty, SHOWN_BODY_CHARS)
  const more = shown !== pretty ? chalk.dim(' (cut; --json has all of it)') : ''
  return new Styled(`  ${forTerminal(shown, { multiline: true }).replace(/\n/g, '\n  ')}${more}`)
}

function forwardLine(f: ForwardOutcome, answered: number): Styled {
  if (f.status === undefined) {
    return line`  ${paint(chalk.red, '✖')} forward to ${f.url} failed: ${f.error ?? 'no answer'} ${paint(chalk.dim, `(answered ${answered})`)}`
  }
  const ok = f.status >= 200 && f.status < 300
  const excerpt = f.excerpt !== undefined ? truncate(f.excerpt.trim(), 200) : ''
  return line`  ${paint(ok ? chalk.green : chalk.red, ok ? '✔' : '✖')} forwarded to ${f.url}: HTTP ${f.status} in ${f.durationMs} ms${excerpt !== '' ? `  ${excerpt}` : ''}`
}

function parseJson(text: string): { value: unknown } | undefined {
  try {
    return { value: JSON.parse(text) }
  } catch {
    return undefined
  }
}
