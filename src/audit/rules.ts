import { answered2xx, attemptsOf, reportedStatus } from '../callbacks/delivery.js'
import { formatDuration } from '../domain/duration.js'
import { copiesOf, planOf } from '../domain/fault.js'
import { canReach, paymentStatuses } from '../domain/payment.js'
import { merchantEntries } from '../domain/verify-journal.js'
import type { Delivery, DeliveryAttempt, Payment, PaymentStatus, VerifyEntry, VerifyJournal } from '../domain/types.js'
import { type FaultHit, hitFailed } from '../domain/api-fault-hit.js'
import { createFaultFindings, DEFAULT_FAULT_AUDIT_SETTINGS, FAULT_CHECK_IDS, type FaultAuditSettings, faultChecks, paymentFaultFindings } from './fault-checks.js'

/**
 * `pay audit`: what the sandbox observed of a merchant's integration — its callbacks, its answers, its verify
 * calls, how it coped with faults of the API — judged against what correct merchant code does. Pure: payments,
 * deliveries, verify journals, faults played and the sandbox time in, findings out.
 */

export type Level = 'fail' | 'warn' | 'info'

export interface Check {
  id: CheckId
  level: Level
  /** What the check looks for, in one line. */
  title: string
  /** What correct merchant code does. */
  advice: string
}

export const CHECK_IDS = [
  'unverified-notification',
  'dropped-unreconciled',
  'retries-exhausted',
  'not-idempotent',
  'slow-callback',
  'callback-retried',
  'foreign-key',
  'verify-polling',
  'insecure-url',
  'amount-differs',
  ...FAULT_CHECK_IDS,
] as const
export type CheckId = (typeof CHECK_IDS)[number]

export interface AuditSettings extends FaultAuditSettings {
  /** Time the merchant has after a notification (or its loss, or a verify that failed) to verify, on the sandbox clock. */
  graceMs: number
  /** An answer slower than this is a warning: real gateways give 3 to 20 s, some less. */
  slowMs: number
  /** More verifies of one payment than `pollMax` within `pollWindowMs` is polling too fast. */
  pollWindowMs: number
  pollMax: number
}

export const DEFAULT_AUDIT_SETTINGS: Readonly<AuditSettings> = Object.freeze({ graceMs: 10_000, slowMs: 2_000, pollWindowMs: 10_000, pollMax: 10, ...DEFAULT_FAULT_AUDIT_SETTINGS })

export function checks(settings: AuditSettings = DEFAULT_AUDIT_SETTINGS): Record<CheckId, Check> {
  const grace = formatDuration(settings.graceMs)
  return {
    'unverified-notification': {
      id: 'unverified-notification',
      level: 'fail',
      title: `a notification was acknowledged (2xx) and the merchant did not verify the payment within ${grace}`,
      advice: 'On every notification call verify with your key and act on its answer: the notification is not proof of payment.',
    },
    'dropped-unreconciled': {
      id: 'dropped-unreconciled',
      level: 'fail',
      title: `a notification was lost (dropped) and the merchant did not verify the payment within ${grace}`,
      advice: 'Notifications can be lost: reconcile open orders by calling verify on a schedule, not only when a notification comes.',
    },
    'retries-exhausted': {
      id: 'retries-exhausted',
      level: 'fail',
      title: 'a notification was never answered 2xx, through every retry',
      advice: 'Answer 2xx as soon as the notification is stored; do the work after, and reconcile with verify.',
    },
    'not-idempotent': {
      id: 'not-idempotent',
      level: 'warn',
      title: 'a repeated or out-of-order notification was answered non-2xx',
      advice: 'Notifications repeat and arrive out of order: answer 2xx to one already handled (same X-Pay-Sandbox-Delivery) and to a stale one, and decide by verify.',
    },
    'slow-callback': {
      id: 'slow-callback',
      level: 'warn',
      title: `the callback endpoint took longer than ${formatDuration(settings.slowMs)} to answer`,
      advice: 'Answer within a second: store the notification and answer 2xx, then verify and deliver in the background. Real gateways wait 3 to 20 s.',
    },
    'callback-retried': {
      id: 'callback-retried',
      level: 'warn',
      title: 'a notification was answered 2xx only after retries',
      advice: 'The first attempts failed: make the endpoint answer 2xx to every well-formed notification.',
    },
    'foreign-key': {
      id: 'foreign-key',
      level: 'warn',
      title: 'the payment was verified with a key that is not its merchant’s',
      advice: 'Verify with the key that created the payment; another key answers 203 Invalid track ID (or 104), as if the payment did not exist.',
    },
    'verify-polling': {
      id: 'verify-polling',
      level: 'warn',
      title: `the payment was verified more than ${settings.pollMax} times within ${formatDuration(settings.pollWindowMs)}`,
      advice: 'Verify on each notification, and poll open orders at a modest pace (every minute or so), not in a tight loop.',
    },
    'insecure-url': {
      id: 'insecure-url',
      level: 'warn',
      title: 'a callback or return URL is plain http, or a local or private address (not reachable in production)',
      advice: 'In production use public https URLs; the spec recommends HTTPS and a publicly reachable callback URL.',
    },
    'amount-differs': {
      id: 'amount-differs',
      level: 'info',
      title: 'a payment was paid with an amount other than the order’s, and verified',
      advice: 'Deliver only when result is 100 and amount equals the order amount: check that this order was not delivered.',
    },
    ...faultChecks(settings),
  }
}

