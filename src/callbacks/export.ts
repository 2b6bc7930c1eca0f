import { readFile } from 'node:fs/promises'
import { newDeliveryId } from '../domain/ids.js'
import type { Delivery } from '../domain/types.js'
import { attemptHeaders, bodyText, CALLBACK_EVENT, replayDelivery, withAttempt } from './delivery.js'
import { sendCallback } from './send.js'

/** What a replay needs from an exported delivery. */
export type ExportedDelivery = Pick<Delivery, 'id' | 'trackId' | 'url' | 'event' | 'body'>

/** The file cannot be used: unreadable, not JSON, or not deliveries. The message names the file. */
export class ExportFileError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'ExportFileError'
  }
}

/**
 * Reads deliveries from a file written by `pay callback list --json` (`{deliveries: [...]}`), `pay callback
 * show --json` (`{delivery}`), a sandbox export, or a bare array or delivery.
 */
export async function readDeliveryExport(path: string): Promise<ExportedDelivery[]> {
  let text: string
  try {
    text = await readFile(path, 'utf8')
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    throw new ExportFileError(
      code === 'ENOENT' ? `${path}: no such file` : code === 'EISDIR' ? `${path}: is a folder, not a file` : `${path}: cannot read (${(error as Error).message})`,
    )
  }
  let data: unknown
  try {
    data = JSON.parse(text)
  } catch (error) {
    throw new ExportFileError(`${path}: not valid JSON (${(error as Error).message.replace(/\s+/g, ' ')}); expected the output of pay callback list --json`)
  }
  const problems: string[] = []
  const deliveries = parseDeliveries(data, problems)
  if (problems.length > 0) {
    const shown = problems.slice(0, 5).join('; ')
    const more = problems.length > 5 ? `; and ${problems.length - 5} more` : ''
    throw new ExportFileError(`${path}: ${shown}${more}`)
  }
  if (deliveries.length === 0) throw new ExportFileError(`${path}: holds no deliveries`)
  return deliveries
}

/** Checks the shape; pushes one readable problem per mistake. Pure. */
export function parseDeliveries(data: unknown, problems: string[]): ExportedDelivery[] {
  let list: unknown[]
  let where: string
  if (Array.isArray(data)) {
    list = data
    where = ''
  } else if (isObject(data) && Array.isArray(data.deliveries)) {
    list = data.deliveries
    where = 'deliveries'
  } else if (isObject(data) && isObject(data.delivery)) {
    list = [data.delivery]
    where = 'delivery'
  } else if (isObject(data) && 'body' in data && 'trackId' in data) {
    list = [data]
    where = ''
  } else {
    problems.push('expected {"deliveries": [...]} as written by pay callback list --json')
    return []
  }
  const out: ExportedDelivery[] = []
  list.forEach((item, i) => {
    const at = where === 'delivery' ? 'delivery' : `${where}[${i}]`
    if (!isObject(item)) {
      problems.push(`${at} must be an object`)
      return
    }
    const before = problems.length
    const text = (field: string) => {
      const v = item[field]
      if (typeof v !== 'string' || v.length === 0) problems.push(`${at}.${field} must be a non-empty string`)
      return v as string
    }
    const id = text('id')
    const trackId = text('trackId')
    if (!isObject(item.body)) problems.push(`${at}.body must be a JSON object`)
    if (item.url !== undefined && typeof item.url !== 'string') problems.push(`${at}.url must be a string`)
    if (item.event !== undefined && typeof item.event !== 'string') problems.push(`${at}.event must be a string`)
    if (problems.length > before) return
    out.push({
      id,
      trackId,
      url: typeof item.url === 'string' ? item.url : '',
      event: typeof item.event === 'string' ? item.event : CALLBACK_EVENT,
      body: item.body as Record<string, unknown>,
    })
  })
  return out
}

/**
 * Sends each delivery's body once to `to`, in order, with the sandbox's own sending code, and returns the
 * replays as delivery records (the same shape `pay callback list --json` writes).
 */
export async function replayExport(
  deliveries: ExportedDelivery[],
  options: { to: string; timeoutMs: number; onResult?: (replay: Delivery) => void },
): Promise<Delivery[]> {
  const out: Delivery[] = []
  const policy = { retries: 0, timeoutMs: options.timeoutMs, scheduleMs: [] }
  for (const original of deliveries) {
    const replay = replayDelivery(original, { id: newDeliveryId(), url: options.to, now: new Date().toISOString() })
    const at = new Date()
    const result = await sendCallback({
      url: replay.url,
      body: bodyText(replay),
      headers: attemptHeaders(replay, 1),
      timeoutMs: options.timeoutMs,
    })
    const done = withAttempt(replay, result, at, policy, new Date())
    out.push(done)
    options.onResult?.(done)
  }
  return out
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}
