import { Agent, request as httpRequest } from 'node:http'
import { OPERATOR_HEADER } from '../domain/operator.js'
import type { AuditReport } from '../audit/rules.js'
import type { AuditRequest } from '../audit/schemas.js'
import type { ChainView, MineResult } from '../chain/schemas.js'
import type { ClockChange, ClockView } from '../clock/schemas.js'
import type { RequestErrorBody } from '../domain/outcomes.js'
import type { Outcome } from '../domain/payment.js'
import type { ExportFile } from '../domain/transfer.js'
import type { Delivery, Merchant, Payment, PaymentStatus, VerifyEntry, VerifyJournal } from '../domain/types.js'
import type { SandboxSettings } from '../domain/settings.js'
import type { VerifyBody } from '../domain/validate.js'
import { filterQuery, type RequestFilter } from '../inspector/request-filter.js'
import type { RequestEntry } from '../inspector/request-entry.js'
import type { FaultRoute, FaultRule, FaultRuleInput } from '../domain/api-fault.js'
import type { FaultHit } from '../domain/api-fault-hit.js'
import type { RequestEventsQuery, RequestLogPage, RequestLogQuery } from '../inspector/schemas.js'
import type { SandboxInfo } from '../http/info.js'
import type {
  CreateMerchantInput,
  CreatePaymentInput,
  DeliveryListQuery,
  HealthAnswer,
  ImportResult,
  PaymentDetail,
  PaymentListQuery,
  ReplayInput,
  ResetResult,
  ShutdownAnswer,
  SimulateInput,
  VerifyPaymentInput,
} from '../http/schemas.js'
import type { CreateBody } from '../service/sandbox.js'
import type { AddBotInput, ChatMessagesQuery, ChatPressInput, ChatRef, ChatSendInput } from '../telegram/chat-schemas.js'
import type { ChatBot, ChatBotRef, ChatMessage, ChatMessages, ChatPress, ChatSent } from '../telegram/views.js'

/*
 * What the client sends and gets is typed by the routes' schemas (src/http/wire.ts): inputs and answers below
 * are read from them, so the client and the server cannot disagree on a field. Records and the spec's answers
 * are the domain's types, which the schemas document.
 */
export type { CreateBody, VerifyBody, Delivery, Merchant, Payment, PaymentStatus, Outcome, SandboxInfo }
export type { ClockView, ClockChange, ChainView, MineResult, AuditReport, VerifyEntry, VerifyJournal }
export type { ExportFile, ImportResult, ResetResult, ShutdownAnswer, PaymentDetail }
export type { ChatBot, ChatBotRef, ChatMessage, ChatMessages, ChatPress, ChatSent, ChatRef, AddBotInput, ChatSendInput, ChatPressInput, ChatMessagesQuery }
export type { RequestEntry, RequestFilter, RequestLogPage, RequestLogQuery, RequestEventsQuery }
export type { CreatePaymentInput, VerifyPaymentInput, SimulateInput, CreateMerchantInput, PaymentListQuery, DeliveryListQuery, ReplayInput }
export type { FaultHit, FaultRoute, FaultRule, FaultRuleInput }

/** What the request log's event stream says. */
export type RequestLogEvent =
  | { type: 'request'; entry: RequestEntry }
  /** Entries from..to were let go by the log before they could be sent. */
  | { type: 'gap'; from: number; to: number }

/** What the sandbox's change stream says: a payment or a callback delivery as it is now (once durable), or that merchants or everything changed. */
export type ChangeEvent =
  | { type: 'payment'; created: boolean; payment: Payment }
  | { type: 'delivery'; delivery: Delivery }
  | { type: 'merchant' }
  /** A reset or an import: everything may have changed. */
  | { type: 'reset' }
  /** The API fault rules changed, or faults were played. */
  | { type: 'fault' }

/**
 * Why following the request log ended: the sandbox said it was stopping, the caller aborted, or the stream
 * ended without a word (the sandbox dropped a reader that fell behind; following again resumes).
 */
export type FollowEnd = 'stopped' | 'aborted' | 'ended'

export const DEFAULT_URL = 'http://127.0.0.1:8787'

