import type { TelegramImage } from '../domain/telegram-records.js'
import type { Change, SandboxRecords, StateImage } from './changes.js'

/**
 * What makes the store durable: an engine keeps the log of changes (and its compacted image) somewhere, and the
 * store keeps the replica every reader reads (see store.ts). The file engine (`file/`) keeps a journal and a
 * snapshot beside the data file, for one instance; an engine on a shared database lets several instances share one
 * log, each with its own replica fed in the log's order.
 *
 * All change semantics live in `State.apply` (state.ts); an engine only stores, orders and hands back changes.
 */
export interface StoreEngine {
  /** Where the engine keeps the data, as messages and /_sandbox/health name it (a path, a URL without password). */
  readonly location: string

  /**
   * Loads what is stored into the replica (`into.load` once, then `into.replay` for each later change, in seq
   * order). A store that does not exist yet is created holding the changes `seed` gives once what there is has
   * been loaded (the default merchant). Throws DataFileError, naming what cannot be used, and leaves the stored
   * data as it was.
   */
  open(into: EngineHost, seed: () => readonly Change[]): Promise<EngineOpened>

  /**
   * Writes `units` in order, each atomically, in one go (group commit: the file engine's one append and one
   * fdatasync). A unit is written only if its expectations hold and every unit of this write it is based on was
   * written; otherwise it is answered `conflict` and nothing of it is written. Seqs are given in write order, one
   * per change, continuing the log. A unit that holds a `replace` (an import) comes alone.
   *
   * `after` is the seq the replica stands at. An engine shared with other instances returns, in `remote`, the
   * changes others committed after `after` and before the first seq it gave here, so the replica can apply every
   * change in seq order.
   *
   * Rejects when nothing could be written (the disk failed, the database is unreachable): then no unit was.
   */
  write(units: readonly UnitWrite[], after: number): Promise<WriteOutcome>

  /** Called once the replica has applied changes (a write, or others' pulled): the engine compacts from here. */
  applied?(): Promise<void>

  /**
   * Changes other instances committed after `after`, in seq order (absent: nothing but this instance writes).
   * Called one at a time, never while a write is out.
   */
  pull?(after: number): Promise<RemoteUnit[]>

  /** Tells the store remote changes may be waiting (a notification), so followers see them without a request. */
  onRemote?(wake: () => void): () => void

  /** Whether this instance runs the jobs that must run once (absent: it always does). */
  readonly leadership?: Leadership

  /** The sandbox's URL, once it listens: the file engine's lock records it, so a second start can name it. */
  announce?(url: string): void

  /**
   * A list beside the state that the instances share (the request log), keeping about the newest `keep` entries;
   * absent when nothing else shares the engine.
   */
  entries?(channel: string, keep: number): SharedEntries

  /**
   * Claims `name` for this instance (a bot's long poll): the newest claim of a name, by any instance, wins, and
   * the claims it overtakes are told. Absent when nothing else shares the engine.
   */
  claim?(name: string): Claim

  /** What /_sandbox/health and `pay sandbox status` say of the store (absent: the location alone, one instance). */
  describe?(): Promise<StoreDescription>

  /** Waits for the engine's background work (a compaction under way). */
  flush(): Promise<void>

  /** Makes the stored data whole for the next start (the file engine writes the snapshot) and lets it go. */
  close(): Promise<void>

  /** Lets the stored data go without writing anything more (a start that failed once open). */
  release(): Promise<void>
}

/**
 * A list of entries beside the state, shared by the instances: each appends its own, and every one reads them all
 * in one order (ids given as they are committed). Not part of the state: never in a snapshot or an export.
 */
export interface SharedEntries {
  /** Appends texts in order. */
  append(texts: readonly string[]): Promise<void>
  /** Entries after `id`, oldest first, at most `limit`. */
  after(id: number, limit: number): Promise<Array<{ id: number; text: string }>>
  /** The newest `limit` entries, oldest first. */
  newest(limit: number): Promise<Array<{ id: number; text: string }>>
  /** Calls `wake` when another instance (or this one) appended; the returned function stops it. */
  onAppended(wake: () => void): () => void
}

