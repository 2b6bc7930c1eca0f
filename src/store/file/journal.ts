import { constants as fsConstants } from 'node:fs'
import { journalRecordProblem } from '../../domain/record-schema.js'
import type { Change } from '../changes.js'
import { DataFileError, fsProblem } from '../errors.js'
import { type FileHandle, isMissing, type StoreFs } from './fs.js'
import { dirOf, syncDir, writeAll } from './fsutil.js'
import { LineReader } from './lines.js'

export const JOURNAL_FORMAT = 'pay-sandbox/1'

/** One change, as written to the journal: `s` orders records across journal files and the snapshot. */
export type JournalRecord = Exclude<Change, { k: 'replace' }> & { s: number }

/**
 * First line of a journal: which data file it belongs to (the snapshot's store id) and the sequence number the
 * data file had when the journal was started, so a journal is never replayed over a data file it does not
 * continue.
 */
export interface JournalHeader {
  journal: typeof JOURNAL_FORMAT
  store: string
  after: number
}

export interface JournalRead {
  /** Absent in an empty journal and in journals written before headers existed. */
  header: JournalHeader | undefined
  records: number
  lastSeq: number
  /** Bytes of a final record cut short by a crash. It was never acknowledged. */
  tornBytes: number
}

/**
 * Reads a journal file line by line (a journal of any size can be read back), handing each record to `onRecord`
 * and the header to `onHeader` before any record. A missing file is an empty journal. Any damaged complete line,
 * or a record the sandbox cannot use (see record-schema.ts), stops start-up.
 */
export async function readJournal(
  fs: StoreFs,
  path: string,
  on: { header: (header: JournalHeader | undefined) => void; record: (record: JournalRecord) => void },
): Promise<JournalRead> {
  let handle: FileHandle
  try {
    handle = await fs.open(path, 'r')
  } catch (error) {
    if (isMissing(error)) {
      on.header(undefined)
      return { header: undefined, records: 0, lastSeq: 0, tornBytes: 0 }
    }
    throw new DataFileError(`cannot read journal ${path}: ${fsProblem(error)}`)
  }
  const reader = new LineReader(handle)
  let header: JournalHeader | undefined
  let headerSeen = false
  let records = 0
  let lastSeq = 0
  try {
    for await (const { number, text } of reader.lines()) {
      if (text.length === 0) continue
      let value: unknown
      try {
        value = JSON.parse(text)
      } catch {
        throw damaged(path, number, 'not valid JSON')
      }
      if (!headerSeen) {
        headerSeen = true
        if (isHeader(value)) {
          header = value
          on.header(header)
          continue
        }
        on.header(undefined)
      }
      // Held to the rules the record was written by: a record the sandbox cannot use stops the start here,
      // naming its line, rather than being replayed into the state.
      const problem = journalRecordProblem(value)
      if (problem !== undefined) throw damaged(path, number, problem)
      const record = value as JournalRecord
      on.record(record)
      records++
      lastSeq = Math.max(lastSeq, record.s)
    }
  } catch (error) {
    if (error instanceof DataFileError) throw error
    throw new DataFileError(`cannot read journal ${path}: ${(error as Error).message}`)
  } finally {
    await handle.close().catch(() => {})
  }
  if (!headerSeen) on.header(undefined)
  return { header, records, lastSeq, tornBytes: reader.tailBytes() }
}

function damaged(path: string, line: number, what: string): DataFileError {
  return new DataFileError(
    `journal ${path} is damaged at line ${line} (${what}). It was left untouched, with the data file: ` +
      'repair or remove that line, restore a backup, or start on another file with --data <file>.',
  )
}

function isHeader(value: unknown): value is JournalHeader {
  if (typeof value !== 'object' || value === null) return false
  const h = value as Record<string, unknown>
  return h.journal === JOURNAL_FORMAT && typeof h.store === 'string' && Number.isSafeInteger(h.after)
}

export function headerLine(header: JournalHeader): string {
  return `${JSON.stringify(header)}\n`
}

/**
 * How an append is acknowledged. `disk` (the default): after its fdatasync, so it survives a power loss. `os`:
 * once the OS has the write, synced within OS_SYNC_MS, so it survives the process being killed but not a power
 * loss (Redis's `appendfsync everysec`, SQLite's `synchronous=NORMAL`).
 */
import type { Durability } from '../../domain/settings.js'

export { type Durability, DURABILITIES } from '../../domain/settings.js'
/** With `os` durability, the longest an acknowledged record waits for its fdatasync. */
export const OS_SYNC_MS = 1000

/** `disk` durability: journals are appended to with O_DSYNC (each write synced before it returns). */
const { O_APPEND, O_CREAT, O_DSYNC, O_EXCL, O_WRONLY } = fsConstants
const APPEND_DSYNC = O_WRONLY | O_APPEND | O_CREAT | O_DSYNC
const CREATE_DSYNC = O_WRONLY | O_APPEND | O_CREAT | O_EXCL | O_DSYNC

