import type { ClockRecord, Delivery, Merchant, Payment, VerifyEntry, VerifyJournal } from '../domain/types.js'
import type { TelegramChange } from '../domain/telegram-records.js'

export interface StateImage {
  merchants: Merchant[]
  payments: Payment[]
  deliveries: Delivery[]
}

/** The sandbox's own records beside the lists: the clock, and the verify journals. */
export interface SandboxRecords {
  clock?: ClockRecord
  verifies?: VerifyJournal[]
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