export interface Finding {
  check: CheckId
  level: Level
  /** This occurrence, in one line. */
  reason: string
  deliveryId?: string
  at?: string
}

export interface PaymentAudit {
  trackId: string
  merchant: string
  status: PaymentStatus
  verdict: Verdict
  findings: Finding[]
}

export type Verdict = 'pass' | 'warn' | 'fail'

/** The findings of one merchant's creates (retries, timeouts): calls that made no payment of their own to hang them on. */
export interface CreateAudit {
  /** The merchant key sent, or the start of an unknown one. */
  merchant: string
  verdict: Verdict
  findings: Finding[]
}

export interface AuditReport {
  /** false when anything failed (or, with strict, anything warned). */
  ok: boolean
  verdict: Verdict
  strict: boolean
  /** Sandbox time of the audit. */
  at: string
  settings: AuditSettings
  totals: {
    payments: number
    /** Payments with no failure and no warning. */
    passed: number
    fail: number
    warn: number
    info: number
    /** Notifications still within the grace period: judged later. */
    waiting: number
  }
  /** How many times each check was found. */
  counts: Partial<Record<CheckId, number>>
  checks: Check[]
  /** Payments with findings, oldest first. */
  payments: PaymentAudit[]
  /** Merchants whose creates have findings (faults of the API they did not cope with). */
  creates: CreateAudit[]
}

export interface AuditInput {
  payments: readonly Payment[]
  deliveriesOf: (trackId: string) => readonly Delivery[]
  verifiesOf: (trackId: string) => VerifyJournal | undefined
  /** Faults of the API played on the merchant's requests (`pay fault add`), oldest first: verifies of these payments, and creates. */
  hits?: readonly FaultHit[]
  /** Judge creates (a merchant's, or every one's): their faults and retries. Left out when only a payment is audited. */
  creates?: boolean
  /** Sandbox time, ms since the epoch. */
  now: number
  settings?: Partial<AuditSettings>
  strict?: boolean
  /** Checks left out. */
  ignore?: readonly CheckId[]
}

