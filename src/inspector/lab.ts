import type { ClockView } from '../clock/sandbox-clock.js'
import type { PaymentStatus } from '../domain/types.js'

/**
 * What the inspector shows of the sandbox's verify journal and audit, when the sandbox keeps them: the plugin is
 * given readers of these shapes, and the pages draw their sections only then.
 */

/** One verify call of a payment. */
export interface VerifyCall {
  at: string
  result: number
  amount?: number
  /** The payment's status when it was verified. */
  status?: PaymentStatus
  /** The key sent, when it is one of this sandbox's merchants'. */
  key?: string
  /** A key this sandbox does not know, by its start and length: `sk_l… (24 characters)`. */
  keyHint?: string
  /** The key is the payment's merchant's. */
  owner?: boolean
}

/** A payment's verify calls: the latest, and how many there were in all. */
export interface VerifyCalls {
  count: number
  /** Oldest first. */
  entries: VerifyCall[]
}

export type Verdict = 'pass' | 'warn' | 'fail'

/** The audit's verdict on the integration the sandbox observed, as `GET /_sandbox/audit` answers it. */
export interface AuditVerdict {
  verdict: Verdict
  at: string
  totals: { payments: number; passed: number; fail: number; warn: number; info?: number; waiting?: number }
  /** Payments with findings. */
  payments: Array<{ trackId: string; verdict: Verdict; findings: Array<{ check: string; level: string; reason: string }> }>
}

export interface LabReaders {
  /** The sandbox clock, for the banner. */
  clock?: () => ClockView
  verifiesOf?: (trackId: string) => VerifyCalls | undefined
  audit?: () => AuditVerdict | Promise<AuditVerdict>
}
