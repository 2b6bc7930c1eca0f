import chalk from 'chalk'
import { reportedStatus } from '../callbacks/delivery.js'
import type { Delivery, DeliveryAttempt, DeliveryState } from '../domain/types.js'
import { fields, table } from './format.js'

const stateColor: Record<DeliveryState, (s: string) => string> = {
  pending: chalk.yellow,
  delivered: chalk.green,
  failed: chalk.red,
}

export function state(s: DeliveryState): string {
  return (stateColor[s] ?? ((x: string) => x))(s)
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

export function deliveryTable(deliveries: Delivery[]): string {
  return table(
    ['ID', 'TRACK ID', 'STATUS', 'STATE', 'ATTEMPTS', 'HTTP', 'URL'],
    deliveries.map((d) => [
      d.id,
      d.trackId,
      `${reportedStatus(d) ?? d.event}${d.replayOf ? chalk.dim(' (replay)') : ''}`,
      state(d.state),
      `${d.attempts.length}/${d.maxRetries + 1}`,
      lastOutcome(d),
      d.url,
    ]),
  )
}

function attemptLine(a: DeliveryAttempt): string {
  const answer = a.status !== undefined ? `HTTP ${a.status}` : chalk.red(a.error ?? 'no answer')
  const ok = a.status !== undefined && a.status >= 200 && a.status < 300
  const head = `${ok ? chalk.green('✔') : chalk.red('✖')} #${a.attempt}  ${a.at}  ${answer}  ${a.durationMs} ms`
  const lines = [head]
  if (a.status !== undefined && a.error && !/^HTTP \d+$/.test(a.error)) lines.push(`     ${chalk.dim('error')} ${a.error}`)
  if (a.responseExcerpt !== undefined) {
    const excerpt = a.responseExcerpt.replace(/\r?\n/g, '\n       ')
    lines.push(`     ${chalk.dim('response')} ${excerpt}${a.truncated ? chalk.dim(' …(cut)') : ''}`)
  }
  return lines.join('\n')
}

/** Everything about one delivery: the request, then each attempt. */
export function deliveryDetails(d: Delivery): string {
  const out = [
    fields([
      ['delivery', d.id],
      ['trackId', d.trackId],
      ['status', reportedStatus(d)],
      ['event', d.event],
      ['state', state(d.state)],
      ['url', d.url],
      ['replay of', d.replayOf],
      ['created', d.createdAt],
      ['next attempt', d.state === 'pending' ? d.nextAttemptAt : undefined],
      ['attempts', `${d.attempts.length} of at most ${d.maxRetries + 1}`],
    ]),
    '',
    chalk.bold('Request'),
    ...Object.entries(d.headers).map(([k, v]) => `  ${chalk.dim(`${k}:`)} ${v}`),
    `  ${chalk.dim('X-Pay-Sandbox-Attempt:')} <attempt number>`,
    '',
    ...JSON.stringify(d.body, null, 2)
      .split('\n')
      .map((l) => `  ${l}`),
    '',
    chalk.bold('Attempts'),
    ...(d.attempts.length === 0 ? ['  none yet'] : d.attempts.map((a) => `  ${attemptLine(a)}`)),
  ]
  return out.join('\n')
}

/** One line per replay: what was sent where and what came back. */
export function replayLine(d: Delivery): string {
  const a = d.attempts.at(-1)
  const ok = d.state === 'delivered'
  const what = `${d.replayOf ?? d.id} (trackId ${d.trackId}, ${reportedStatus(d) ?? d.event})`
  const answer = !a ? 'not sent' : a.status !== undefined ? `HTTP ${a.status}` : (a.error ?? 'no answer')
  const took = a ? ` in ${a.durationMs} ms` : ''
  return `${ok ? chalk.green('✔') : chalk.red('✖')} ${what} → ${d.url}: ${answer}${took}`
}