/** Audits the payments given (already filtered by merchant or time). */
export function audit(input: AuditInput): AuditReport {
  const settings = { ...DEFAULT_AUDIT_SETTINGS, ...input.settings }
  const all = checks(settings)
  const ignored = new Set(input.ignore ?? [])
  const report: PaymentAudit[] = []
  const counts: Partial<Record<CheckId, number>> = {}
  const totals = { payments: input.payments.length, passed: 0, fail: 0, warn: 0, info: 0, waiting: 0 }
  const hits = input.hits ?? []
  const verifyHits = new Map<string, FaultHit[]>()
  for (const hit of hits) {
    if (hit.route !== 'verify' || hit.trackId === undefined) continue
    const list = verifyHits.get(hit.trackId) ?? []
    list.push(hit)
    verifyHits.set(hit.trackId, list)
  }
  const kept = (found: readonly Finding[]) => {
    const findings = found.filter((f) => !ignored.has(f.check))
    for (const f of findings) {
      totals[f.level]++
      counts[f.check] = (counts[f.check] ?? 0) + 1
    }
    return findings
  }
  for (const payment of input.payments) {
    const found = auditPayment(payment, input.deliveriesOf(payment.trackId), input.verifiesOf(payment.trackId), verifyHits.get(payment.trackId) ?? [], input.now, settings, all)
    totals.waiting += found.waiting
    const findings = kept(found.findings)
    const verdict = verdictOf(findings)
    if (verdict === 'pass') totals.passed++
    if (findings.length > 0) report.push({ trackId: payment.trackId, merchant: payment.merchant, status: payment.status, verdict, findings })
  }
  const creates: CreateAudit[] = []
  if (input.creates) {
    const byMerchant = new Map<string, FaultHit[]>()
    for (const hit of hits) {
      if (hit.route !== 'create') continue
      const who = hit.merchant ?? `${hit.keyHint ?? '(no key)'} (not a key of this sandbox)`
      byMerchant.set(who, [...(byMerchant.get(who) ?? []), hit])
    }
    for (const [merchant, merchantHits] of byMerchant) {
      const made = input.payments.filter((p) => p.merchant === merchant)
      const findings = kept(createFaultFindings(merchantHits, made, settings).map((f) => ({ ...f, level: all[f.check].level })))
      if (findings.length > 0) creates.push({ merchant, verdict: verdictOf(findings), findings })
    }
  }
  const verdict: Verdict = totals.fail > 0 ? 'fail' : totals.warn > 0 ? 'warn' : 'pass'
  const strict = input.strict ?? false
  return {
    ok: verdict === 'pass' || (verdict === 'warn' && !strict),
    verdict,
    strict,
    at: new Date(input.now).toISOString(),
    settings,
    totals,
    counts,
    checks: CHECK_IDS.filter((id) => !ignored.has(id)).map((id) => all[id]),
    payments: report,
    creates,
  }
}

function verdictOf(findings: readonly Finding[]): Verdict {
  if (findings.some((f) => f.level === 'fail')) return 'fail'
  if (findings.some((f) => f.level === 'warn')) return 'warn'
  return 'pass'
}

