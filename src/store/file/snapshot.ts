import { randomBytes } from 'node:crypto'
import type { Adapter } from 'lowdb'
import type { FaultRule } from '../../domain/api-fault.js'
import type { FaultHit } from '../../domain/api-fault-hit.js'
import type { ClockRecord, Delivery, Merchant, Payment, VerifyJournal } from '../../domain/types.js'
import { TELEGRAM_LISTS, type TelegramImage } from '../../domain/telegram-records.js'
import { storedRecordProblem, type StoredList } from '../../domain/record-schema.js'
import { DataFileError, fsProblem } from '../errors.js'
import { type FileHandle, isMissing, type StoreFs } from './fs.js'
import { dirOf, syncDir, writeAll } from './fsutil.js'
import { LineReader } from './lines.js'

export const SNAPSHOT_FORMAT = 'pay-sandbox/1'

export interface Snapshot {
  format: typeof SNAPSHOT_FORMAT
  /** Sequence number of the last journal record the snapshot contains. */
  seq: number
  /** Identity of this data file, kept across rewrites; its journals carry it. Absent in files of 0.1. */
  store?: string
  merchants: Merchant[]
  payments: Payment[]
  deliveries: Delivery[]
  /** The sandbox clock, when it was ever moved. */
  clock?: ClockRecord
  /** Verify journals of payments. */
  verifies?: VerifyJournal[]
  /** The API fault rules, and the latest faults played. */
  faults?: FaultRule[]
  faultHits?: FaultHit[]
}

/** A snapshot as written and read: the Bot API emulator's lists are absent from files written before it. */
export type SnapshotData = Snapshot & Partial<TelegramImage>

export function emptySnapshot(): Snapshot {
  return { format: SNAPSHOT_FORMAT, seq: 0, store: newStoreId(), merchants: [], payments: [], deliveries: [] }
}

export function newStoreId(): string {
  return randomBytes(9).toString('base64url')
}

const RECORDS_PER_CHUNK = 250
/**
 * A snapshot being written is synced every this many bytes, so its final fsync has little left to flush: one flush of
 * a whole large file (45 MB at 100k payments) holds up the journal's synced appends queued behind it on the disk.
 */
const SYNC_EVERY_BYTES = 4 * 1024 * 1024
/** Hand-edited data files in another layout are parsed whole, up to this size. */
const FREE_FORM_MAX_BYTES = 256 * 1024 * 1024
const LISTS = ['merchants', 'payments', 'deliveries'] as const
/** Lists absent from files written before they existed. */
const LATER_LISTS = [...TELEGRAM_LISTS, 'verifies', 'faults', 'faultHits'] as const
// Each list is one the record schema knows.
const ALL_LISTS = [...LISTS, ...LATER_LISTS] as const satisfies readonly StoredList[]
type ListName = (typeof ALL_LISTS)[number]
const LIST_OPENING = new RegExp(`^"(${ALL_LISTS.join('|')})": \\[(\\],?)?$`)

/** Temporary files of snapshot writes, named `<data file>.tmp-<pid>`; a crash can leave one behind. */
export function isSnapshotTemp(name: string, dataFileName: string): boolean {
  return name.startsWith(`${dataFileName}.tmp-`)
}

/**
 * lowdb adapter for the data file. JSON with one record per line (readable, diffable), written to a
 * temporary file, fsynced and renamed over the old one, so a crash leaves either the old or the new file.
 * Records are serialized in chunks that yield to the event loop, so a large snapshot never stalls requests, and
 * synced every few megabytes, so its final fsync never holds up the journal's appends for long; they are read back
 * line by line, so a data file of any size that was written can be read.
 */
export class SnapshotFile implements Adapter<SnapshotData> {
  readonly path: string
  private readonly fs: StoreFs
  constructor(fs: StoreFs, path: string) {
    this.fs = fs
    this.path = path
  }

  async read(): Promise<SnapshotData | null> {
    let handle: FileHandle
    try {
      handle = await this.fs.open(this.path, 'r')
    } catch (error) {
      if (isMissing(error)) return null
      throw new DataFileError(`cannot read data file ${this.path}: ${fsProblem(error)}`)
    }
    let data: unknown
    let checked = true
    try {
      data = await readLines(handle, this.path)
      if (data === undefined) {
        data = await readWhole(handle, this.path)
        checked = false
      }
    } catch (error) {
      if (error instanceof DataFileError) throw error
      throw new DataFileError(`cannot read data file ${this.path}: ${(error as Error).message}`)
    } finally {
      await handle.close().catch(() => {})
    }
    return parseSnapshot(data, this.path, checked)
  }

