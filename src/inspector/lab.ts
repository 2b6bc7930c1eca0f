import type { AuditReport } from '../audit/rules.js'
import type { ClockView } from '../clock/sandbox-clock.js'
import type { VerifyJournal } from '../domain/types.js'
import type { FaultRule } from '../domain/api-fault.js'
import type { FaultHit } from '../domain/api-fault-hit.js'

/**
 * What the inspector shows of the sandbox's clock, verify journal, audit and API faults: the plugin is given readers of them,
 * and the pages draw their sections only then.
 */

/** A payment's verify calls: the latest (oldest first), and how many there were in all. */
export type VerifyCalls = Pick<VerifyJournal, 'count' | 'entries'>

/** The audit's verdict on the integration the sandbox observed, as `GET /_sandbox/audit` answers it. */
export type AuditVerdict = Pick<AuditReport, 'verdict' | 'at' | 'totals' | 'payments' | 'creates'>

export interface LabReaders {
  /** The sandbox clock, for the banner. */
  clock?: () => ClockView
  verifiesOf?: (trackId: string) => VerifyCalls | undefined
  audit?: () => AuditVerdict | Promise<AuditVerdict>
  /** The API fault rules, and the faults played on a payment's requests. */
  faults?: { rules(): FaultRule[]; hitsOf(trackId: string): FaultHit[]; onChanged(listener: () => void): () => void }
}
