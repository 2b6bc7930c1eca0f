import { maskCredentials } from '../domain/display.js'
import type { ReceivedBody } from '../http/body.js'
import { type CutField, KEPT_BYTES, type RequestEntry } from './request-entry.js'
import { matchesFilter, type RequestFilter } from './request-filter.js'
import type { SharedEntries } from '../store/store.js'
import { SharedListReader } from '../store/shared-reader.js'

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
  /** The JSON body as received, when the JSON parser read one. */
  body?: ReceivedBody
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
  // Both need a colon (`scheme://`, `<id>:`): most texts have none.
  return text.includes(':') ? maskCredentials(text).replace(BOT_TOKEN, '$1:***') : text
}

/** Bodies are kept for the spec API and the control API; an import is a whole state, not a request to read. */
const keepsBody = (path: string): boolean => path.startsWith('/api/') || (path.startsWith('/_sandbox/') && path !== '/_sandbox/import')

/** Bytes of a body masked before it is cut: a little more than is kept, so that a token across the cut is masked whole. */
const BODY_MASKED_BYTES = KEPT_BYTES.body + 256

const bodySize = (body: ReceivedBody): number => (Buffer.isBuffer(body) ? body.length : body.bytes)

/** The request's path, without its query. */
function pathOf(url: string): string {
  const mark = url.indexOf('?')
  return mark === -1 ? url : url.slice(0, mark)
}

/** Requests the log does not keep (see QUIET). */
export function isQuiet(url: string): boolean {
  return QUIET.test(pathOf(url))
}

/** The log's record of an answered request, or undefined for a quiet one. */
export function describeRequest(request: AnsweredRequest): Omit<RequestEntry, 'seq'> | undefined {
  return describe(request, true)
}

/**
 * What the console line shows of a request: its record without the query and the body (the costly part, which
 * only readers of the log need), or undefined for a quiet one.
 */
export function describeLine(request: AnsweredRequest): Omit<RequestEntry, 'seq'> | undefined {
  return describe(request, false)
}

