import { type ClientRequest, type Agent as HttpAgent, request as httpRequest, type IncomingMessage, validateHeaderName } from 'node:http'
import { type Agent as HttpsAgent, request as httpsRequest } from 'node:https'
import { EXCERPT_BYTES } from '../domain/callback.js'

export { EXCERPT_BYTES }

const CLOSE_GRACE_MS = 1000

export interface SendRequest {
  url: string
  /** Default POST. */
  method?: string
  /** Sent exactly as given. */
  body: string | Buffer
  headers: Record<string, string>
  timeoutMs: number
  /** Aborting leaves the attempt unfinished: the result has `aborted: true`. */
  signal?: AbortSignal
  /** Default: a fresh connection per attempt, closed after it (no stale kept-alive sockets to fail on). */
  agent?: HttpAgent | HttpsAgent
}

export interface SendResult {
  /** HTTP status, when the receiver answered. */
  status?: number
  /** Start of the response body (at most EXCERPT_BYTES bytes, as UTF-8). */
  responseExcerpt?: string
  /** The response body was longer than the excerpt, or was cut off by the timeout. */
  truncated?: boolean
  durationMs: number
  /** Why the attempt did not get a 2xx: network error, timeout or HTTP status. */
  error?: string
  /** Stopped by the signal (sandbox stopping); not a verdict on the receiver. */
  aborted?: boolean
  ok: boolean
}

/**
 * POSTs one callback (or sends another method) and reports what happened, once its connection is closed; never throws, whatever the request
 * holds (stored deliveries can hold anything). A 2xx is success; redirects are not followed. The response body is read up to EXCERPT_BYTES and
 * then dropped, so a huge or endless body costs nothing.
 */
