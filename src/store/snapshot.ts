import { open, readFile, rename, unlink } from 'node:fs/promises'
import type { Adapter } from 'lowdb'
import type { Delivery, Merchant, Payment } from '../domain/types.js'
import { DataFileError } from './errors.js'
import { dirOf, syncDir, writeAll } from './fsutil.js'

export const SNAPSHOT_FORMAT = 'pay-sandbox/1'

export interface Snapshot {
  format: typeof SNAPSHOT_FORMAT
  /** Sequence number of the last journal record the snapshot contains. */
  seq: number
  merchants: Merchant[]
  payments: Payment[]
  deliveries: Delivery[]
}

export function emptySnapshot(): Snapshot {
  return { format: SNAPSHOT_FORMAT, seq: 0, merchants: [], payments: [], deliveries: [] }
}

const RECORDS_PER_CHUNK = 250

/**
 * lowdb adapter for the data file. JSON with one record per line (readable, diffable), written to a
 * temporary file, fsynced and renamed over the old one, so a crash leaves either the old or the new file.
 * Records are serialized in chunks that yield to the event loop, so a large snapshot never stalls requests.
 */
export class SnapshotFile implements Adapter<Snapshot> {
  readonly path: string
  constructor(path: string) {
    this.path = path
  }

  async read(): Promise<Snapshot | null> {
    let text: string
    try {
      text = await readFile(this.path, 'utf8')
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null
      throw new DataFileError(`cannot read data file ${this.path}: ${(error as Error).message}`)
    }
    let data: unknown
    try {
      data = JSON.parse(text)
    } catch (error) {
      throw new DataFileError(
        `data file ${this.path} is not valid JSON (${(error as Error).message}). ` +
          'It was left untouched: repair it or restore a backup, or start on another file with --data <file>.',
      )
    }
    return parseSnapshot(data, this.path)
  }

  async write(data: Snapshot): Promise<void> {
    const tmp = `${this.path}.tmp-${process.pid}`
    const handle = await open(tmp, 'w')
    try {
      await writeAll(handle, `{\n"format": ${JSON.stringify(data.format)},\n"seq": ${data.seq},\n`)
      await writeRecords(handle, 'merchants', data.merchants, ',')
      await writeRecords(handle, 'payments', data.payments, ',')
      await writeRecords(handle, 'deliveries', data.deliveries, '')
      await writeAll(handle, '}\n')
      await handle.sync()
    } catch (error) {
      await handle.close()
      await unlink(tmp).catch(() => {})
      throw error
    }
    await handle.close()
    await rename(tmp, this.path)
    await syncDir(dirOf(this.path))
  }
}

type Handle = Awaited<ReturnType<typeof open>>

async function writeRecords(handle: Handle, name: string, records: readonly object[], after: string): Promise<void> {
  await writeAll(handle, `"${name}": [`)
  for (let i = 0; i < records.length; i += RECORDS_PER_CHUNK) {
    const chunk = records.slice(i, i + RECORDS_PER_CHUNK)
    const text = chunk.map((r) => JSON.stringify(r)).join(',\n')
    await writeAll(handle, (i === 0 ? '\n' : ',\n') + text)
  }
  await writeAll(handle, `${records.length > 0 ? '\n' : ''}]${after}\n`)
}

function parseSnapshot(data: unknown, path: string): Snapshot {
  const problem = (what: string) =>
    new DataFileError(
      `data file ${path} is not a pay sandbox data file (${what}). ` +
        'It was left untouched: start on another file with --data <file>, or move this one away.',
    )
  if (typeof data !== 'object' || data === null || Array.isArray(data)) throw problem('not a JSON object')
  const d = data as Record<string, unknown>
  if (d.format !== SNAPSHOT_FORMAT) throw problem(`format is ${JSON.stringify(d.format)}, expected "${SNAPSHOT_FORMAT}"`)
  if (typeof d.seq !== 'number' || !Number.isSafeInteger(d.seq) || d.seq < 0) throw problem('seq is not a whole number')
  for (const key of ['merchants', 'payments', 'deliveries'] as const) {
    if (!Array.isArray(d[key])) throw problem(`${key} is not a list`)
  }
  return d as unknown as Snapshot
}
