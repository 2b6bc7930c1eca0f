import chalk from 'chalk'
import { isHeld, reportedStatus } from '../callbacks/delivery.js'
import { forTerminal } from '../domain/display.js'
import { copiesOf, formatCallbackMode } from '../domain/fault.js'
import type { Delivery, DeliveryAttempt, DeliveryState } from '../domain/types.js'
import { fields, line, lines, paint, Styled, table } from './format.js'

const stateColor: Record<DeliveryState, (s: string) => string> = {
  pending: chalk.yellow,
  delivered: chalk.green,
  failed: chalk.red,
  dropped: chalk.magenta,
}

export function state(s: DeliveryState): Styled {
  return paint(stateColor[s] ?? ((x: string) => x), s)
}

/** The state as shown: a reordered notification still waiting for the payment's next one is `held`. */
function shownState(d: Delivery): Styled {
  return isHeld(d) ? paint(chalk.yellow, 'held') : state(d.state)
}

/** `drop (sandbox default)`, `delay=30s (requested by simulate)`. */
export function faultText(d: Delivery): string | undefined {
  return d.fault ? `${formatCallbackMode(d.fault)} (${d.fault.reason})` : undefined
}

function attemptsAllowed(d: Delivery): number {
  return copiesOf(d) + d.maxRetries
}

/** `200`, `500`, or a short form of the network error of the last attempt. */
function lastOutcome(d: Delivery): string {
  const last = d.attempts.at(-1)
  if (!last) return '—'
  if (last.status !== undefined) return String(last.status)
  if (last.error?.startsWith('timed out')) return 'timeout'
  if (last.error?.includes('ECONNREFUSED')) return 'refused'
  return 'error'
}

export function deliveryTable(deliveries: Delivery[]): Styled {
  return table(
    ['ID', 'TRACK ID', 'STATUS', 'STATE', 'ATTEMPTS', 'HTTP', 'FAULT', 'URL'],
    deliveries.map((d) => [
      d.id,
      d.trackId,
      d.replayOf ? line`${reportedStatus(d) ?? d.event}${paint(chalk.dim, ' (replay)')}` : (reportedStatus(d) ?? d.event),
      shownState(d),
      `${d.attempts.length}/${attemptsAllowed(d)}`,
      lastOutcome(d),
      d.fault ? formatCallbackMode(d.fault) : '',
      d.url,
    ]),
  )
}

function attemptLine(a: DeliveryAttempt): Styled {
  const answer = a.status !== undefined ? `HTTP ${a.status}` : paint(chalk.red, a.error ?? 'no answer')
  const ok = a.status !== undefined && a.status >= 200 && a.status < 300
  const out = [line`${ok ? paint(chalk.green, '✔') : paint(chalk.red, '✖')} #${a.attempt}  ${a.at}  ${answer}  ${a.durationMs} ms`]
  if (a.status !== undefined && a.error && !/^HTTP \d+$/.test(a.error)) out.push(line`     ${paint(chalk.dim, 'error')} ${a.error}`)
  if (a.responseExcerpt !== undefined) {
    // A body may hold lines; each is shown inert and indented under the first.
    const excerpt = forTerminal(a.responseExcerpt, { multiline: true }).replace(/\n/g, '\n       ')
    out.push(new Styled(`     ${chalk.dim('response')} ${excerpt}${a.truncated ? chalk.dim(' …(cut)') : ''}`))
  }
  return lines(out)
}

/** Everything about one delivery: the request, then each attempt. */
export function deliveryDetails(d: Delivery): Styled {
  return lines([
    fields([
      ['delivery', d.id],
      ['trackId', d.trackId],
      ['status', reportedStatus(d)],
      ['event', d.event],
      ['state', shownState(d)],
      ['url', d.url],
      ['replay of', d.replayOf],
      ['fault', faultText(d)],
      ['created', d.createdAt],
      ['next attempt', d.state === 'pending' ? (isHeld(d) ? 'after the payment’s next notification' : d.nextAttemptAt) : undefined],
      ['attempts', `${d.attempts.length} of at most ${attemptsAllowed(d)}`],
    ]),
    line``,
    paint(chalk.bold, 'Request'),
    ...Object.entries(d.headers).map(([k, v]) => line`  ${paint(chalk.dim, `${k}:`)} ${v}`),
    line`  ${paint(chalk.dim, 'X-Pay-Sandbox-Attempt:')} <attempt number>`,
    line``,
    // JSON.stringify escapes C0 controls itself; C1 and bidi controls are made inert per line.
    ...JSON.stringify(d.body, null, 2)
      .split('\n')
      .map((l) => line`  ${l}`),
    line``,
    paint(chalk.bold, 'Attempts'),
    ...(d.attempts.length === 0 ? [line`  none yet`] : d.attempts.map((a) => line`  ${attemptLine(a)}`)),
  ])
}

/** One line per replay: what was sent where and what came back. */
export function replayLine(d: Delivery): Styled {
  const a = d.attempts.at(-1)
  const ok = d.state === 'delivered'
  const answer = !a ? 'not sent' : a.status !== undefined ? `HTTP ${a.status}` : (a.error ?? 'no answer')
  const took = a ? ` in ${a.durationMs} ms` : ''
  return line`${ok ? paint(chalk.green, '✔') : paint(chalk.red, '✖')} ${d.replayOf ?? d.id} (trackId ${d.trackId}, ${reportedStatus(d) ?? d.event}) → ${d.url}: ${answer}${took}`
}