export function sendCallback(req: SendRequest): Promise<SendResult> {
  const started = performance.now()
  const elapsed = () => Math.round((performance.now() - started) * 10) / 10
  const refused = (error: string): Promise<SendResult> => Promise.resolve({ ok: false, durationMs: 0, error })
  let target: URL
  try {
    target = new URL(req.url)
  } catch {
    return refused(`invalid URL ${JSON.stringify(req.url)}`)
  }
  if (target.protocol !== 'http:' && target.protocol !== 'https:') {
    return refused(`unsupported URL scheme ${target.protocol} (http or https only)`)
  }
  if (typeof req.body !== 'string' && !Buffer.isBuffer(req.body)) return refused('invalid body (not text)')
  const problem = headerProblem(req.headers)
  if (problem !== undefined) return refused(problem)
  if (req.signal?.aborted) return Promise.resolve({ ok: false, aborted: true, durationMs: 0, error: 'aborted' })

  return new Promise<SendResult>((resolve) => {
    let settled = false
    let outgoing: ClientRequest | undefined
    let response: IncomingMessage | undefined
    const chunks: Buffer[] = []
    let kept = 0
    let truncated = false

    const excerpt = (): string | undefined => (response ? Buffer.concat(chunks).toString('utf8') : undefined)
    const finish = (result: Omit<SendResult, 'durationMs' | 'ok'> & { ok?: boolean }) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      req.signal?.removeEventListener('abort', onAbort)
      const out: SendResult = { ok: result.ok ?? false, durationMs: elapsed() }
      if (result.status !== undefined) out.status = result.status
      const text = result.responseExcerpt
      if (text !== undefined && text.length > 0) out.responseExcerpt = text
      if (result.truncated) out.truncated = true
      if (result.error !== undefined) out.error = result.error
      if (result.aborted) out.aborted = true
      // Settles once the socket is closed, so that callers bounding attempts in flight bound open sockets.
      const socket = outgoing?.socket
      if (socket && !socket.closed) {
        // A safety net only: a destroyed socket always emits close.
        const late = setTimeout(() => resolve(out), CLOSE_GRACE_MS)
        late.unref()
        socket.once('close', () => {
          clearTimeout(late)
          resolve(out)
        })
      } else {
        resolve(out)
      }
      outgoing?.destroy()
      response?.destroy()
    }
    const verdict = (status: number): { ok: boolean; error?: string } =>
      status >= 200 && status < 300 ? { ok: true } : { ok: false, error: `HTTP ${status}` }

    const onAbort = () => finish({ aborted: true, error: 'aborted: the sandbox is stopping' })
    req.signal?.addEventListener('abort', onAbort, { once: true })

    const timer = setTimeout(() => {
      if (response?.statusCode !== undefined) {
        // The receiver answered; only its body was slow. The status decides.
        const status = response.statusCode
        finish({ status, responseExcerpt: excerpt(), truncated: true, ...verdict(status) })
      } else {
        finish({ error: `timed out after ${req.timeoutMs} ms` })
      }
    }, req.timeoutMs)

    const send = target.protocol === 'https:' ? httpsRequest : httpRequest
    const headers = { ...req.headers, 'Content-Length': String(Buffer.byteLength(req.body)) }
    try {
      outgoing = send(target, { method: req.method ?? 'POST', headers, agent: req.agent ?? false }, (res) => {
        response = res
        const status = res.statusCode ?? 0
        res.on('data', (chunk: Buffer) => {
          if (settled) return
          const room = EXCERPT_BYTES - kept
          if (chunk.length > room) {
            chunks.push(chunk.subarray(0, room))
            kept = EXCERPT_BYTES
            truncated = true
            finish({ status, responseExcerpt: excerpt(), truncated, ...verdict(status) })
            return
          }
          chunks.push(chunk)
          kept += chunk.length
        })
        res.on('end', () => finish({ status, responseExcerpt: excerpt(), truncated, ...verdict(status) }))
        res.on('error', () => finish({ status, responseExcerpt: excerpt(), truncated: true, ...verdict(status) }))
        res.on('close', () => finish({ status, responseExcerpt: excerpt(), truncated, ...verdict(status) }))
      })
    } catch (error) {
      // Whatever the checks above did not foresee: a failed attempt, not a throw.
      finish({ error: `cannot send: ${(error as Error).message}` })
      return
    }
    outgoing.on('error', (error: NodeJS.ErrnoException) => finish({ error: describeNetworkError(error, target) }))
    outgoing.end(req.body)
  })
}

/** Set by the request itself; a delivery that stores them would corrupt the framing of the body. */
const FRAMING_HEADERS = new Set(['content-length', 'transfer-encoding'])

/**
 * Why Node would refuse to send these headers (it throws rather than reporting), or undefined when they are
 * fine: names must be HTTP tokens, values text of tab, printable ASCII and Latin-1 (no line breaks).
 */
export function headerProblem(headers: unknown): string | undefined {
  if (typeof headers !== 'object' || headers === null || Array.isArray(headers)) return 'invalid headers (not an object of names and values)'
  for (const [name, value] of Object.entries(headers)) {
    try {
      validateHeaderName(name)
    } catch {
      return `invalid header name ${JSON.stringify(name)}`
    }
    if (FRAMING_HEADERS.has(name.toLowerCase())) return `header ${name} is not allowed on a callback (the sandbox sets it)`
    if (typeof value !== 'string') return `invalid header value in ${name} (not text)`
    const bad = /[^\t\x20-\x7e\x80-\xff]/.exec(value)
    if (bad) return `invalid header value in ${name} (U+${bad[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')} is not allowed in a header)`
  }
  return undefined
}

function describeNetworkError(error: NodeJS.ErrnoException, target: URL): string {
  const where = target.host
  switch (error.code) {
    case 'ECONNREFUSED':
      return `connection refused by ${where} (ECONNREFUSED): is the receiver running?`
    case 'ECONNRESET':
      return `connection reset by ${where} (ECONNRESET)`
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `cannot resolve host ${target.hostname} (${error.code})`
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return `cannot reach ${where} (${error.code})`
    default:
      return error.code ? `${error.message} (${error.code})` : error.message
  }
}
