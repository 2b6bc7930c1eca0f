import { basename, join } from 'node:path'
import { Low } from 'lowdb'
import { SandboxError } from '../../domain/outcomes.js'
import type { EngineHost, EngineOpened, FullImage, StoreEngine, UnitResult, UnitWrite, WriteOutcome } from '../engine.js'
import { DataFileError, fsProblem } from '../errors.js'
import type { Change, StateImage } from '../changes.js'
import { isMissing, nodeFs, type StoreFs } from './fs.js'
import { dirOf, syncDir } from './fsutil.js'
import { type Durability, JOURNAL_FORMAT, type JournalHeader, JournalWriter, readJournal } from './journal.js'
import { DataFileLock, realDataPath } from './lock.js'
import { emptySnapshot, isSnapshotTemp, newStoreId, type Snapshot, type SnapshotData, SNAPSHOT_FORMAT, SnapshotFile } from './snapshot.js'

export interface FileEngineOptions {
  /** Path of the data file (the lowdb snapshot). The journal and lock live beside its real path. */
  file: string
  /** The time the lock records as the start. */
  now?: () => Date
  /** Journal records after which a compaction starts; it also waits for as many records as are stored. */
  compactAfter?: number
  /** Journal size after which a compaction starts, whatever the number of records. Default 64 MB. */
  compactAfterBytes?: number
  /** The file system; tests wrap it to inject faults. */
  fs?: StoreFs
  /** When a write is acknowledged: after its fdatasync (`disk`, the default), or once the OS has it (`os`). */
  durability?: Durability
}

const COMPACT_AFTER_BYTES = 64 * 1024 * 1024
const SNAPSHOT_RETRY_MS = { first: 1_000, max: 60_000 }

/**
 * The data file: one sandbox, one file, held by a lock. Changes are appended to a journal beside it (one append
 * per write, synced before it returns: group commit), and the journal is compacted into the lowdb snapshot in the
 * background once it holds half as many records as the state (so the snapshot's cost, which grows with the state,
 * is spread over as many writes) or grows past a size, and at shutdown. An import is written as a snapshot of its
 * own. Nothing else writes the file, so a unit's expectations always hold and are not checked.
 */
export class FileEngine implements StoreEngine {
  private fileOption: string
  private readonly fs: StoreFs
  private readonly now: () => Date
  private readonly durability: Durability
  private readonly compactAfter: number
  private readonly compactAfterBytes: number
  private db!: Low<SnapshotData>
  private lock: DataFileLock | undefined
  private host!: EngineHost
  private journal!: JournalWriter
  private storeId = ''
  /** Last seq written. */
  private seq = 0
  private journalRecords = 0
  private compaction: Promise<void> | undefined
  /** A rotated journal whose records are not yet in a snapshot. */
  private oldJournal = false
  private snapshotRetryAt = 0
  private snapshotRetryMs = SNAPSHOT_RETRY_MS.first
  private closed = false

  constructor(options: FileEngineOptions) {
    this.fileOption = options.file
    this.fs = options.fs ?? nodeFs
    this.now = options.now ?? (() => new Date())
    this.durability = options.durability ?? 'disk'
    this.compactAfter = options.compactAfter ?? 10_000
    this.compactAfterBytes = options.compactAfterBytes ?? COMPACT_AFTER_BYTES
  }

  /** The data file's real path, once open (the path given until then). */
  get file(): string {
    return this.fileOption
  }

  get location(): string {
    return this.file
  }

  get journalPath(): string {
    return `${this.file}.journal`
  }

  get oldJournalPath(): string {
    return `${this.file}.journal.old`
  }

  /** Opens (or creates) the data file. Throws DataFileError, naming the file, if it cannot be used. */
  async open(host: EngineHost, seed: () => readonly Change[]): Promise<EngineOpened> {
    this.host = host
    const given = this.fileOption
    await this.fs.mkdir(dirOf(given), { recursive: true }).catch((error: Error) => {
      throw new DataFileError(`cannot create the folder of data file ${given}: ${fsProblem(error)}`)
    })
    try {
      this.fileOption = realDataPath(given)
    } catch (error) {
      throw new DataFileError(`cannot resolve data file ${given}: ${(error as Error).message}`)
    }
    this.db = new Low(new SnapshotFile(this.fs, this.file), emptySnapshot())
    this.lock = DataFileLock.acquire(this.file, this.now().toISOString())
    try {
      return await this.load(seed)
    } catch (error) {
      this.lock.release()
      throw error
    }
  }

