import { describeHit, type FaultHit, heldFor, hitFailed, orderDigest } from '../domain/api-fault-hit.js'
import { formatDuration } from '../domain/duration.js'
import type { Payment, VerifyEntry } from '../domain/types.js'

/**
 * The audit's checks of how the merchant coped with faults of the spec API itself (`pay fault add`): an outage
 * taken as an answer, a client with no timeout, retries in a tight loop or before Retry-After. Pure: the faults
 * played (FaultHit), the merchant's verify calls and payments in, findings out.
 */

export const FAULT_CHECK_IDS = ['outage-taken-as-answer', 'no-client-timeout', 'retry-storm', 'retry-too-soon'] as const
export type FaultCheckId = (typeof FAULT_CHECK_IDS)[number]

export interface FaultAuditSettings {
  /** A client that kept a held request open longer than this has no timeout worth the name. */
  clientTimeoutMs: number
  /** A retry of a failed call sooner than this after its answer is no backoff. */
  retryMinMs: number
  /** More retries of one call than `stormMax` within `stormWindowMs` is a retry storm. */
  stormWindowMs: number
  stormMax: number
}

export const DEFAULT_FAULT_AUDIT_SETTINGS: Readonly<FaultAuditSettings> = Object.freeze({ clientTimeoutMs: 60_000, retryMinMs: 250, stormWindowMs: 10_000, stormMax: 10 })

export function faultChecks(settings: FaultAuditSettings & { graceMs: number }) {
  return {
    'outage-taken-as-answer': {
      id: 'outage-taken-as-answer',
      level: 'fail',
      title: `a paid payment's verify got a fault (an error, a proxy page, no answer) and its merchant did not verify it successfully after, within ${formatDuration(settings.graceMs)}`,
      advice: 'A verify that fails says nothing about the payment: keep the order open, verify again with backoff (and after Retry-After), and reconcile open orders on a schedule. Never mark it failed or cancelled on an HTTP error, a timeout or a page that is not JSON.',
    },
    'no-client-timeout': {
      id: 'no-client-timeout',
      level: 'warn',
      title: `a request the sandbox held (or delayed) was kept open by the merchant's client for more than ${formatDuration(settings.clientTimeoutMs)}`,
      advice: 'Give every call to the payment service a timeout (10 to 30 s): a request with none holds a worker, a connection and the customer for as long as the network likes.',
    },
    'retry-storm': {
      id: 'retry-storm',
      level: 'fail',
      title: `a call that failed was retried more than ${settings.stormMax} times within ${formatDuration(settings.stormWindowMs)}`,
      advice: 'Retry with exponential backoff (1 s, 2 s, 4 s … with jitter, capped), honour Retry-After, and stop after a few tries: a retry loop turns an outage into an attack on the service.',
    },
    'retry-too-soon': {
      id: 'retry-too-soon',
      level: 'warn',
      title: `a call that failed was retried less than ${formatDuration(settings.retryMinMs)} after its answer, or before the Retry-After it carried`,
      advice: 'Wait before retrying a failed call, longer each time, and never before the Retry-After of a 429 or 503.',
    },
  } as const
}

export interface FaultFinding {
  check: FaultCheckId
  reason: string
  at?: string
}

/** One try of a call (a verify of a payment, a create of an order), as the sandbox saw it. */
interface Attempt {
  /** When it came, ms. */
  at: number
  /** When its answer went, or its connection closed, ms. */
  end: number
  /** It got a fault's answer, or none. */
  hit?: FaultHit
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(ms < 1000 ? 2 : 1)} s`

/**
 * The fault findings of one payment: its merchant's verify calls, those that got a fault (`hits`, this payment's
 * verify hits) and those answered (`entries`, the merchant's own, operator's left out). `waiting`: an outage whose
 * grace period has not passed yet.
 */
export function paymentFaultFindings(
  payment: Payment,
  hits: readonly FaultHit[],
  entries: readonly VerifyEntry[],
  now: number,
  settings: FaultAuditSettings & { graceMs: number },
): { findings: FaultFinding[]; waiting: number } {
  const findings: FaultFinding[] = []
  let waiting = 0
  const mine = hits.filter((h) => h.route === 'verify' && h.owner === true)
  const failed = mine.filter(hitFailed)
  const answered = entries.filter((e) => e.owner)

  // An outage taken as an answer: the payment was paid when the merchant's verify failed, and no verify of the
  // merchant's got a real answer of 100 after the last such failure.
  const lastPaidFailure = failed.filter((h) => h.status === 'paid').at(-1)
  if (payment.status === 'paid' && lastPaidFailure) {
    const from = Date.parse(lastPaidFailure.at)
    const recovered = answered.some((e) => e.result === 100 && Date.parse(e.at) >= from)
    if (!recovered) {
      const end = from + lastPaidFailure.ms
      if (end + settings.graceMs > now) waiting++
      else {
        const count = failed.filter((h) => h.status === 'paid').length
        findings.push({
          check: 'outage-taken-as-answer',
          reason: `the payment was paid and the merchant's verify got ${describeHit(lastPaidFailure)} at ${lastPaidFailure.at}${count > 1 ? ` (${count} verify calls failed)` : ''}; it did not verify the payment successfully after`,
          at: lastPaidFailure.at,
        })
      }
    }
  }

  findings.push(...clientTimeoutFindings(mine, 'verify', settings))
  const attempts: Attempt[] = [
    ...failed.map((hit) => ({ at: Date.parse(hit.at), end: Date.parse(hit.at) + hit.ms, hit })),
    ...answered.map((e) => ({ at: Date.parse(e.at), end: Date.parse(e.at) })),
  ]
  findings.push(...retryFindings(attempts, 'verify', settings))
  return { findings, waiting }
}