/** No sandbox answered at the URL. */
export class SandboxUnreachableError extends Error {
  readonly url: string
  /** What failed: `ECONNREFUSED`, `timed out` … */
  readonly reason: string
  constructor(url: string, reason: string) {
    super(`no sandbox at ${url} (${reason}) — start one with \`pay sandbox start\``)
    this.name = 'SandboxUnreachableError'
    this.url = url
    this.reason = reason
  }
}

/** The sandbox answered with a request error (4xx, or 5xx for storage trouble). */
export class SandboxApiError extends Error {
  readonly statusCode: number
  readonly code: string
  constructor(body: RequestErrorBody) {
    super(body.message)
    this.name = 'SandboxApiError'
    this.statusCode = body.statusCode
    this.code = body.error
  }
}

export interface RawResponse {
  status: number
  headers: Record<string, string | string[] | undefined>
  text: string
  /** The body parsed as JSON, or undefined when it is not JSON. */
  json: unknown
}

export interface RawRequest {
  method: string
  path: string
  /** A string is sent as UTF-8, a Buffer byte for byte, anything else as JSON. */
  body?: unknown
  headers?: Record<string, string>
  timeoutMs?: number
  /** Mark this request as the operator's, or not, whatever the client's default. */
  operator?: boolean
}

/**
 * What /_sandbox/health answers; its `clock` is what GET /_sandbox/clock answers, its `settings` what the sandbox runs
 * with (sandboxes of this version and later).
 */
export type Health = Omit<HealthAnswer, 'clock' | 'settings'> & { clock?: ClockView; settings?: SandboxSettings }

/** What `pay audit` asks for: `ignore` as a list of check ids (sent comma-separated). */
export type AuditQuery = Omit<AuditRequest, 'ignore'> & { ignore?: string[] }

export interface SandboxClientOptions {
  keepAlive?: boolean
  /**
   * Mark every request as the sandbox operator's (`Pay-Sandbox-Operator: 1`): its verify calls are recorded as the
   * operator's and left out of the merchant's audit. The pay CLI sets it; a merchant's code must not.
   */
  operator?: boolean
  /** The sandbox's public URL (`--public-url`), for checkout URLs; learned from health when not given. */
  publicUrl?: string
}

/** Typed client of a running sandbox: the spec API and the /_sandbox control API. */
export class SandboxClient {
  readonly url: string
  /** Requests are marked as the operator's. */
  readonly operator: boolean
  private readonly agent: Agent
  private readonly base: URL
  /** Where checkout URLs start: the public URL the sandbox answers health with, else this client's URL. */
  private publicBase: string | undefined

  constructor(url: string = DEFAULT_URL, options: SandboxClientOptions = {}) {
    this.url = url.replace(/\/+$/, '')
    this.base = new URL(this.url)
    this.agent = new Agent({ keepAlive: options.keepAlive ?? false })
    this.operator = options.operator ?? false
    this.publicBase = options.publicUrl?.replace(/\/+$/, '')
  }