function describe(request: AnsweredRequest, whole: boolean): Omit<RequestEntry, 'seq'> | undefined {
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
  entry.path = keep('path', maskSecrets(botApi ? rawPath.replace(BOT_PATH, '/telegram/$1bot$2:***') : rawPath))
  const query = mark === -1 ? '' : request.url.slice(mark + 1)
  if (whole && query !== '' && !botApi) entry.query = keep('query', maskSecrets(query))
  const o = request.outcome
  if (o?.result !== undefined) entry.result = o.result
  if (o?.error !== undefined) entry.error = o.error
  if (o?.trackId !== undefined) entry.trackId = keep('trackId', o.trackId)
  const body = request.body
  if (whole && body !== undefined && keepsBody(rawPath)) {
    const size = bodySize(body)
    // A body that is masked whole is its text; a longer one's bytes are cut first (UTF-8 text round-trips to its bytes).
    const start = Buffer.isBuffer(body) ? utf8Prefix(body, BODY_MASKED_BYTES).toString('utf8') : size <= BODY_MASKED_BYTES ? body.text : utf8Prefix(Buffer.from(body.text), BODY_MASKED_BYTES).toString('utf8')
    const cut = cutText(maskSecrets(start), KEPT_BYTES.body)
    entry.body = cut.text
    entry.bodyBytes = size
    if (size > BODY_MASKED_BYTES || cut.bytes !== undefined) entry.bodyTruncated = true
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

/** A text's bytes as JSON at most: every UTF-16 code unit takes at most 6 (`\u001f`), and the quotes 2. */
const jsonBound = (units: number): number => 6 * units + 2

/** Everything of an entry but its texts, as JSON at most: the keys, the time, numbers of up to 24 characters, `true`s. */
const ENTRY_FRAME_BYTES = 512

/**
 * What an answered request's entry takes as JSON at most, without describing it: each text is bounded by what
 * is kept of it (masking at most doubles a text: `a:b@` → `a:***@`).
 */
function entryBound(request: AnsweredRequest): number {
  const kept = (units: number, max: number) => jsonBound(Math.min(2 * units, max))
  let bytes = ENTRY_FRAME_BYTES + jsonBound(request.method.length) + kept(request.url.length, KEPT_BYTES.path) + kept(request.url.length, KEPT_BYTES.query)
  const o = request.outcome
  if (o?.error !== undefined) bytes += jsonBound(o.error.length)
  if (o?.trackId !== undefined) bytes += kept(o.trackId.length, KEPT_BYTES.trackId)
  if (request.body !== undefined) bytes += kept(bodySize(request.body), KEPT_BYTES.body)
  if (request.fault !== undefined) bytes += jsonBound(request.fault.length)
  return bytes
}

/**
 * Whether a request holds a text longer than what the log keeps of it (its URL, trackId or body): such a request is
 * described at once, so that the log never holds more of a request than its entry.
 */
function holdsLongText(request: AnsweredRequest): boolean {
  return request.url.length > KEPT_BYTES.path || (request.outcome?.trackId?.length ?? 0) > KEPT_BYTES.trackId || (request.body === undefined ? 0 : bodySize(request.body)) > BODY_MASKED_BYTES
}

interface Slot {
  seq: number
  /** The request as answered, until it is described. */
  request?: AnsweredRequest
  entry?: RequestEntry
  /** Its entry's bytes as JSON: exact once `exact`, else an upper bound. */
  bytes: number
  exact: boolean
}

/**
 * The newest requests the sandbox answered, in a ring: memory stays bounded however many come and however big
 * they are (each entry is bounded by KEPT_BYTES, and all of them by `maxBytes`). A request is kept as it was
 * answered and described (masked, cut, formatted) only when someone reads it: answering costs no more than
 * keeping a reference. Listeners hear of each entry as it is added (the event streams).
 *
 * The bytes bound holds as if every entry were described: an entry not yet described counts for an upper bound
 * of its size, and once the bounds would pass `maxBytes`, every entry is described and counted exactly, so the
 * oldest go exactly when the described entries would not fit.
 */
export class RequestLog {
  readonly capacity: number
  readonly maxBytes: number
  private readonly ring: Array<Slot | undefined>
  private nextSeq = 1
  private oldest = 1
  private bytesKept = 0
  private readonly listeners = new Set<(entry: RequestEntry) => void>()
  private shared: SharingLog | undefined

  constructor(limits: Partial<RequestLogLimits> = {}) {
    const { capacity, maxBytes } = { ...REQUEST_LOG_LIMITS, ...limits }
    if (!Number.isSafeInteger(capacity) || capacity < 1) throw new RangeError(`request log capacity must be a whole number above 0 (got ${capacity})`)
    if (!Number.isSafeInteger(maxBytes) || maxBytes < 1) throw new RangeError(`request log maxBytes must be a whole number above 0 (got ${maxBytes})`)
    this.capacity = capacity
    this.maxBytes = maxBytes
    this.ring = new Array<Slot | undefined>(capacity)
  }

  /**
   * Keeps an answered request (the caller leaves quiet ones out: see isQuiet); returns its seq. Shared by several
   * instances (`share`), it is described and sent to the shared list, and joins this log when it comes back from
   * it, in the list's order; then nothing is returned.
   */
  add(request: AnsweredRequest): number | undefined {
    if (this.shared) {
      const described = describeRequest(request)
      if (described) this.shared.send(described)
      return undefined
    }
    const seq = this.nextSeq++
    const slot: Slot = { seq, request, bytes: entryBound(request), exact: false }
    if (holdsLongText(request)) this.settle(slot)
    this.keep(slot)
    return seq
  }

  /**
   * Shares the log with the other instances of a team sandbox: each one's requests are appended to `entries`, and
   * this log holds the newest of them all, in the list's order (its ids are the seqs). An entry that cannot be
   * sent (the database is down) is left out; `onError` is told. The returned function stops sharing.
   */
  share(entries: SharedEntries, onError: (error: unknown) => void = () => {}): () => void {
    const sharing = new SharingLog(this, entries, onError)
    this.shared = sharing
    return () => {
      sharing.stop()
      if (this.shared === sharing) this.shared = undefined
    }
  }

  /** Waits until what this instance added has been sent and read back (or failed). */
  async settled(): Promise<void> {
    await this.shared?.settled()
  }

  /** Shared: holds what every instance appended until now (what this one added included); free otherwise. */
  async refresh(): Promise<void> {
    if (!this.shared) return
    await this.shared.settled()
    await this.shared.read()
  }

  /** A described entry with its seq: the next one, or (shared) a later one, when what came between was let go already. */
  place(entry: RequestEntry): RequestEntry {
    if (entry.seq < this.nextSeq) return entry
    if (entry.seq > this.nextSeq) {
      // A gap: nothing kept joins up with what comes next.
      this.ring.fill(undefined)
      this.bytesKept = 0
      this.oldest = entry.seq
    }
    this.nextSeq = entry.seq + 1
    this.keep({ seq: entry.seq, entry, bytes: Buffer.byteLength(JSON.stringify(entry)), exact: true })
    return entry
  }

  /** Puts a new slot in the ring, letting the oldest go until it fits in count and in bytes; tells the listeners. */
  private keep(slot: Slot): void {
    const seq = slot.seq
    if (this.bytesKept + slot.bytes > this.maxBytes) {
      // Near the bound: every entry counts for its exact size, as if all had been described when kept.
      for (let s = this.oldest; s < seq; s++) this.settle(this.slot(s))
      this.settle(slot)
    }
    // The oldest go first, until the new one fits in count and in bytes (it is kept even if alone it does not).
    while (this.oldest < seq && (seq - this.oldest >= this.capacity || this.bytesKept + slot.bytes > this.maxBytes)) {
      const index = (this.oldest - 1) % this.capacity
      this.bytesKept -= this.ring[index]!.bytes
      this.ring[index] = undefined
      this.oldest++
    }
    this.ring[(seq - 1) % this.capacity] = slot
    this.bytesKept += slot.bytes
    if (this.listeners.size > 0) {
      const entry = this.entryOf(slot)
      for (const listener of this.listeners) listener(entry)
    }
  }

  /** The seq of the newest entry; 0 before the first. */
  get latestSeq(): number {
    return this.nextSeq - 1
  }

  /** The seq of the oldest entry kept (latestSeq + 1 while empty). */
  get oldestSeq(): number {
    return this.oldest
  }

  /** What the entries kept take as JSON, at most (exactly once the log has come near maxBytes). */
  get bytes(): number {
    return this.bytesKept
  }

  /** The entry with this seq, while it is kept. */
  get(seq: number): RequestEntry | undefined {
    return seq >= this.oldest && seq < this.nextSeq ? this.entryOf(this.slot(seq)) : undefined
  }

  /** Entries kept that match, oldest first; `after` keeps those with a higher seq, `limit` the newest N. */
  list(filter: RequestFilter = {}, options: { after?: number; limit?: number } = {}): RequestEntry[] {
    const from = Math.max(this.oldest, (options.after ?? 0) + 1)
    const found: RequestEntry[] = []
    for (let seq = from; seq < this.nextSeq; seq++) {
      const entry = this.entryOf(this.slot(seq))
      if (matchesFilter(entry, filter)) found.push(entry)
    }
    return options.limit !== undefined ? found.slice(Math.max(0, found.length - options.limit)) : found
  }

  /** Calls `listener` with every entry added from now on; the returned function stops it. */
  subscribe(listener: (entry: RequestEntry) => void): () => void {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }

  private slot(seq: number): Slot {
    return this.ring[(seq - 1) % this.capacity]!
  }

  /** The slot's entry, described now if it was not yet (then the request it was made from is let go). */
  private entryOf(slot: Slot): RequestEntry {
    if (slot.entry === undefined) {
      // Quiet requests are never added, so every request has an entry.
      slot.entry = { seq: slot.seq, ...describeRequest(slot.request!)! }
      slot.request = undefined
    }
    return slot.entry
  }

  /** Counts the slot's entry for its exact size (a slot already in the ring changes the total by the difference). */
  private settle(slot: Slot): void {
    if (slot.exact) return
    const bytes = Buffer.byteLength(JSON.stringify(this.entryOf(slot)))
    if (this.ring[(slot.seq - 1) % this.capacity] === slot) this.bytesKept += bytes - slot.bytes
    slot.bytes = bytes
    slot.exact = true
  }
}

/** Entries waiting to be sent past this many are dropped, the oldest first (the database is down or slow). */
const OUTGOING_MAX = 10_000

/** A request log shared through the store: sends this instance's entries, reads back everyone's in order. */
class SharingLog {
  private outgoing: string[] = []
  private sending: Promise<void> | undefined
  private stopped = false
  private readonly stopWake: () => void
  private readonly reader: SharedListReader

  constructor(
    log: RequestLog,
    private readonly entries: SharedEntries,
    private readonly onError: (error: unknown) => void,
  ) {
    this.reader = new SharedListReader(entries, log.capacity, (row) => log.place({ seq: row.id, ...(JSON.parse(row.text) as Omit<RequestEntry, 'seq'>) }), onError)
    // What the log holds already is not read again.
    this.reader.resumeAfter(log.latestSeq)
    this.stopWake = entries.onAppended(() => void this.read())
    void this.read()
  }

  send(described: Omit<RequestEntry, 'seq'>): void {
    if (this.stopped) return
    if (this.outgoing.length >= OUTGOING_MAX) this.outgoing.splice(0, OUTGOING_MAX / 2)
    this.outgoing.push(JSON.stringify(described))
    // The requests answered in one turn go in one append.
    this.sending ??= new Promise<void>((resolve) => setImmediate(resolve)).then(() => this.flush())
  }

  private async flush(): Promise<void> {
    while (this.outgoing.length > 0) {
      const batch = this.outgoing.splice(0)
      await this.entries.append(batch).catch(this.onError)
    }
    this.sending = undefined
    await this.read()
  }

  /** Reads what was appended since the newest entry held (see SharedListReader). */
  read(): Promise<void> {
    return this.reader.read()
  }

  async settled(): Promise<void> {
    while (this.sending || this.reader.busy) await (this.sending ?? this.reader.busy)
  }

  stop(): void {
    this.stopped = true
    this.reader.stop()
    this.stopWake()
  }
}