/**
 * The fault findings of one merchant's creates: creates that got a fault (`hits`) and the payments made, grouped
 * by order (the same amount, URLs, description and mobile), each order's tries judged as a verify's are.
 */
export function createFaultFindings(hits: readonly FaultHit[], payments: readonly Payment[], settings: FaultAuditSettings): FaultFinding[] {
  const creates = hits.filter((h) => h.route === 'create')
  const findings = clientTimeoutFindings(creates, 'create', settings)
  const byOrder = new Map<string, Attempt[]>()
  const add = (order: string | undefined, attempt: Attempt) => {
    if (order === undefined) return
    const list = byOrder.get(order) ?? []
    list.push(attempt)
    byOrder.set(order, list)
  }
  for (const hit of creates.filter(hitFailed)) add(hit.order, { at: Date.parse(hit.at), end: Date.parse(hit.at) + hit.ms, hit })
  for (const p of payments) {
    // A create whose answer a fault took (after) is a hit already.
    if (creates.some((h) => h.after && h.trackId === p.trackId)) continue
    const at = Date.parse(p.createdAt)
    add(orderDigest(p), { at, end: at })
  }
  for (const attempts of byOrder.values()) findings.push(...retryFindings(attempts, 'create', settings))
  return findings
}

function clientTimeoutFindings(hits: readonly FaultHit[], call: string, settings: FaultAuditSettings): FaultFinding[] {
  const long = hits.filter((h) => (heldFor(h) ?? 0) > settings.clientTimeoutMs)
  if (long.length === 0) return []
  const worst = long.reduce((a, b) => (b.ms > a.ms ? b : a))
  const how = worst.end === 'sandbox-closed' ? `was still open when the sandbox closed it after ${seconds(worst.ms)}` : worst.end === 'client-closed' ? `was closed by the client only after ${seconds(worst.ms)}` : `waited ${seconds(worst.ms)} for its answer`
  return [{ check: 'no-client-timeout', reason: `a ${call} the sandbox played ${describeHit({ ...worst, end: 'answered' })} on ${how}${long.length > 1 ? ` (${long.length} such requests)` : ''}`, at: worst.at }]
}

/** Retries of one call after a failure: too many in a window (a storm), else too soon or before Retry-After. */
function retryFindings(all: readonly Attempt[], call: string, settings: FaultAuditSettings): FaultFinding[] {
  const attempts = [...all].sort((a, b) => a.at - b.at)
  const retries: Array<{ attempt: Attempt; after: Attempt }> = []
  for (let i = 1; i < attempts.length; i++) if (attempts[i - 1]!.hit) retries.push({ attempt: attempts[i]!, after: attempts[i - 1]! })
  if (retries.length === 0) return []

  let start = 0
  let best = { count: 0, from: 0 }
  for (let end = 0; end < retries.length; end++) {
    while (retries[end]!.attempt.at - retries[start]!.attempt.at > settings.stormWindowMs) start++
    if (end - start + 1 > best.count) best = { count: end - start + 1, from: retries[start]!.attempt.at }
  }
  const iso = (ms: number) => new Date(ms).toISOString()
  if (best.count > settings.stormMax) {
    const fault = retries.find((r) => r.attempt.at >= best.from)!.after.hit!
    return [{ check: 'retry-storm', reason: `the ${call} was retried ${best.count} times within ${formatDuration(settings.stormWindowMs)} from ${iso(best.from)}, after ${describeHit(fault)}`, at: iso(best.from) }]
  }

  // Retry-After is in whole seconds; an answer stamped to the millisecond may look a few ms early.
  const early = retries.filter(({ attempt, after }) => after.hit!.retryAfter !== undefined && attempt.at - after.end < after.hit!.retryAfter * 1000 - 50)
  const soon = retries.filter(({ attempt, after }) => attempt.at - after.end < settings.retryMinMs)
  const first = early[0] ?? soon[0]
  if (!first) return []
  const gap = Math.max(0, first.attempt.at - first.after.end)
  const hit = first.after.hit!
  const why = early.includes(first) ? `before the Retry-After: ${hit.retryAfter} it carried` : 'with no backoff'
  const more = new Set([...early, ...soon]).size - 1
  return [{ check: 'retry-too-soon', reason: `the ${call} was retried ${seconds(gap)} after ${describeHit(hit)}, ${why}${more > 0 ? ` (and ${more} more such retr${more === 1 ? 'y' : 'ies'})` : ''}`, at: iso(first.attempt.at) }]
}