  async write(data: SnapshotData): Promise<void> {
    const tmp = `${this.path}.tmp-${process.pid}`
    const handle = await this.fs.open(tmp, 'w')
    const out: SnapshotOut = { handle, unsynced: 0 }
    try {
      const head = {
        format: data.format,
        seq: data.seq,
        ...(data.store !== undefined ? { store: data.store } : {}),
        ...(data.clock !== undefined ? { clock: data.clock } : {}),
      }
      const fields = Object.entries(head).map(([k, v]) => `${JSON.stringify(k)}: ${JSON.stringify(v)},\n`)
      await put(out, `{\n${fields.join('')}`)
      await writeRecords(out, 'merchants', data.merchants, ',')
      await writeRecords(out, 'payments', data.payments, ',')
      await writeRecords(out, 'deliveries', data.deliveries, ',')
      for (const [i, list] of LATER_LISTS.entries()) {
        await writeRecords(out, list, data[list] ?? [], i === LATER_LISTS.length - 1 ? '' : ',')
      }
      await put(out, '}\n')
      await handle.sync()
    } catch (error) {
      await handle.close().catch(() => {})
      await this.fs.unlink(tmp).catch(() => {})
      throw error
    }
    await handle.close()
    try {
      await this.fs.rename(tmp, this.path)
    } catch (error) {
      await this.fs.unlink(tmp).catch(() => {})
      throw error
    }
    await syncDir(this.fs, dirOf(this.path))
  }
}

/** A snapshot's temporary file, and how much was written to it since its last sync. */
interface SnapshotOut {
  handle: FileHandle
  unsynced: number
}

async function put(out: SnapshotOut, text: string): Promise<void> {
  const buffer = Buffer.from(text)
  await writeAll(out.handle, buffer)
  out.unsynced += buffer.length
  if (out.unsynced >= SYNC_EVERY_BYTES) {
    out.unsynced = 0
    await out.handle.datasync()
  }
}

async function writeRecords(out: SnapshotOut, name: string, records: readonly object[], after: string): Promise<void> {
  await put(out, `"${name}": [`)
  for (let i = 0; i < records.length; i += RECORDS_PER_CHUNK) {
    const end = Math.min(i + RECORDS_PER_CHUNK, records.length)
    let text = i === 0 ? '\n' : ',\n'
    for (let j = i; j < end; j++) text += (j === i ? '' : ',\n') + JSON.stringify(records[j])
    await put(out, text)
  }
  await put(out, `${records.length > 0 ? '\n' : ''}]${after}\n`)
}

/**
 * Reads the layout `write` produces, one line at a time, checking each record as it comes (see record-schema.ts).
 * Returns undefined when the file has another layout (e.g. edited by hand), so it can be read as free-form JSON
 * instead.
 */
async function readLines(handle: FileHandle, path: string): Promise<Record<string, unknown> | undefined> {
  const out: Record<string, unknown> = {}
  let list: ListName | undefined
  let expect: 'open' | 'fields' | 'records' | 'after-close' | 'end' = 'open'
  const reader = new LineReader(handle)
  const strings = new Map<string, string>()
  for await (const batch of reader.batches()) {
    for (const { number, text } of batch) {
      const line = text.trimEnd()
      switch (expect) {
        case 'open':
          if (line !== '{') return undefined
          expect = 'fields'
          break
        case 'fields': {
          const opening = LIST_OPENING.exec(line)
          if (opening) {
            list = opening[1] as ListName
            out[list] = []
            expect = opening[2] ? (opening[2].endsWith(',') ? 'fields' : 'after-close') : 'records'
            break
          }
          if (line === '}') {
            expect = 'end'
            break
          }
          let field: unknown
          try {
            field = JSON.parse(`{${line.replace(/,$/, '')}}`)
          } catch {
            return undefined
          }
          if (typeof field !== 'object' || field === null || Array.isArray(field)) return undefined
          if ('clock' in field) refuseUnusable(path, storedRecordProblem('clock', field.clock), number)
          Object.assign(out, field)
          break
        }
        case 'records': {
          if (line === ']' || line === '],') {
            expect = line === '],' ? 'fields' : 'after-close'
            break
          }
          let record: unknown
          try {
            record = JSON.parse(line.endsWith(',') ? line.slice(0, -1) : line)
          } catch {
            return undefined
          }
          const records = out[list!] as unknown[]
          refuseUnusable(path, storedRecordProblem(list!, record, records.length), number)
          if (list === 'payments') sharePaymentStrings(record, strings)
          records.push(record)
          break
        }
        case 'after-close':
          if (line !== '}') return undefined
          expect = 'end'
          break
        case 'end':
          if (line !== '') return undefined
      }
    }
  }
  if (expect !== 'end' || reader.tailBytes() > 0) return undefined
  return out
}

