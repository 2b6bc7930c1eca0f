import type { Merchant, Payment, VerifyEntry, VerifyJournal } from './types.js'
import type { VerifyBody } from './validate.js'

/** Verify entries kept per payment, besides the count of all. */
export const VERIFY_JOURNAL_KEEP = 50

/** Characters of an unknown key kept in the journal: enough to recognise it, not enough to use it. */
const HINT_CHARS = 4

/**
 * The journal entry of a verify of `payment`. A key of this sandbox is kept as sent (keys are shown on the
 * dashboard anyway); an unknown one only by its first characters and length, since it may be a production key
 * sent to the sandbox by mistake.
 */
export function verifyEntry(input: { payment: Payment; key: unknown; merchant: Merchant | undefined; answer: VerifyBody; at: string; operator?: boolean }): VerifyEntry {
  const { payment, merchant, answer } = input
  return {
    trackId: payment.trackId,
    at: input.at,
    ...(merchant ? { key: merchant.key } : { keyHint: keyHint(input.key) }),
    owner: merchant !== undefined && merchant.key === payment.merchant,
    result: answer.result,
    ...('amount' in answer ? { amount: answer.amount } : {}),
    status: payment.status,
    ...(input.operator ? { operator: true as const } : {}),
  }
}

/** The entries the merchant made: the operator's (the CLI, the inspector, a scenario checking) are left out. */
export function merchantEntries(entries: readonly VerifyEntry[]): VerifyEntry[] {
  return entries.filter((e) => e.operator !== true)
}

/** `sk_l… (32 characters)`, `(no key)`, `(a number)`. */
export function keyHint(key: unknown): string {
  if (typeof key !== 'string') return key === undefined || key === null ? '(no key)' : `(not a string: ${typeof key})`
  if (key.length === 0) return '(empty)'
  const chars = Array.from(key)
  return `${chars.slice(0, HINT_CHARS).join('')}… (${chars.length} characters)`
}

/** When the payment's status last changed (confirmations added to an unfinalized payment do not count). */
export function lastStatusChange(payment: Payment): string {
  return payment.history.at(-1)?.at ?? payment.updatedAt
}

/** The owner's entries at or after `since` (an ISO time), oldest first; the operator's are not the owner's. */
export function ownerVerifiesSince(journal: VerifyJournal | undefined, since: string): VerifyEntry[] {
  if (!journal) return []
  const from = Date.parse(since)
  return journal.entries.filter((e) => e.owner && e.operator !== true && Date.parse(e.at) >= from)
}

/**
 * The owner's latest verify of the payment's current status, made after the status last changed (and with
 * `result`, when given): proof that the merchant looked before acting. Undefined while there is none.
 */
export function verifiedCurrent(payment: Payment, journal: VerifyJournal | undefined, result?: number): VerifyEntry | undefined {
  const seen = ownerVerifiesSince(journal, lastStatusChange(payment)).filter((e) => e.status === payment.status)
  const matching = result === undefined ? seen : seen.filter((e) => e.result === result)
  return matching.at(-1)
}