function auditPayment(
  payment: Payment,
  deliveries: readonly Delivery[],
  journal: VerifyJournal | undefined,
  hits: readonly FaultHit[],
  now: number,
  settings: AuditSettings,
  all: Record<CheckId, Check>,
): { findings: Finding[]; waiting: number } {
  const findings: Finding[] = []
  const add = (check: CheckId, reason: string, extra: { deliveryId?: string; at?: string } = {}) =>
    findings.push({ check, level: all[check].level, reason, ...extra })
  let waiting = 0
  // The operator's verifies (the CLI, the inspector, a scenario checking as the operator) judge nothing.
  const entries = merchantEntries(journal?.entries ?? [])
  // The merchant's verifies that got a fault: answering a notification non-2xx meanwhile, so that it comes again, is right.
  const failedVerifies = hits.filter((h) => h.owner === true && hitFailed(h))
  const verifyFailedBetween = (from: string, to: string) => failedVerifies.some((h) => Date.parse(h.at) >= Date.parse(from) && Date.parse(h.at) <= Date.parse(to))

  for (const d of deliveries) {
    if (d.replayOf !== undefined) continue
    const status = reportedStatus(d)
    const attempts = attemptsOf(d)
    const occurredAt = typeof d.body.occurredAt === 'string' ? d.body.occurredAt : d.createdAt
    const verified = verifiedAfter(entries, occurredAt, status)
    const firstOk = attempts.find(answered2xx)
    if (firstOk && !verified) {
      if (Date.parse(firstOk.at) + settings.graceMs > now) waiting++
      else add('unverified-notification', `the ${status ?? d.event} notification was answered ${firstOk.status} at ${firstOk.at}, and the payment was not verified with its merchant's key after it changed`, { deliveryId: d.id, at: firstOk.at })
    }
    if (d.state === 'dropped' && !verified) {
      if (Date.parse(d.createdAt) + settings.graceMs > now) waiting++
      else add('dropped-unreconciled', `the ${status ?? d.event} notification was dropped at ${d.createdAt} (${d.fault?.reason ?? 'fault'}), and the payment was never verified after it changed`, { deliveryId: d.id, at: d.createdAt })
    }
    // Refused while verify was failing (a fault), and verified once it answered again: the merchant did right.
    const outage = d.state === 'failed' && verified && attempts.length > 0 && verifyFailedBetween(d.createdAt, attempts.at(-1)!.at)
    if (d.state === 'failed' && !outage) {
      const last = attempts.at(-1)
      add('retries-exhausted', `the ${status ?? d.event} notification failed after ${attempts.length} attempt${attempts.length === 1 ? '' : 's'}${last ? ` (last: ${answerOf(last)})` : ''}`, { deliveryId: d.id })
    }
    const repeatedRefusal = notIdempotent(d, attempts)
    if (repeatedRefusal) add('not-idempotent', repeatedRefusal, { deliveryId: d.id })
    const slow = attempts.find((a) => a.durationMs > settings.slowMs || (a.status === undefined && /timed out/.test(a.error ?? '')))
    if (slow) add('slow-callback', `attempt ${slow.attempt} of the ${status ?? d.event} notification ${slow.status !== undefined ? `was answered after ${formatDuration(slow.durationMs)}` : `got no answer (${slow.error})`}`, { deliveryId: d.id, at: slow.at })
    const copies = copiesOf(d)
    if (d.state === 'delivered' && d.fault === undefined && firstOk && firstOk.attempt > copies && !verifyFailedBetween(d.createdAt, firstOk.at)) {
      const failed = attempts.filter((a) => a.attempt < firstOk.attempt)
      add('callback-retried', `the ${status ?? d.event} notification was answered 2xx at attempt ${firstOk.attempt}, after ${failed.map(answerOf).join(', ')}`, { deliveryId: d.id })
    }
  }

  const foreign = entries.filter((e) => !e.owner)
  if (foreign.length > 0) {
    const keys = [...new Set(foreign.map((e) => e.key ?? e.keyHint ?? '(no key)'))]
    add('foreign-key', `${foreign.length} verify call${foreign.length === 1 ? '' : 's'} with ${keys.length === 1 ? 'the key' : 'the keys'} ${keys.slice(0, 3).join(', ')}${keys.length > 3 ? ', …' : ''} (answered ${[...new Set(foreign.map((e) => e.result))].join(', ')})`, { at: foreign[0]!.at })
  }

  const burst = fastestBurst(entries, settings.pollWindowMs)
  if (burst.count > settings.pollMax) {
    add('verify-polling', `${burst.count} verify calls within ${formatDuration(settings.pollWindowMs)} from ${burst.from}${journal && journal.count > journal.entries.length ? ` (${journal.count} in all)` : ''}`, { at: burst.from })
  }

  for (const [field, url] of [['callbackUrl', payment.callbackUrl], ['returnUrl', payment.returnUrl]] as const) {
    const why = url === undefined ? undefined : productionProblem(url)
    if (why) add('insecure-url', `${field} ${why}`)
  }

  if (payment.status === 'paid' && payment.paidAmount !== undefined && payment.paidAmount !== payment.amount) {
    const seen = entries.find((e) => e.owner && e.result === 100 && e.amount !== payment.amount)
    if (seen) add('amount-differs', `paid ${payment.paidAmount} for an order of ${payment.amount}; the merchant verified it at ${seen.at} (result 100, amount ${seen.amount})`, { at: seen.at })
  }

  const faulted = paymentFaultFindings(payment, hits, entries, now, settings)
  waiting += faulted.waiting
  for (const f of faulted.findings) add(f.check, f.reason, f.at !== undefined ? { at: f.at } : {})
  // A merchant that tried to verify and took the fault for an answer is told so once: not also that it never verified.
  if (faulted.findings.some((f) => f.check === 'outage-taken-as-answer')) {
    return { findings: findings.filter((f) => f.check !== 'unverified-notification' && f.check !== 'dropped-unreconciled'), waiting }
  }
  return { findings, waiting }
}