  private async load(seed: () => readonly Change[]): Promise<EngineOpened> {
    const removedTemps = await this.removeTemps()
    const fresh = this.db.data
    await this.db.read()
    const snapshot = this.db.data
    const created = snapshot === fresh
    this.host.load(snapshot, snapshot.seq)
    // The state holds the records now: the list the file was read into is let go.
    this.db.data = fresh
    this.storeId = snapshot.store ?? newStoreId()
    let seq = snapshot.seq
    let covered = snapshot.seq
    let replayed = 0
    let tornBytes = 0
    let journalsToFold = false
    for (const path of [this.oldJournalPath, this.journalPath]) {
      const read = await readJournal(this.fs, path, {
        header: (header) => this.checkJournal(path, header, snapshot, created, covered),
        record: (record) => {
          if (record.s <= snapshot.seq) return
          const { s, ...change } = record
          this.host.replay(change as Change, s)
          seq = Math.max(seq, s)
          replayed++
        },
      })
      tornBytes += read.tornBytes
      covered = Math.max(covered, read.lastSeq, read.header?.after ?? 0)
      if (read.records > 0 || read.tornBytes > 0 || (path === this.oldJournalPath && read.header !== undefined)) journalsToFold = true
    }
    // A new data file starts with the seed, in its first snapshot.
    if (created) for (const change of seed()) this.host.replay(change, seq)
    this.seq = seq
    if (created || journalsToFold || snapshot.store === undefined) {
      // Fold the journals into a fresh snapshot before accepting requests.
      await this.writeSnapshot(this.host.fullImage(), seq).catch((error: Error) => {
        throw new DataFileError(`cannot write data file ${this.file}, so it was left as it was: ${fsProblem(error)}`)
      })
      try {
        const handle = await this.fs.open(this.journalPath, 'w')
        await handle.close()
        await this.fs.unlink(this.oldJournalPath).catch(ignoreMissing)
      } catch (error) {
        throw new DataFileError(`cannot empty journal ${this.journalPath} after saving it in ${this.file}: ${fsProblem(error)}`)
      }
    }
    try {
      this.journal = await JournalWriter.open(this.fs, this.journalPath, this.header(), this.durability)
    } catch (error) {
      throw new DataFileError(`cannot write journal ${this.journalPath}: ${fsProblem(error)}`)
    }
    return { seq, report: { created, replayed, tornBytes, removedTemps } }
  }

  /** A journal must belong to this data file and continue it without a gap. */
  private checkJournal(path: string, header: JournalHeader | undefined, snapshot: Snapshot, created: boolean, covered: number): void {
    if (header === undefined) return // empty, or written before journals had headers
    const refuse = (why: string) =>
      new DataFileError(
        `journal ${path} does not belong with data file ${this.file}: ${why}. Both were left untouched; acknowledged ` +
          'changes may be in that journal. Put back the data file it belongs to, or move the journal away to start ' +
          'without its changes, or start on another file with --data <file>.',
      )
    if (created) throw refuse('the data file is missing')
    if (header.store !== snapshot.store) {
      throw refuse(`it was written for data file id ${header.store}, and ${this.file} has id ${snapshot.store ?? '(none)'}`)
    }
    if (header.after > covered) {
      throw refuse(
        `it continues from change ${header.after}, but the data file only holds changes up to ${covered} ` +
          '(the data file was replaced by an older copy)',
      )
    }
  }

  private header(): JournalHeader {
    return { journal: JOURNAL_FORMAT, store: this.storeId, after: this.seq }
  }

  /** Snapshot writes cut short by a crash leave `<data file>.tmp-<pid>`; the lock says none is under way. */
  private async removeTemps(): Promise<number> {
    const name = basename(this.file)
    let removed = 0
    const entries = await this.fs.readdir(dirOf(this.file)).catch(() => [] as string[])
    for (const entry of entries) {
      if (!isSnapshotTemp(entry, name)) continue
      await this.fs
        .unlink(join(dirOf(this.file), entry))
        .then(() => removed++)
        .catch(() => {})
    }
    return removed
  }

  // ── writes ────────────────────────────────────────────────────────────

  /** One journal append (synced) for the whole batch; an import, alone, as a snapshot of its own. */
  async write(units: readonly UnitWrite[]): Promise<WriteOutcome> {
    const first = units[0]?.changes[0]
    let seq = this.seq
    const results: UnitResult[] = []
    if (first?.k === 'replace') {
      results.push({ ok: true, seq: ++seq })
      try {
        await this.writeImport(seq, first.v)
      } catch (error) {
        throw failure(this.file, error)
      }
    } else {
      let text = ''
      let records = 0
      for (const unit of units) {
        results.push({ ok: true, seq: seq + 1 })
        for (const change of unit.changes) {
          text += `${JSON.stringify({ s: ++seq, ...change })}\n`
          // Observations are small and cheap to replay: they bring compaction nearer only through the journal's size.
          if (change.k !== 'verify') records++
        }
      }
      try {
        await this.journal.append(text)
      } catch (error) {
        throw failure(this.journalPath, error)
      }
      this.journalRecords += records
    }
    this.seq = seq
    return { results }
  }