/** A claim: lost once a newer claim of its name is made, by this instance or another. */
export interface Claim {
  /** Calls `lost` when a newer claim overtakes this one. */
  onLost(lost: () => void): void
  /** Lets go of it (what it was for is over). */
  release(): void
}

/** Which store is in use, and how many instances share it. */
export interface StoreDescription {
  engine: 'file' | 'postgres'
  /** A path, or a URL with its password masked. */
  location: string
  /** Instances live on it (seen within the last seconds), this one included. */
  instances: number
  /** Whether this instance runs the jobs that run once. */
  leading: boolean
}

/** Everything the replica holds: what a snapshot writes. */
export type FullImage = StateImage & Partial<TelegramImage> & SandboxRecords

/** What an engine may ask of the store's replica. */
export interface EngineHost {
  /** At open: the stored image, standing at `seq`. `versions` gives records' own versions; without it, each is `seq`. */
  load(image: FullImage, seq: number, versions?: ReadonlyMap<string, number>): void
  /** At open: a change after the image, in seq order. */
  replay(change: Change, seq: number): void
  /** Everything the replica holds now, for a snapshot. */
  fullImage(): FullImage
  /** The full image once an import of `image` is applied: what an import keeps of the rest (the emulator, the clock). */
  importedImage(image: StateImage): FullImage
  /** The seq the replica stands at. */
  readonly seq: number
  /** Records the replica holds: how much a snapshot costs. */
  readonly size: number
}

export interface EngineOpened {
  /** The last seq stored: the replica stands at it. */
  seq: number
  report: OpenReport
}

export interface OpenReport {
  /** Nothing was stored yet: the store was created with the default merchant. */
  created: boolean
  /** Changes replayed on top of the stored image. */
  replayed: number
  /** The file engine: bytes of a torn final journal record (a write cut short by a crash; never acknowledged). */
  tornBytes: number
  /** The file engine: temporary files of snapshot writes cut short by a crash, removed at start. */
  removedTemps: number
}

/** A record key and the version a unit was based on. */
export interface Expectation {
  /** `payment:<trackId>`, `merchant:<key>`, `delivery:<id>`, `tg-msg:<bot>:<chat>:<id>` … (see keys.ts) */
  key: string
  /** The seq of the change that last wrote the record, as the writer saw it; 0 when it must not exist. */
  version: number
}

/** One unit to write: its changes are durable together or not at all. */
export interface UnitWrite {
  changes: readonly Change[]
  expects: readonly Expectation[]
  /**
   * Indexes of earlier units of the same write this one was based on (they were not yet durable when it was
   * made): it holds only if they are written. Its records those units write carry no expectation of their own.
   */
  basedOn?: readonly number[]
}

export type UnitResult = { ok: true; seq: number } | { ok: false; conflict: string }

export interface WriteOutcome {
  /** One per unit, in order: written with the seq of its first change (the others follow it), or a conflict. */
  results: UnitResult[]
  /** Changes of other instances the replica must apply before these units (see `write`). */
  remote?: RemoteUnit[]
}

/** A unit another instance committed. */
export interface RemoteUnit {
  /** Seq of its first change; the others follow it. */
  seq: number
  changes: readonly Change[]
}

/** Whether this instance runs the jobs that must run once: callback attempts, expiries, blocks, webhooks. */
export interface Leadership {
  readonly leading: boolean
  /**
   * Calls `roles.lead` now if this instance leads, and each time it becomes leader; `roles.follow` each time it
   * stops leading. The returned function stops watching.
   */
  watch(roles: { lead(): void; follow(): void }): () => void
}

/** The leadership of an engine nothing else shares: always the leader. */
export const SOLE_LEADER: Leadership = {
  leading: true,
  watch(roles) {
    roles.lead()
    return () => {}
  },
}
