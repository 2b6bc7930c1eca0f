import { open, readFile, rename, truncate } from 'node:fs/promises'
import type { Delivery, Merchant, Payment } from '../domain/types.js'
import { DataFileError } from './errors.js'
import { dirOf, syncDir, writeAll } from './fsutil.js'

export interface StateImage {
  merchants: Merchant[]
  payments: Payment[]
  deliveries: Delivery[]
}

/** One change, as written to the journal: `s` orders records across journal files and the snapshot. */
export type JournalRecord =
  | { s: number; k: 'merchant'; v: Merchant }
  | { s: number; k: 'payment'; v: Payment }
  | { s: number; k: 'delivery'; v: Delivery }
  /** Payments and deliveries cleared; merchants kept. */
  | { s: number; k: 'reset' }
  /** Whole state replaced (import). */
  | { s: number; k: 'replace'; v: StateImage }

export type JournalChange = JournalRecord extends infer R ? (R extends { s: number } ? Omit<R, 's'> : never) : never

export interface JournalRead {
  records: JournalRecord[]
  /** Bytes of a final record cut short by a crash. It was never acknowledged. */
  tornBytes: number
}

/** Reads a journal file; a missing file is an empty journal. Any damaged complete line stops start-up. */
export async function readJournal(path: string): Promise<JournalRead> {
  let text: string
  try {
    text = await readFile(path, 'utf8')
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { records: [], tornBytes: 0 }
    throw new DataFileError(`cannot read journal ${path}: ${(error as Error).message}`)
  }
  const lines = text.split('\n')
  const tail = lines.pop() ?? ''
  const records: JournalRecord[] = []
  for (const [index, line] of lines.entries()) {
    if (line.length === 0) continue
    let record: unknown
    try {
      record = JSON.parse(line)
    } catch {
      throw damaged(path, index + 1, 'not valid JSON')
    }
    if (!isRecord(record)) throw damaged(path, index + 1, 'not a journal record')
    records.push(record)
  }
  return { records, tornBytes: Buffer.byteLength(tail) }
}

function damaged(path: string, line: number, what: string): DataFileError {
  return new DataFileError(
    `journal ${path} is damaged at line ${line} (${what}). It was left untouched, with the data file: ` +
      'repair or remove that line, restore a backup, or start on another file with --data <file>.',
  )
}

function isRecord(value: unknown): value is JournalRecord {
  if (typeof value !== 'object' || value === null) return false
  const r = value as Record<string, unknown>
  if (typeof r.s !== 'number' || !Number.isSafeInteger(r.s)) return false
  switch (r.k) {
    case 'merchant':
    case 'payment':
    case 'delivery':
    case 'replace':
      return typeof r.v === 'object' && r.v !== null
    case 'reset':
      return true
    default:
      return false
  }
}

type Handle = Awaited<ReturnType<typeof open>>

/** Append-only journal file. Each `append` is one write and one fdatasync. */
export class JournalWriter {
  readonly path: string
  private handle: Handle
  private size: number
  private appends = 0

  private constructor(path: string, handle: Handle, size: number) {
    this.path = path
    this.handle = handle
    this.size = size
  }

  static async open(path: string): Promise<JournalWriter> {
    const handle = await open(path, 'a')
    const { size } = await handle.stat()
    return new JournalWriter(path, handle, size)
  }

  get bytes(): number {
    return this.size
  }

  get writes(): number {
    return this.appends
  }

  async append(text: string): Promise<void> {
    const buffer = Buffer.from(text)
    try {
      await writeAll(this.handle, buffer)
      await this.handle.datasync()
      this.size += buffer.length
      this.appends++
    } catch (error) {
      // Cut back to the last durable record, so a half-written line never sits before later ones.
      await truncate(this.path, this.size).catch(() => {})
      throw error
    }
  }

  /** Moves this journal to `to` and starts an empty one at the same path. */
  async rotate(to: string): Promise<void> {
    await this.handle.close()
    await rename(this.path, to)
    this.handle = await open(this.path, 'a')
    this.size = 0
    await syncDir(dirOf(this.path))
  }

  async close(): Promise<void> {
    await this.handle.close()
  }
}