const SHARED_FIELDS = ['merchant', 'callbackUrl', 'returnUrl', 'status', 'asset', 'createdAt', 'updatedAt'] as const
const SHARED_CHANGE_FIELDS = ['status', 'at', 'source'] as const

/**
 * Makes equal strings of payments one string in memory: JSON.parse gives each record its own copy of the merchant,
 * URLs, statuses and timestamps, which repeat across and within payments (a third of a large state's heap).
 */
function sharePaymentStrings(record: unknown, strings: Map<string, string>): void {
  if (typeof record !== 'object' || record === null) return
  const p = record as Record<string, unknown>
  shareStrings(p, SHARED_FIELDS, strings)
  if (Array.isArray(p.history)) {
    for (const change of p.history) if (typeof change === 'object' && change !== null) shareStrings(change as Record<string, unknown>, SHARED_CHANGE_FIELDS, strings)
  }
  // Timestamps of other payments rarely repeat: the table stays small.
  if (strings.size > 4096) strings.clear()
}

/** No closure per record: the bundle names each function it makes, at a cost per call. */
function shareStrings(o: Record<string, unknown>, fields: readonly string[], strings: Map<string, string>): void {
  for (const field of fields) {
    const value = o[field]
    if (typeof value !== 'string') continue
    const seen = strings.get(value)
    if (seen === undefined) strings.set(value, value)
    else o[field] = seen
  }
}

async function readWhole(handle: FileHandle, path: string): Promise<unknown> {
  const { size } = await handle.stat()
  if (size > FREE_FORM_MAX_BYTES) {
    throw new DataFileError(
      `data file ${path} is not laid out one record per line, and at ${size} bytes it is too large to read whole. ` +
        'It was left untouched: restore a backup, or start on another file with --data <file>.',
    )
  }
  const buffer = Buffer.allocUnsafe(size)
  let offset = 0
  while (offset < size) {
    const { bytesRead } = await handle.read(buffer, offset, size - offset, offset)
    if (bytesRead === 0) break
    offset += bytesRead
  }
  try {
    return JSON.parse(buffer.subarray(0, offset).toString('utf8'))
  } catch (error) {
    throw new DataFileError(
      `data file ${path} is not valid JSON (${(error as Error).message}). ` +
        'It was left untouched: repair it or restore a backup, or start on another file with --data <file>.',
    )
  }
}

/** A record the sandbox cannot use stops the start, naming the file, the line (when known) and what is wrong. */
function refuseUnusable(path: string, problem: string | undefined, line?: number): void {
  if (problem === undefined) return
  throw new DataFileError(
    `data file ${path} has a record the sandbox cannot use${line !== undefined ? ` at line ${line}` : ''}: ${problem}. ` +
      'It was left untouched: repair or remove that record, restore a backup, or start on another file with --data <file>.',
  )
}

/** `checked`: its records were checked as they were read (the layout `write` produces). */
function parseSnapshot(data: unknown, path: string, checked: boolean): SnapshotData {
  const problem = (what: string) =>
    new DataFileError(
      `data file ${path} is not a pay sandbox data file (${what}). ` +
        'It was left untouched: start on another file with --data <file>, or move this one away.',
    )
  if (typeof data !== 'object' || data === null || Array.isArray(data)) throw problem('not a JSON object')
  const d = data as Record<string, unknown>
  if (d.format !== SNAPSHOT_FORMAT) throw problem(`format is ${JSON.stringify(d.format)}, expected "${SNAPSHOT_FORMAT}"`)
  if (typeof d.seq !== 'number' || !Number.isSafeInteger(d.seq) || d.seq < 0) throw problem('seq is not a whole number')
  if (d.store !== undefined && (typeof d.store !== 'string' || d.store.length === 0)) throw problem('store is not a string')
  for (const key of LISTS) {
    if (!Array.isArray(d[key])) throw problem(`${key} is not a list`)
  }
  for (const key of LATER_LISTS) {
    if (d[key] !== undefined && !Array.isArray(d[key])) throw problem(`${key} is not a list`)
  }
  if (!checked) {
    if (d.clock !== undefined) refuseUnusable(path, storedRecordProblem('clock', d.clock))
    for (const key of ALL_LISTS) {
      const records = (d[key] ?? []) as unknown[]
      records.forEach((record, i) => refuseUnusable(path, storedRecordProblem(key, record, i)))
    }
  }
  return d as unknown as SnapshotData
}