/**
 * The merchant verified with its own key at or after the change a notification reported, and saw that status or
 * a later one (a verify in the same instant as the change may still have seen the one before).
 */
function verifiedAfter(entries: readonly VerifyEntry[], occurredAt: string, status: string | undefined): boolean {
  const from = Date.parse(occurredAt)
  const notified = paymentStatuses.find((s) => s === status)
  return entries.some((e) => e.owner && Date.parse(e.at) >= from && (notified === undefined || canReach(notified, e.status)))
}

/** Why a duplicated or held-back notification's answers show an endpoint that refuses what it already handled. */
function notIdempotent(d: Delivery, attempts: readonly DeliveryAttempt[]): string | undefined {
  const plan = planOf(d.fault)
  if (plan.copies > 1) {
    const copies = attempts.slice(0, plan.copies)
    const firstOk = copies.findIndex(answered2xx)
    const refused = copies.find((a, i) => i > firstOk && firstOk !== -1 && !answered2xx(a))
    if (refused) return `copy ${refused.attempt} of the duplicated ${reportedStatus(d) ?? d.event} notification was answered ${answerOf(refused)} after an earlier copy was answered 2xx`
  }
  if (plan.held) {
    const refused = attempts.find((a) => !answered2xx(a))
    if (refused) return `the ${reportedStatus(d) ?? d.event} notification, sent after a later one, was answered ${answerOf(refused)}`
  }
  return undefined
}

function answerOf(a: DeliveryAttempt): string {
  return a.status !== undefined ? `HTTP ${a.status}` : (a.error ?? 'no answer')
}

/** The most verifies within any window of `windowMs`, and when that window starts. */
function fastestBurst(entries: readonly VerifyEntry[], windowMs: number): { count: number; from: string } {
  let best = { count: 0, from: '' }
  let start = 0
  for (let end = 0; end < entries.length; end++) {
    const t = Date.parse(entries[end]!.at)
    while (t - Date.parse(entries[start]!.at) > windowMs) start++
    if (end - start + 1 > best.count) best = { count: end - start + 1, from: entries[start]!.at }
  }
  return best
}

/** Why a URL would not do in production: plain http, or a host only this machine or network reaches. */
export function productionProblem(text: string): string | undefined {
  let url: URL
  try {
    url = new URL(text)
  } catch {
    return undefined
  }
  const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase()
  const local = isLocalHost(host)
  if (url.protocol === 'http:' && local) return `is plain http to ${local}`
  if (url.protocol === 'http:') return 'is plain http'
  if (local) return `points at ${local}`
  return undefined
}

function isLocalHost(host: string): string | undefined {
  if (host === 'localhost' || host.endsWith('.localhost')) return 'localhost'
  if (host.endsWith('.local') || host.endsWith('.internal') || host.endsWith('.test')) return `a local name (${host})`
  const v4 = /^(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(host)
  if (v4) {
    const [a, b] = [Number(v4[1]), Number(v4[2])]
    if (a === 127) return 'a loopback address'
    if (a === 10 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168)) return 'a private address'
    if (a === 169 && b === 254) return 'a link-local address'
    if (a === 0) return 'an unspecified address'
    return undefined
  }
  if (host.includes(':')) {
    if (host === '::1') return 'a loopback address'
    if (/^f[cd]/.test(host)) return 'a private address'
    if (/^fe[89ab]/.test(host)) return 'a link-local address'
    if (host === '::') return 'an unspecified address'
    return undefined
  }
  if (!host.includes('.')) return `a name without a domain (${host})`
  return undefined
}

/** A check id as typed, or undefined. */
export function isCheckId(text: string): text is CheckId {
  return (CHECK_IDS as readonly string[]).includes(text)
}