  /** Any request, answered as it came; only an unreachable sandbox throws. */
  raw(req: RawRequest): Promise<RawResponse> {
    const payload =
      req.body === undefined || typeof req.body === 'string' || Buffer.isBuffer(req.body) ? req.body : JSON.stringify(req.body)
    const headers: Record<string, string> = { accept: 'application/json', ...((req.operator ?? this.operator) ? { [OPERATOR_HEADER]: '1' } : {}), ...req.headers }
    if (payload !== undefined) {
      headers['content-type'] ??= 'application/json'
      headers['content-length'] = String(Buffer.byteLength(payload))
    }
    const target = new URL(req.path, this.base)
    return new Promise((resolve, reject) => {
      const r = httpRequest(
        target,
        { method: req.method, headers, agent: this.agent, timeout: req.timeoutMs ?? 30_000 },
        (res) => {
          const chunks: Buffer[] = []
          res.on('data', (c: Buffer) => chunks.push(c))
          res.on('error', (e) => reject(new SandboxUnreachableError(this.url, e.message)))
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8')
            let json: unknown
            if (/json/.test(String(res.headers['content-type']))) {
              try {
                json = JSON.parse(text)
              } catch {
                json = undefined
              }
            }
            resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json })
          })
        },
      )
      r.on('timeout', () => r.destroy(new Error('timed out')))
      r.on('error', (e: NodeJS.ErrnoException) => reject(new SandboxUnreachableError(this.url, e.code ?? e.message)))
      if (payload !== undefined) r.write(payload)
      r.end()
    })
  }

  /** A JSON request that must succeed (2xx); a request error throws SandboxApiError. */
  private async call<T>(method: string, path: string, body?: unknown, timeoutMs?: number, operator?: boolean): Promise<T> {
    // The sandbox refuses a POST that does not say application/json, body or not.
    if (body === undefined && method !== 'GET' && method !== 'HEAD') body = {}
    const res = await this.raw({ method, path, body, ...(timeoutMs !== undefined ? { timeoutMs } : {}), ...(operator !== undefined ? { operator } : {}) })
    if (res.status >= 200 && res.status < 300 && res.json !== undefined) return res.json as T
    const err = res.json as Partial<RequestErrorBody> | undefined
    if (err && typeof err.message === 'string' && typeof err.error === 'string') {
      throw new SandboxApiError({ statusCode: res.status, error: err.error, message: err.message })
    }
    throw new SandboxUnreachableError(this.url, `HTTP ${res.status} from something that is not a pay sandbox`)
  }

  // ── spec API ──────────────────────────────────────────────────────────

  /** The spec's create. `operator`: mark the call as the sandbox operator's or not, whatever the client's default. */
  createPayment(input: CreatePaymentInput, options: { operator?: boolean } = {}): Promise<CreateBody> {
    return this.call('POST', '/api/v1/request', input, undefined, options.operator)
  }

  /**
   * The spec's verify. `operator` marks the call as the sandbox operator's (left out of the merchant's audit) or
   * not, whatever the client's default; a call that plays the merchant passes `operator: false`.
   */
  verifyPayment(input: VerifyPaymentInput, options: { operator?: boolean } = {}): Promise<VerifyBody> {
    return this.call('POST', '/api/v1/verify', input, undefined, options.operator)
  }

  /**
   * The checkout page of a payment, under the sandbox's public URL when it has one (`--public-url`) and the
   * client knows it (given, or learned from health), else under this client's URL. See checkoutUrlOf.
   */
  checkoutUrl(trackId: string): string {
    return `${this.publicBase ?? this.url}/pay/${encodeURIComponent(trackId)}`
  }

  /** The checkout page of a payment, asking the sandbox for its public URL first when the client does not know it. */
  async checkoutUrlOf(trackId: string): Promise<string> {
    if (this.publicBase === undefined) await this.health()
    return this.checkoutUrl(trackId)
  }

  // ── control API ───────────────────────────────────────────────────────

  async health(): Promise<Health> {
    const health = await this.call<Health>('GET', '/_sandbox/health')
    this.publicBase ??= health.settings?.publicUrl?.replace(/\/+$/, '') ?? this.url
    return health
  }

  async simulate(trackId: string, input: SimulateInput): Promise<Payment> {
    const res = await this.call<{ payment: Payment }>('POST', `/_sandbox/payments/${encodeURIComponent(trackId)}/simulate`, input)
    return res.payment
  }

  /** A payment with its callback deliveries and its verify journal (entries shown once written). */
  getPayment(trackId: string): Promise<PaymentDetail> {
    return this.call('GET', `/_sandbox/payments/${encodeURIComponent(trackId)}`)
  }

  async listPayments(filter: PaymentListQuery = {}): Promise<Payment[]> {
    const query = new URLSearchParams()
    for (const [k, v] of Object.entries(filter)) if (v !== undefined) query.set(k, String(v))
    const qs = query.size > 0 ? `?${query}` : ''
    return (await this.call<{ payments: Payment[] }>('GET', `/_sandbox/payments${qs}`)).payments
  }

  async listMerchants(): Promise<Merchant[]> {
    return (await this.call<{ merchants: Merchant[] }>('GET', '/_sandbox/merchants')).merchants
  }

  async createMerchant(input: CreateMerchantInput = {}): Promise<Merchant> {
    return (await this.call<{ merchant: Merchant }>('POST', '/_sandbox/merchants', input)).merchant
  }

  async setMerchantEnabled(key: string, enabled: boolean): Promise<Merchant> {
    const action = enabled ? 'enable' : 'disable'
    return (await this.call<{ merchant: Merchant }>('POST', `/_sandbox/merchants/${encodeURIComponent(key)}/${action}`, {}))
      .merchant
  }

  // ── callback deliveries ───────────────────────────────────────────────

  /** Deliveries in creation order, newest last; `limit` keeps the newest. */
  async listDeliveries(filter: DeliveryListQuery = {}): Promise<Delivery[]> {
    const query = new URLSearchParams()
    for (const [k, v] of Object.entries(filter)) if (v !== undefined) query.set(k, String(v))
    const qs = query.size > 0 ? `?${query}` : ''
    return (await this.call<{ deliveries: Delivery[] }>('GET', `/_sandbox/deliveries${qs}`)).deliveries
  }

  async getDelivery(id: string): Promise<Delivery> {
    return (await this.call<{ delivery: Delivery }>('GET', `/_sandbox/deliveries/${encodeURIComponent(id)}`)).delivery
  }

  /**
   * Sends a delivery's body again (one attempt) to its URL or `to`; `ref` is a delivery id or a trackId (its
   * latest delivery). Resolves with the new delivery once the attempt is over.
   */
  async replayDelivery(ref: string, options: ReplayInput = {}): Promise<Delivery> {
    const body = options.to !== undefined ? { to: options.to } : {}
    // The sandbox answers after the attempt, which may take up to its callback timeout (at most 60 s).
    return (await this.call<{ delivery: Delivery }>('POST', `/_sandbox/deliveries/${encodeURIComponent(ref)}/replay`, body, 90_000))
      .delivery
  }

  // ── the sandbox clock, the chain, the audit ───────────────────────────

  clock(): Promise<ClockView> {
    return this.call('GET', '/_sandbox/clock')
  }

  /** Moves the clock forward; resolves once what became due (retries, expiries, blocks) has run. */
  advanceClock(ms: number): Promise<ClockChange> {
    return this.call('POST', '/_sandbox/clock/advance', { ms }, 120_000)
  }

  /** Moves the clock to `time` (ISO 8601); refused (400) when it is earlier than the sandbox's time. */
  setClock(time: string): Promise<ClockChange> {
    return this.call('POST', '/_sandbox/clock/set', { time }, 120_000)
  }

  /** Back to real time (standing still until real time catches up, if the clock was ahead). */
  resetClock(): Promise<ClockChange> {
    return this.call('POST', '/_sandbox/clock/reset', {})
  }

  chain(): Promise<ChainView> {
    return this.call('GET', '/_sandbox/chain')
  }

  /** Mines blocks: one confirmation each for every unfinalized payment. */
  mine(blocks = 1): Promise<MineResult> {
    return this.call('POST', '/_sandbox/chain/mine', { blocks })
  }

  /** The audit of the merchant integration the sandbox observed. */
  audit(query: AuditQuery = {}): Promise<AuditReport> {
    const params = new URLSearchParams()
    if (query.merchant !== undefined) params.set('merchant', query.merchant)
    if (query.trackId !== undefined) params.set('trackId', query.trackId)
    if (query.since !== undefined) params.set('since', query.since)
    if (query.strict) params.set('strict', 'true')
    if (query.ignore && query.ignore.length > 0) params.set('ignore', query.ignore.join(','))
    return this.call('GET', `/_sandbox/audit${params.size > 0 ? `?${params}` : ''}`)
  }

  // ── API faults ────────────────────────────────────────────────────────

  /** Adds a fault rule: the next matching create, verify or checkout requests get its fault. Answers the rule with its id. */
  async addFault(rule: FaultRuleInput): Promise<FaultRule> {
    return (await this.call<{ fault: FaultRule }>('POST', '/_sandbox/faults', rule)).fault
  }

  /** The fault rules, oldest first, with what each has done. */
  async listFaults(): Promise<FaultRule[]> {
    return (await this.call<{ faults: FaultRule[] }>('GET', '/_sandbox/faults')).faults
  }

  /** Removes one rule (its id) or every rule; resolves with the rules removed. A rule the sandbox lacks is a 404. */
  async clearFaults(id?: string): Promise<FaultRule[]> {
    if (id === undefined) return (await this.call<{ cleared: FaultRule[] }>('DELETE', '/_sandbox/faults', {})).cleared
    return [(await this.call<{ fault: FaultRule }>('DELETE', `/_sandbox/faults/${encodeURIComponent(id)}`, {})).fault]
  }

  // ── the Telegram Bot API emulator: playing the customer ────────────────

  async listBots(): Promise<ChatBot[]> {
    return (await this.call<{ bots: ChatBot[] }>('GET', '/_sandbox/chat/bots')).bots
  }

  /** Registers a bot token with a username (bots are also registered on their first Bot API call). */
  async addBot(input: AddBotInput): Promise<ChatBot> {
    return (await this.call<{ bot: ChatBot }>('POST', '/_sandbox/chat/bots', input)).bot
  }

  /** A chat's messages, oldest first; `after` keeps those with a higher message id. */
  chatMessages(ref: ChatMessagesQuery = {}): Promise<ChatMessages> {
    const query = new URLSearchParams()
    for (const [k, v] of Object.entries(ref)) if (v !== undefined) query.set(k, String(v))
    return this.call('GET', `/_sandbox/chat/messages${query.size > 0 ? `?${query}` : ''}`)
  }

  /** The simulated customer sends text (a command, a reply) to the bot. */
  chatSend(input: ChatSendInput): Promise<ChatSent> {
    return this.call('POST', '/_sandbox/chat/send', input)
  }

  /** The simulated customer presses a button by its text; `wait` ms for the bot's answer to a callback button. */
  chatPress(input: ChatPressInput): Promise<ChatPress> {
    return this.call('POST', '/_sandbox/chat/press', input, 15_000)
  }

  // ── the request log ───────────────────────────────────────────────────

  /** Requests the sandbox answered, oldest first (newest last); `limit` keeps the newest N, `after` those after a seq. */
  listRequests(filter: RequestLogQuery = {}): Promise<RequestLogPage> {
    const query = filterQuery(filter)
    if (filter.after !== undefined) query.set('after', String(filter.after))
    if (filter.limit !== undefined) query.set('limit', String(filter.limit))
    return this.call('GET', `/_sandbox/requests${query.size > 0 ? `?${query}` : ''}`)
  }

  /**
   * Follows the request log as requests are answered: first the entries kept after `after`, then each new one.
   * When `onEvent` returns a promise nothing more is read until it settles: the sandbox then waits for this reader,
   * and says with a `gap` what its log let go meanwhile. `onOpen` runs once the stream is open.
   * Resolves with why it ended once it was open; rejects with SandboxUnreachableError when it cannot be opened.
   */
  followRequests(
    filter: RequestEventsQuery,
    onEvent: (event: RequestLogEvent) => void | Promise<void>,
    options: { signal?: AbortSignal; onOpen?: () => void } = {},
  ): Promise<FollowEnd> {
    const query = filterQuery(filter)
    if (filter.after !== undefined) query.set('after', String(filter.after))
    return this.follow(`/_sandbox/requests/events${query.size > 0 ? `?${query}` : ''}`, options, (name, data) => {
      if (name === 'request') return onEvent({ type: 'request', entry: data as RequestEntry })
      if (name === 'gap') return onEvent({ type: 'gap', ...(data as { from: number; to: number }) })
      return undefined
    })
  }

  /**
   * Follows payments and callback deliveries (of one payment, given `trackId`) as each change becomes durable: every
   * change made after `onOpen` has run is seen. Resolves with why it ended once it was open; rejects with
   * SandboxUnreachableError when it cannot be opened.
   */
  followChanges(filter: { trackId?: string }, onEvent: (event: ChangeEvent) => void, options: { signal?: AbortSignal; onOpen?: () => void } = {}): Promise<FollowEnd> {
    const query = new URLSearchParams()
    if (filter.trackId !== undefined) query.set('trackId', filter.trackId)
    return this.follow(`/_sandbox/events${query.size > 0 ? `?${query}` : ''}`, options, (name, data) => {
      if (name === 'payment') onEvent({ type: 'payment', ...(data as { created: boolean; payment: Payment }) })
      else if (name === 'delivery') onEvent({ type: 'delivery', ...(data as { delivery: Delivery }) })
      else if (name === 'merchant' || name === 'reset' || name === 'fault') onEvent({ type: name })
    })
  }

  /**
   * An event stream: each event's name and JSON data to `onEvent`, in order, until it ends (`shutdown`: the sandbox
   * is stopping). When `onEvent` returns a promise, nothing more is read until it settles; a rejected one ends it.
   */
  private follow(
    path: string,
    options: { signal?: AbortSignal; onOpen?: () => void },
    onEvent: (name: string, data: unknown) => void | Promise<void>,
  ): Promise<FollowEnd> {
    const { signal } = options
    const target = new URL(path, this.base)
    return new Promise((resolve, reject) => {
      let stopped = false
      let open = false
      const r = httpRequest(target, { method: 'GET', headers: { accept: 'text/event-stream', ...(this.operator ? { [OPERATOR_HEADER]: '1' } : {}) }, agent: this.agent }, (res) => {
        if (res.statusCode !== 200) {
          const chunks: Buffer[] = []
          res.on('data', (c: Buffer) => chunks.push(c))
          res.on('end', () => {
            const body = parseJson(Buffer.concat(chunks).toString('utf8')) as Partial<RequestErrorBody> | undefined
            if (body && typeof body.error === 'string' && typeof body.message === 'string') {
              reject(new SandboxApiError({ statusCode: res.statusCode ?? 0, error: body.error, message: body.message }))
            } else reject(new SandboxUnreachableError(this.url, `HTTP ${res.statusCode} from something that is not a pay sandbox`))
          })
          return
        }
        open = true
        options.onOpen?.()
        res.setEncoding('utf8')
        let buffer = ''
        let busy: Promise<void> | undefined
        let closed = false
        // Once the stream is gone and what came before is taken in, this says why it ended.
        const settle = (): void => {
          if (closed && !busy) resolve(signal?.aborted ? 'aborted' : stopped ? 'stopped' : 'ended')
        }
        // Hands on each whole event in order; waits, with the response paused, while the caller takes one in.
        const take = (): void => {
          for (let end = buffer.indexOf('\n\n'); end !== -1 && !busy; end = buffer.indexOf('\n\n')) {
            const event = readEvent(buffer.slice(0, end))
            buffer = buffer.slice(end + 2)
            let taken: void | Promise<void> = undefined
            if (event?.name === 'shutdown') stopped = true
            else if (event) taken = onEvent(event.name, event.data)
            if (taken) {
              res.pause()
              busy = taken.then(
                () => {
                  busy = undefined
                  res.resume()
                  take()
                  settle()
                },
                () => {
                  busy = undefined
                  buffer = ''
                  res.destroy()
                  settle()
                },
              )
            }
          }
        }
        res.on('data', (chunk: string) => {
          buffer += chunk
          take()
        })
        // However the open stream ends (its end, a reset, an abort), this says why.
        res.on('error', () => {})
        res.on('close', () => {
          closed = true
          settle()
        })
      })
      r.on('error', (e: NodeJS.ErrnoException) => {
        if (signal?.aborted) resolve('aborted')
        else if (!open) reject(new SandboxUnreachableError(this.url, e.code ?? e.message))
      })
      if (signal?.aborted) return void r.destroy()
      signal?.addEventListener('abort', () => r.destroy(), { once: true })
      r.end()
    })
  }

  // ── lifecycle ─────────────────────────────────────────────────────────

  /** Asks the sandbox to stop as on SIGTERM: it answers, finishes in-flight requests, saves and exits. */
  shutdown(): Promise<ShutdownAnswer> {
    return this.call('POST', '/_sandbox/shutdown', {})
  }

  /** Clears payments and deliveries; merchants are kept. */
  reset(): Promise<ResetResult> {
    return this.call('POST', '/_sandbox/reset', {})
  }

  exportState(): Promise<ExportFile> {
    return this.call('GET', '/_sandbox/export')
  }

  /** Replaces the whole state with an export file; the sandbox checks it and changes nothing when it is invalid. */
  importState(file: unknown): Promise<ImportResult> {
    return this.call('POST', '/_sandbox/import', file)
  }

  /** Closes kept-alive sockets. */
  close(): void {
    this.agent.destroy()
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

/** One server-sent event block: its name and its data as JSON (undefined for comments and retry lines). */
function readEvent(block: string): { name: string; data: unknown } | undefined {
  let name = 'message'
  const data: string[] = []
  for (const line of block.split('\n')) {
    if (line.startsWith('event:')) name = line.slice(6).trim()
    else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''))
  }
  if (data.length === 0) return undefined
  return { name, data: parseJson(data.join('\n')) }
}