  /** An import becomes a snapshot of its own; journal records before it are older and skipped on replay. */
  private async writeImport(seq: number, image: StateImage): Promise<void> {
    while (this.compaction) await this.compaction
    await this.writeSnapshot(this.host.importedImage(image), seq)
    this.oldJournal = false
    await this.fs.unlink(this.oldJournalPath).catch(() => {})
  }

  async applied(): Promise<void> {
    if (this.shouldCompact()) await this.compact()
  }

  private shouldCompact(): boolean {
    if (this.compaction || this.closed || Date.now() < this.snapshotRetryAt) return false
    if (this.journal.bytes >= this.compactAfterBytes) return true
    return this.journalRecords >= Math.max(this.compactAfter, this.host.size / 2)
  }

  /**
   * Moves the journal aside (between two writes) and writes a snapshot of the replica in the background; new
   * changes go on meanwhile. A rotation that fails is tried again after the next write; a snapshot that fails is
   * tried again after a pause, and until then the old journal stays for replay.
   */
  private async compact(): Promise<void> {
    if (!this.oldJournal) {
      try {
        await this.journal.rotate(this.oldJournalPath, this.header())
      } catch {
        return
      }
      this.oldJournal = true
      this.journalRecords = 0
    }
    const image = this.host.fullImage()
    const seq = this.host.seq
    this.compaction = this.writeSnapshot(image, seq)
      .then(async () => {
        await this.fs.unlink(this.oldJournalPath).catch(ignoreMissing)
        await syncDir(this.fs, dirOf(this.file))
        this.oldJournal = false
        this.snapshotRetryMs = SNAPSHOT_RETRY_MS.first
      })
      .catch(() => {
        this.snapshotRetryAt = Date.now() + this.snapshotRetryMs
        this.snapshotRetryMs = Math.min(this.snapshotRetryMs * 2, SNAPSHOT_RETRY_MS.max)
      })
      .finally(() => {
        this.compaction = undefined
      })
  }

  private async writeSnapshot(image: FullImage, seq: number): Promise<void> {
    this.db.data = { format: SNAPSHOT_FORMAT, seq, store: this.storeId, ...image }
    try {
      await this.db.write()
    } finally {
      // Written (or not): the image would otherwise keep every record it names alive, replaced or not, until the next one.
      this.db.data = emptySnapshot()
    }
  }

  // ── lifecycle ─────────────────────────────────────────────────────────

  /** Waits for a compaction under way. */
  async flush(): Promise<void> {
    while (this.compaction) await this.compaction
  }

  /** Writes the full state to the data file, empties the journal and releases the lock. */
  async close(): Promise<void> {
    if (this.closed) return
    this.closed = true
    try {
      await this.writeSnapshot(this.host.fullImage(), this.host.seq).catch(async (error: unknown) => {
        // Not saved: the journal keeps every change for the next start, and its descriptor is let go all the same.
        await this.journal.close().catch(() => {})
        throw error
      })
      await this.journal.close()
      const handle = await this.fs.open(this.journalPath, 'w')
      await handle.close()
      await this.fs.unlink(this.oldJournalPath).catch(ignoreMissing)
    } finally {
      this.lock?.release()
    }
  }

  /** Lets go of the data file without writing it; every acknowledged change is in the journal already. */
  async release(): Promise<void> {
    if (this.closed) return
    this.closed = true
    try {
      await this.journal.close()
    } catch {
      // closing a handle we only give up
    } finally {
      this.lock?.release()
    }
  }

  /** Lets the lock record the URL, so a second start on this file can name it. */
  announce(url: string): void {
    this.lock?.setUrl(url)
  }

  get journalBytes(): number {
    return this.journal.bytes
  }

  /** Journal writes (each one synced append) since open. */
  get journalWrites(): number {
    return this.journal.writes
  }
}

/** A failed write in words: where, what, and that nothing of it was stored. */
function failure(file: string, error: unknown): SandboxError {
  return new SandboxError('storageUnavailable', `could not save to ${file} (${(error as Error).message}); nothing was stored`)
}

function ignoreMissing(error: unknown): void {
  if (!isMissing(error)) throw error
}
