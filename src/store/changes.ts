import type { FaultRule } from '../domain/api-fault.js'
import type { FaultChange, FaultHit } from '../domain/api-fault-hit.js'
import type { ClockRecord, Delivery, Merchant, Payment, VerifyEntry, VerifyJournal } from '../domain/types.js'
import type { TelegramChange } from '../domain/telegram-records.js'

export interface StateImage {
  merchants: Merchant[]
  payments: Payment[]
  deliveries: Delivery[]
}

/** The sandbox's own records beside the lists: the clock, the verify journals, the API fault rules and the faults played. */
export interface SandboxRecords {
  clock?: ClockRecord
  verifies?: VerifyJournal[]
  faults?: FaultRule[]
  faultHits?: FaultHit[]
}

/** One change, as the journal records it (without its sequence number). */
export type Change =
  | { k: 'merchant'; v: Merchant }
  | { k: 'payment'; v: Payment }
  | { k: 'delivery'; v: Delivery }
  /** The sandbox clock moved. */
  | { k: 'clock'; v: ClockRecord }
  /** A verify of an existing payment, observed (journaled without holding the answer). */
  | { k: 'verify'; v: VerifyEntry }
  /** Payments and deliveries cleared; merchants kept. */
  | { k: 'reset' }
  /** Merchants, payments and deliveries replaced (import); the Bot API emulator's records stay. Written as a snapshot, never as a journal line. */
  | { k: 'replace'; v: StateImage }
  /** A record of the Bot API emulator. */
  | { k: 'tg'; v: TelegramChange }
  /** The API fault rules changed, or a fault was played (observed, as a verify is). */
  | { k: 'fault'; v: FaultChange }
