import { maskCredentials } from '../domain/display.js'
import { matchesFilter, type RequestFilter } from './request-filter.js'

/** Requests the log keeps, newest first out: in memory only, never written to the data file. */
export const REQUEST_LOG_CAPACITY = 1000
/** Bytes of a request's body kept (spec and control API only). */
export const BODY_EXCERPT_BYTES = 2048

/** One answered request as the request log keeps it. */
export interface RequestEntry {
  /** 1 for the first request the sandbox answered since it started; never reused. */
  seq: number
  /** When the answer was finished. */
  at: string
  method: string
  /** As sent, without the query; URL credentials and bot tokens masked. */
  path: string
  /** The query as sent (without `?`), masked the same way; never for the Bot API. */
  query?: string
  status: number
  /** The spec's `result` (spec API), when the answer carried one. */
  result?: number
  /** The request error's code (`invalid_json`, `not_found` …). */
  error?: string
  trackId?: string
  /** Time to answer, to 0.1 ms. */
  ms: number
  /** The body's first BODY_EXCERPT_BYTES as UTF-8 (spec and control API only), masked the same way. */
  body?: string
  /** The body's whole size. */
  bodyBytes?: number
  /** `body` is only the start of the body. */
  bodyTruncated?: boolean
}

/** What the server knows of a request once it is answered. */
export interface AnsweredRequest {
  method: string
  /** The request target: path and query, as sent. */
  url: string
  status: number
  ms: number
  at: Date
  outcome?: { result?: number; trackId?: string; error?: string }
  /** The JSON body's bytes as received, when the JSON parser read one. */
  body?: Buffer
}

/**
 * Requests not worth a line: polled or streamed ones, the icon and assets, and the inspector's own pages and
 * streams (each change redraws them: logging them would feed the log it shows).
 */
const QUIET =
  /^\/(?:$|_sandbox\/health$|_sandbox\/chat\/events$|_sandbox\/events$|_sandbox\/requests(?:\/events)?$|pay\/[^/]+\/(?:status|events)$|assets\/|inspect(?:\/|$)|favicon\.ico$)/

/** A Bot API token is its bot's password: the bot is named by its id only. */
const BOT_PATH = /^\/telegram\/(file\/)?bot(\d*):[^/]*/
const BOT_TOKEN = /\b(\d{1,20}):[A-Za-z0-9_-]{20,}/g

/** Text of a request with its secrets hidden: URL credentials (`user:***@`) and bot tokens (`<id>:***`). */
export function maskSecrets(text: string): string {
  return maskCredentials(text).replace(BOT_TOKEN, '$1:***')
}

/** Bodies are kept for the spec API and the control API; an import is a whole state, not a request to read. */
const keepsBody = (path: string): boolean => path.startsWith('/api/') || (path.startsWith('/_sandbox/') && path !== '/_sandbox/import')

/** The log's record of an answered request, or undefined for a quiet one. */
export function describeRequest(request: AnsweredRequest): Omit<RequestEntry, 'seq'> | undefined {
  const mark = request.url.indexOf('?')
  const rawPath = mark === -1 ? request.url : request.url.slice(0, mark)
  if (QUIET.test(rawPath)) return undefined
  const botApi = rawPath === '/telegram' || rawPath.startsWith('/telegram/')
  const path = maskSecrets(rawPath.replace(BOT_PATH, '/telegram/$1bot$2:***'))
  const entry: Omit<RequestEntry, 'seq'> = { at: request.at.toISOString(), method: request.method, path, status: request.status, ms: Math.round(request.ms * 10) / 10 }
  const query = mark === -1 ? '' : request.url.slice(mark + 1)
  if (query !== '' && !botApi) entry.query = maskSecrets(query)
  const o = request.outcome
  if (o?.result !== undefined) entry.result = o.result
  if (o?.error !== undefined) entry.error = o.error
  if (o?.trackId !== undefined) entry.trackId = o.trackId
  if (request.body !== undefined && keepsBody(rawPath)) {
    const cut = utf8Prefix(request.body, BODY_EXCERPT_BYTES)
    entry.body = maskSecrets(cut.toString('utf8'))
    entry.bodyBytes = request.body.length
    if (cut.length < request.body.length) entry.bodyTruncated = true
  }
  return entry
}

/** The first bytes of `bytes`, at most `max`, not ending inside a UTF-8 sequence. */
function utf8Prefix(bytes: Buffer, max: number): Buffer {
  if (bytes.length <= max) return bytes
  let end = max
  // Step back over continuation bytes to the start of the sequence the cut falls in.
  while (end > 0 && (bytes[end]! & 0xc0) === 0x80) end--
  return bytes.subarray(0, end)
}

/** The sandbox console's line for a request. */
export function consoleLine(entry: Omit<RequestEntry, 'seq'>): string {
  const parts = [entry.at.slice(11, 23), entry.method, entry.path, String(entry.status)]
  if (entry.result !== undefined) parts.push(`result=${entry.result}`)
  if (entry.error !== undefined) parts.push(`error=${entry.error}`)
  if (entry.trackId !== undefined) parts.push(`trackId=${entry.trackId}`)
  parts.push(`${entry.ms.toFixed(1)}ms`)
  return parts.join(' ')
}

/**
 * The newest requests the sandbox answered, in a ring of fixed size: memory stays bounded however many come.
 * Listeners hear of each entry as it is added (the event streams).
 */
export class RequestLog {
  readonly capacity: number
  private readonly ring: Array<RequestEntry | undefined>
  private nextSeq = 1
  private readonly listeners = new Set<(entry: RequestEntry) => void>()

  constructor(capacity: number = REQUEST_LOG_CAPACITY) {
    if (!Number.isSafeInteger(capacity) || capacity < 1) throw new RangeError(`request log capacity must be a whole number above 0 (got ${capacity})`)
    this.capacity = capacity
    this.ring = new Array<RequestEntry | undefined>(capacity)
  }

  add(described: Omit<RequestEntry, 'seq'>): RequestEntry {
    const entry: RequestEntry = { seq: this.nextSeq++, ...described }
    this.ring[(entry.seq - 1) % this.capacity] = entry
    for (const listener of this.listeners) listener(entry)
    return entry
  }

  /** The seq of the newest entry; 0 before the first. */
  get latestSeq(): number {
    return this.nextSeq - 1
  }

  /** The seq of the oldest entry kept (latestSeq + 1 while empty). */
  get oldestSeq(): number {
    return Math.max(1, this.nextSeq - this.capacity)
  }

  /** Entries kept that match, oldest first; `after` keeps those with a higher seq, `limit` the newest N. */
  list(filter: RequestFilter = {}, options: { after?: number; limit?: number } = {}): RequestEntry[] {
    const from = Math.max(this.oldestSeq, (options.after ?? 0) + 1)
    const found: RequestEntry[] = []
    for (let seq = from; seq < this.nextSeq; seq++) {
      const entry = this.ring[(seq - 1) % this.capacity]!
      if (matchesFilter(entry, filter)) found.push(entry)
    }
    return options.limit !== undefined ? found.slice(Math.max(0, found.length - options.limit)) : found
  }

  /** Calls `listener` with every entry added from now on; the returned function stops it. */
  subscribe(listener: (entry: RequestEntry) => void): () => void {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }
}