/**
 * Append-only journal file. Each `append` is one write: with `disk` durability to a file opened with O_DSYNC, so the
 * write returns only once the kernel has synced it as fdatasync would (one call on libuv's pool rather than a write
 * and an fdatasync); with `os` durability, an fdatasync follows within OS_SYNC_MS. A failed append is cut back to the
 * last durable record before anything else is written, so a half-written batch (never acknowledged) can never
 * be replayed; if even that fails, the next append repairs the file first.
 */
export class JournalWriter {
  readonly path: string
  private readonly fs: StoreFs
  private handle: FileHandle
  private size: number
  private appends = 0
  /** Bytes past `size` may hold part of a failed batch: cut them before the next write. */
  private dirty = false
  /** Where the open file sits after a rotation could not give it its name back; restored before the next write. */
  private misplacedAt: string | undefined
  private readonly durability: Durability
  /** `os` durability: the pending background sync. */
  private syncTimer: NodeJS.Timeout | undefined
  /** A background sync failed: the next append syncs before it is acknowledged (and fails if that fails). */
  private syncFailed = false

  private constructor(fs: StoreFs, path: string, handle: FileHandle, size: number, durability: Durability) {
    this.fs = fs
    this.path = path
    this.handle = handle
    this.size = size
    this.durability = durability
  }

  /** Opens the journal for appending; an empty one gets `header` as its first line (durably). */
  static async open(fs: StoreFs, path: string, header: JournalHeader, durability: Durability = 'disk'): Promise<JournalWriter> {
    const handle = await fs.open(path, durability === 'disk' ? APPEND_DSYNC : 'a')
    try {
      let { size } = await handle.stat()
      if (size === 0) {
        const line = Buffer.from(headerLine(header))
        await writeAll(handle, line)
        // Written with O_DSYNC (disk durability), the header is synced already.
        if (durability !== 'disk') await handle.datasync()
        size = line.length
      }
      return new JournalWriter(fs, path, handle, size, durability)
    } catch (error) {
      await handle.close().catch(() => {})
      throw error
    }
  }

  get bytes(): number {
    return this.size
  }

  get writes(): number {
    return this.appends
  }

  async append(text: string): Promise<void> {
    await this.repair()
    const buffer = Buffer.from(text)
    try {
      await writeAll(this.handle, buffer)
      if (this.syncFailed) {
        await this.handle.datasync()
        this.syncFailed = false
      } else {
        this.syncSoon()
      }
    } catch (error) {
      this.dirty = true
      await this.handle
        .truncate(this.size)
        .then(() => (this.dirty = false))
        .catch(() => {})
      throw error
    }
    this.size += buffer.length
    this.appends++
  }

  /**
   * Moves this journal to `to` and continues in a new one at the same path, starting with `header`. The new
   * journal is open and durable before the old one is let go: if anything fails, the old one is put back and
   * stays in use, so the store never lacks a writable journal.
   */
  async rotate(to: string, header: JournalHeader): Promise<void> {
    await this.repair()
    await this.fs.rename(this.path, to)
    let next: FileHandle | undefined
    let size = 0
    try {
      next = await this.fs.open(this.path, this.durability === 'disk' ? CREATE_DSYNC : 'wx')
      const line = Buffer.from(headerLine(header))
      await writeAll(next, line)
      if (this.durability !== 'disk') await next.datasync()
      size = line.length
    } catch (error) {
      await next?.close().catch(() => {})
      if (next) await this.fs.unlink(this.path).catch(() => {})
      // The open handle still writes to the old file, now at `to`: give it its name back.
      await this.fs.rename(to, this.path).catch(() => (this.misplacedAt = to))
      throw error
    }
    await syncDir(this.fs, dirOf(this.path))
    const old = this.handle
    await this.syncPending(old)
    this.handle = next
    this.size = size
    await old.close().catch(() => {})
  }

  /** `os` durability: one fdatasync within OS_SYNC_MS of the first unsynced append. */
  private syncSoon(): void {
    if (this.syncTimer) return
    const handle = this.handle
    this.syncTimer = setTimeout(() => {
      this.syncTimer = undefined
      handle.datasync().catch(() => {
        if (handle === this.handle) this.syncFailed = true
      })
    }, OS_SYNC_MS)
    this.syncTimer.unref()
  }

  /** Syncs what an `os` append left unsynced (before a close or a rotation); failures are left to the next append. */
  private async syncPending(handle: FileHandle): Promise<void> {
    if (!this.syncTimer) return
    clearTimeout(this.syncTimer)
    this.syncTimer = undefined
    await handle.datasync().catch(() => {})
  }

  /** Undoes what a failed write or rotation left behind; throws (and is retried next time) if it cannot. */
  private async repair(): Promise<void> {
    if (this.misplacedAt !== undefined) {
      await this.fs.rename(this.misplacedAt, this.path)
      this.misplacedAt = undefined
    }
    if (this.dirty) {
      await this.handle.truncate(this.size)
      this.dirty = false
    }
  }

  async close(): Promise<void> {
    await this.syncPending(this.handle)
    await this.handle.close()
  }
}
