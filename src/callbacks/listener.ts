import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { readBoundedBody } from '../http/bounded-body.js'
import { type SendResult, sendCallback } from './send.js'

/** Largest request body taken; a larger one is answered 413 and not kept. */
export const LISTENER_BODY_LIMIT = 1024 * 1024

/** Time the merchant's endpoint has to answer a forwarded request: the sandbox's own default per attempt. */
export const FORWARD_TIMEOUT_MS = 5000

/**
 * Headers that belong to one connection (RFC 9110 §7.6.1), never passed on. `host` and `content-length` are set
 * anew for the forwarded request.
 */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'proxy-authenticate', 'proxy-authorization', 'te', 'trailer', 'transfer-encoding', 'upgrade', 'host', 'content-length'])

export interface ListenerOptions {
  port: number
  host: string
  /** Answer every request with this status, even when forwarding. */
  status?: number
  /** Relay each request to this URL and answer with its status (unless `status` is set); 502 when it fails. */
  forwardTo?: string
  forwardTimeoutMs?: number
  /** Told of each request once it has been answered. */
  onRequest: (request: ReceivedRequest) => void
}

export interface ForwardOutcome {
  url: string
  /** The merchant's status, when it answered. */
  status?: number
  durationMs: number
  /** Start of its answer's body (at most 2 KB). */
  excerpt?: string
  /** Why no answer came (refused, timed out …). */
  error?: string
}

export interface ReceivedRequest {
  receivedAt: string
  method: string
  path: string
  /** As received; a repeated header's values joined by ", " (set-cookie: a list). */
  headers: Record<string, string | string[]>
  /** The body's bytes; empty when it was refused as too large. */
  body: Buffer
  /** The body was over LISTENER_BODY_LIMIT: answered 413 and dropped. */
  tooLarge: boolean
  /** Status this listener answered. */
  answered: number
  forward?: ForwardOutcome
}

export interface RunningListener {
  url: string
  port: number
  close(): Promise<void>
}

/** The headers to pass on: everything but hop-by-hop ones and those the Connection header names. */
export function forwardedHeaders(headers: IncomingMessage['headers']): Record<string, string> {
  const named = new Set(
    String(headers.connection ?? '')
      .split(',')
      .map((h) => h.trim().toLowerCase())
      .filter(Boolean),
  )
  const out: Record<string, string> = {}
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || HOP_BY_HOP.has(name) || named.has(name)) continue
    out[name] = Array.isArray(value) ? value.join(', ') : value
  }
  return out
}

/** The status answered: --status first, then the merchant's, then 502 when the forward failed, else 200. */
export function answerStatus(options: Pick<ListenerOptions, 'status'>, forward: SendResult | undefined): number {
  if (options.status !== undefined) return options.status
  if (forward === undefined) return 200
  return forward.status ?? 502
}

/**
 * A local endpoint for callbacks: takes any method on any path, reports each request, and answers 200 (or the
 * status asked for), optionally after relaying the request to the merchant's own endpoint.
 */
export async function startListener(options: ListenerOptions): Promise<RunningListener> {
  const server = createServer((req, res) => void handle(req, res))
  // A client that trickles its request cannot hold a connection.
  server.headersTimeout = 10_000
  server.requestTimeout = 30_000

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const receivedAt = new Date().toISOString()
    const read = await readBody(req)
    if (read === undefined) return
    const { body, tooLarge } = read
    const received: Omit<ReceivedRequest, 'answered'> = {
      receivedAt,
      method: req.method ?? '',
      path: req.url ?? '',
      headers: receivedHeaders(req),
      body,
      tooLarge,
    }
    if (tooLarge) {
      answer(res, 413, `request body is larger than ${LISTENER_BODY_LIMIT / 1024 / 1024} MB\n`, true)
      options.onRequest({ ...received, answered: 413 })
      return
    }
    let forward: SendResult | undefined
    if (options.forwardTo !== undefined) {
      forward = await sendCallback({
        url: options.forwardTo,
        method: received.method,
        body,
        headers: forwardedHeaders(req.headers),
        timeoutMs: options.forwardTimeoutMs ?? FORWARD_TIMEOUT_MS,
      })
    }
    const status = answerStatus(options, forward)
    answer(res, status, forward?.responseExcerpt ?? (status < 300 ? 'ok\n' : `answered ${status} by pay callback listen\n`))
    options.onRequest({
      ...received,
      answered: status,
      ...(forward !== undefined && options.forwardTo !== undefined ? { forward: forwardOutcome(options.forwardTo, forward) } : {}),
    })
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(options.port, options.host, () => {
      server.off('error', reject)
      resolve()
    })
  })
  const { port } = server.address() as AddressInfo
  const host = options.host.includes(':') ? `[${options.host}]` : options.host === '0.0.0.0' ? '127.0.0.1' : options.host
  return {
    url: `http://${host}:${port}`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

function forwardOutcome(url: string, result: SendResult): ForwardOutcome {
  return {
    url,
    ...(result.status !== undefined ? { status: result.status } : {}),
    durationMs: result.durationMs,
    ...(result.responseExcerpt !== undefined ? { excerpt: result.responseExcerpt } : {}),
    ...(result.status === undefined && result.error !== undefined ? { error: result.error } : {}),
  }
}

function answer(res: ServerResponse, status: number, text: string, close = false): void {
  if (res.headersSent || res.destroyed) return
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', ...(close ? { connection: 'close' } : {}) })
  res.end(text)
}

/**
 * The body up to the limit; past it, the rest is read and dropped (up to a bound) so the client reads the 413.
 * Undefined when the client went away mid-body: there is no one to answer, nor a request to show or forward.
 */
function readBody(req: IncomingMessage): Promise<{ body: Buffer; tooLarge: boolean } | undefined> {
  return new Promise((resolve) => {
    readBoundedBody(req, req.headers['content-length'], LISTENER_BODY_LIMIT, (read) =>
      resolve(read.kind === 'cut' ? undefined : read.kind === 'body' ? { body: read.bytes, tooLarge: false } : { body: Buffer.alloc(0), tooLarge: true }),
    )
  })
}

/** Headers as sent, names lower-cased, repeats joined (set-cookie kept as a list). */
function receivedHeaders(req: IncomingMessage): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {}
  for (const [name, value] of Object.entries(req.headers)) if (value !== undefined) out[name] = value
  return out
}
