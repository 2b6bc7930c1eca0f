import { journalRecordProblem, storedRecordProblem, type StoredList } from '../../domain/record-schema.js'
import type { Change } from '../changes.js'
import type { FullImage } from '../engine.js'
import { DataFileError } from '../errors.js'

/** What the log and the snapshots hold, as text: read back with the care the data file gets (the database is shared). */

/** Records per part of a snapshot: no one text grows past what a string holds. */
const PART_RECORDS = 2_000

const LISTS = ['merchants', 'payments', 'deliveries', 'verifies', 'tgBots', 'tgChats', 'tgMessages', 'tgUpdates', 'tgFiles'] as const satisfies readonly StoredList[]

/** A change of the log could not be read: the instance cannot go on in step with the others. */
export class LogUnreadable extends Error {}

/** A unit's changes from the log, each checked as the journal's records are: the log is shared, so read with care. */
export function readUnit(text: string, seq: number, location: string): Change[] {
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    throw unreadable(location, seq, 'not JSON')
  }
  if (!Array.isArray(parsed) || parsed.length === 0) throw unreadable(location, seq, 'not a list of changes')
  return parsed.map((change: unknown, i) => {
    if (typeof change !== 'object' || change === null) throw unreadable(location, seq + i, 'not an object')
    if ((change as Change).k === 'replace') return change as Change
    const problem = journalRecordProblem({ s: seq + i, ...change })
    if (problem !== undefined) throw unreadable(location, seq + i, problem)
    return change as Change
  })
}

function unreadable(location: string, seq: number, why: string): Error {
  return new LogUnreadable(`change ${seq} in ${location} cannot be read (${why}); it was written by something other than pay-sandbox`)
}

/** The image in parts of at most PART_RECORDS records: the clock in the first, then each list in slices. */
export function partsOf(image: FullImage): string[] {
  const parts: string[] = [JSON.stringify(image.clock ? { clock: image.clock } : {})]
  for (const list of LISTS) {
    const records = (image[list] ?? []) as unknown[]
    for (let i = 0; i < records.length; i += PART_RECORDS) parts.push(JSON.stringify({ [list]: records.slice(i, i + PART_RECORDS) }))
  }
  return parts
}

/** Adds a snapshot part's records to the image, each checked as the data file's are. */
export function mergePart(image: FullImage, body: string, location: string): void {
  let part: Record<string, unknown>
  try {
    part = JSON.parse(body) as Record<string, unknown>
  } catch {
    throw new DataFileError(`the snapshot in ${location} cannot be read (not JSON); it was written by something other than pay-sandbox`)
  }
  const refuse = (problem: string | undefined) => {
    if (problem !== undefined) throw new DataFileError(`the snapshot in ${location} cannot be read (${problem}); it was written by something other than pay-sandbox`)
  }
  if (part.clock !== undefined) {
    refuse(storedRecordProblem('clock', part.clock))
    image.clock = part.clock as FullImage['clock']
  }
  const target = image as unknown as Record<string, unknown[] | undefined>
  for (const list of LISTS) {
    const records = part[list]
    if (records === undefined) continue
    if (!Array.isArray(records)) return refuse(`${list} is not a list`)
    records.forEach((record, i) => refuse(storedRecordProblem(list, record, i)))
    const into = (target[list] ??= [])
    for (const record of records) into.push(record)
  }
}

