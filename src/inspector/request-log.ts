import { maskCredentials } from '../domain/display.js'
import { type CutField, KEPT_BYTES, type RequestEntry } from './request-entry.js'
import { matchesFilter, type RequestFilter } from './request-filter.js'

/**
 * How much the log keeps, in memory only (never written to the data file): the last `capacity` requests, fewer
 * when they would take more than `maxBytes` (as JSON), the oldest let go first.
 */
export interface RequestLogLimits {
  capacity: number
  maxBytes: number
}

export const REQUEST_LOG_LIMITS: Readonly<RequestLogLimits> = { capacity: 1000, maxBytes: 4 * 1024 * 1024 }

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
  /** A fault the sandbox played on it, in words. */
  fault?: string
  /** The request carried the operator mark (Pay-Sandbox-Operator: 1). */
  operator?: boolean
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
  const entry: Omit<RequestEntry, 'seq'> = { at: request.at.toISOString(), method: request.method, path: '', status: request.status, ms: Math.round(request.ms * 10) / 10 }
  const truncated: Partial<Record<CutField, number>> = {}
  // Secrets are masked before a text is cut, so that a cut never leaves part of one unmasked.
  const keep = (field: CutField, text: string): string => {
    const cut = cutText(text, KEPT_BYTES[field])
    if (cut.bytes !== undefined) truncated[field] = cut.bytes
    return cut.text
  }
  entry.path = keep('path', maskSecrets(rawPath.replace(BOT_PATH, '/telegram/$1bot$2:***')))
  const query = mark === -1 ? '' : request.url.slice(mark + 1)
  if (query !== '' && !botApi) entry.query = keep('query', maskSecrets(query))
  const o = request.outcome
  if (o?.result !== undefined) entry.result = o.result
  if (o?.error !== undefined) entry.error = o.error
  if (o?.trackId !== undefined) entry.trackId = keep('trackId', o.trackId)
  if (request.body !== undefined && keepsBody(rawPath)) {
    // A little more than is kept is masked, so that a token across the cut is masked whole.
    const start = utf8Prefix(request.body, KEPT_BYTES.body + 256)
    const cut = cutText(maskSecrets(start.toString('utf8')), KEPT_BYTES.body)
    entry.body = cut.text
    entry.bodyBytes = request.body.length
    if (start.length < request.body.length || cut.bytes !== undefined) entry.bodyTruncated = true
  }
  if (request.fault !== undefined) entry.fault = request.fault
  if (Object.keys(truncated).length > 0) entry.truncated = truncated
  if (request.operator) entry.operator = true
  return entry
}

/** The text itself when it fits in `max` bytes of UTF-8; else its first bytes, on a character boundary, and its whole size. */
export function cutText(text: string, max: number): { text: string; bytes?: number } {
  // No UTF-16 code unit takes more than 3 bytes: a short text fits without being measured.
  if (text.length <= max / 3) return { text }
  const bytes = Buffer.byteLength(text)
  if (bytes <= max) return { text }
  // Each code unit takes at least one byte: only the first `max` can be kept.
  let head = text.slice(0, max)
  // Not half a surrogate pair.
  if (/[\ud800-\udbff]$/.test(head)) head = head.slice(0, -1)
  return { text: utf8Prefix(Buffer.from(head), max).toString('utf8'), bytes }
}

/** The first bytes of `bytes`, at most `max`, not ending inside a UTF-8 sequence. */
function utf8Prefix(bytes: Buffer, max: number): Buffer {
  if (bytes.length <= max) return bytes
  let end = max
  // Step back over continuation bytes to the start of the sequence the cut falls in.
  while (end > 0 && (bytes[end]! & 0xc0) === 0x80) end--
  return bytes.subarray(0, end)
}

/** The sandbox console's line for a request; a text kept cut ends with `…`. */
export function consoleLine(entry: Omit<RequestEntry, 'seq'>): string {
  const cut = (field: CutField) => (entry.truncated?.[field] !== undefined ? '…' : '')
  const parts = [entry.at.slice(11, 23), entry.method, entry.path + cut('path'), entry.status === 0 ? '---' : String(entry.status)]
  if (entry.result !== undefined) parts.push(`result=${entry.result}`)
  if (entry.error !== undefined) parts.push(`error=${entry.error}`)
  if (entry.trackId !== undefined) parts.push(`trackId=${entry.trackId}${cut('trackId')}`)
  parts.push(`${entry.ms.toFixed(1)}ms`)
  if (entry.fault !== undefined) parts.push(`fault: ${entry.fault}`)
  return parts.join(' ')
}

/**
 * The newest requests the sandbox answered, in a ring: memory stays bounded however many come and however big
 * they are (each entry is bounded by KEPT_BYTES, and all of them by `maxBytes`). Listeners hear of each entry as
 * it is added (the event streams).
 */
export class RequestLog {
  readonly capacity: number
  readonly maxBytes: number
  private readonly ring: Array<{ entry: RequestEntry; bytes: number } | undefined>
  private nextSeq = 1
  private oldest = 1
  private bytesKept = 0
  private readonly listeners = new Set<(entry: RequestEntry) => void>()

  constructor(limits: Partial<RequestLogLimits> = {}) {
    const { capacity, maxBytes } = { ...REQUEST_LOG_LIMITS, ...limits }
    if (!Number.isSafeInteger(capacity) || capacity < 1) throw new RangeError(`request log capacity must be a whole number above 0 (got ${capacity})`)
    if (!Number.isSafeInteger(maxBytes) || maxBytes < 1) throw new RangeError(`request log maxBytes must be a whole number above 0 (got ${maxBytes})`)
    this.capacity = capacity
    this.maxBytes = maxBytes
    this.ring = new Array<{ entry: RequestEntry; bytes: number } | undefined>(capacity)
  }

  add(described: Omit<RequestEntry, 'seq'>): RequestEntry {
    const entry: RequestEntry = { seq: this.nextSeq++, ...described }
    const bytes = Buffer.byteLength(JSON.stringify(entry))
    // The oldest go first, until the new one fits in count and in bytes (it is kept even if alone it does not).
    while (this.oldest < entry.seq && (entry.seq - this.oldest >= this.capacity || this.bytesKept + bytes > this.maxBytes)) {
      const slot = (this.oldest - 1) % this.capacity
      this.bytesKept -= this.ring[slot]!.bytes
      this.ring[slot] = undefined
      this.oldest++
    }
    this.ring[(entry.seq - 1) % this.capacity] = { entry, bytes }
    this.bytesKept += bytes
    for (const listener of this.listeners) listener(entry)
    return entry
  }

  /** The seq of the newest entry; 0 before the first. */
  get latestSeq(): number {
    return this.nextSeq - 1
  }

  /** The seq of the oldest entry kept (latestSeq + 1 while empty). */
  get oldestSeq(): number {
    return this.oldest
  }

  /** What the entries kept take, as JSON. */
  get bytes(): number {
    return this.bytesKept
  }

  /** The entry with this seq, while it is kept. */
  get(seq: number): RequestEntry | undefined {
    return seq >= this.oldest && seq < this.nextSeq ? this.ring[(seq - 1) % this.capacity]!.entry : undefined
  }

  /** Entries kept that match, oldest first; `after` keeps those with a higher seq, `limit` the newest N. */
  list(filter: RequestFilter = {}, options: { after?: number; limit?: number } = {}): RequestEntry[] {
    const from = Math.max(this.oldest, (options.after ?? 0) + 1)
    const found: RequestEntry[] = []
    for (let seq = from; seq < this.nextSeq; seq++) {
      const entry = this.ring[(seq - 1) % this.capacity]!.entry
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
