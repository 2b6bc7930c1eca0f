import chalk from 'chalk'
import { isHeld, reportedStatus } from '../callbacks/delivery.js'
import { forTerminal } from '../domain/display.js'
import { copiesOf, formatCallbackMode } from '../domain/fault.js'
import type { Delivery, DeliveryAttempt, DeliveryState } from '../domain/types.js'
import { fields, line, lines, paint, type Shown, Styled, table } from './format.js'

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

/** What the last attempt got: `HTTP 200`, `HTTP 503`, or its error (`timed out after 5000 ms`); `—` before any. */
function lastAnswer(d: Delivery): Shown {
  const last = d.attempts.at(-1)
  if (!last) return '—'
  const ok = last.status !== undefined && last.status >= 200 && last.status < 300
  return paint(ok ? chalk.green : chalk.red, last.status !== undefined ? `HTTP ${last.status}` : (last.error ?? 'no answer'))
}

/**
 * Deliveries as `pay callback list` and `pay payment show` print them, one row each: attempts made of those
 * allowed, the last answer, the fault the sandbox played on it (a FAULT column when any row has one), the URL. `trackId: false` leaves out the TRACK ID column (one payment's deliveries).
 * At a narrow terminal the URL, then the last answer, are cut; ids never are.
 */
export function deliveryTable(deliveries: Delivery[], options: { trackId?: boolean } = {}): Styled {
  const withTrackId = options.trackId ?? true
  // FAULT only when the sandbox played one on some row: the usual table stays narrow.
  const withFault = deliveries.some((d) => d.fault !== undefined)
  return table(
    ['ID', ...(withTrackId ? ['TRACK ID'] : []), 'STATUS', 'STATE', 'ATTEMPTS', 'LAST', ...(withFault ? ['FAULT'] : []), 'URL'],
    deliveries.map((d) => [
      d.id,
      ...(withTrackId ? [d.trackId] : []),
      d.replayOf ? line`${reportedStatus(d) ?? d.event}${paint(chalk.dim, ' (replay)')}` : (reportedStatus(d) ?? d.event),
      shownState(d),
      `${d.attempts.length}/${attemptsAllowed(d)}`,
      lastAnswer(d),
      ...(withFault ? [d.fault ? formatCallbackMode(d.fault) : ''] : []),
      d.url,
    ]),
    { shrink: ['URL', 'LAST'] },
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
