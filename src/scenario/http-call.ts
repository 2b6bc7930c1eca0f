import { type IncomingHttpHeaders, request as httpRequest, STATUS_CODES } from 'node:http'
import { request as httpsRequest } from 'node:https'
import { isIP } from 'node:net'
import { isNameAllowed } from '../domain/request-guard.js'

/*
 * The requests of http steps: to the merchant's own system, which the scenario treats as hostile as any other
 * input. Only local addresses unless the run allows more (a scenario file could otherwise send its environment
 * anywhere), one request at a time, bounded in time and in what is read of the answer.
 */

/** Which hosts an http step may reach. */
export interface HttpAccess {
  /** Any host. */
  allowRemote: boolean
  /** Host names (a leading dot takes in subdomains) and IP addresses given with --allowed-hosts. */
  hosts: readonly string[]
  /** The host of the sandbox the run talks to: reached already, so allowed. */
  sandboxHost?: string
}

export const LOCAL_ONLY: HttpAccess = { allowRemote: false, hosts: [] }

/** Checks --allowed-hosts of `pay scenario run`: host names (.example.test for a domain) and IP addresses. */
export function parseHttpHosts(entries: readonly string[]): { hosts: string[] } | { error: string } {
  const hosts: string[] = []
  for (const raw of entries) {
    const entry = raw.trim().toLowerCase()
    if (entry === '') continue
    const bare = entry.startsWith('[') && entry.endsWith(']') ? entry.slice(1, -1) : entry
    if (isIP(bare) === 0 && !/^\.?[a-z0-9_-]+(\.[a-z0-9_-]+)*$/.test(entry)) {
      return { error: `--allowed-hosts: "${raw.trim()}" is not a host name or IP address; give names without scheme, port or path, e.g. shop or .example.test (a domain and its subdomains)` }
    }
    if (!hosts.includes(bare)) hosts.push(bare)
  }
  return { hosts }
}

/** Why an http step may not call this URL, or undefined when it may. */
export function targetProblem(url: URL, access: HttpAccess): string | undefined {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return `only http and https URLs can be called (got ${url.protocol.replace(/:$/, '')})`
  if (url.username !== '' || url.password !== '') return 'a URL with credentials in it is not sent; give them in "headers" (authorization)'
  if (access.allowRemote) return undefined
  const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase()
  if (isLoopback(host) || host === access.sandboxHost) return undefined
  if (isIP(host) !== 0 ? access.hosts.includes(host) : isNameAllowed(host, access.hosts.filter((h) => isIP(h) === 0))) return undefined
  return `${host} is not a local address; scenario steps call loopback addresses and localhost only, unless pay scenario run --allowed-hosts ${host} (or --allow-remote) allows more`
}

function isLoopback(host: string): boolean {
  if (host === 'localhost' || host.endsWith('.localhost') || host === '::1') return true
  if (isIP(host) === 4) return host.startsWith('127.')
  return /^::ffff:127\./.test(host)
}

export interface HttpRequest {
  method: string
  url: URL
  headers: Record<string, string>
  body?: Buffer
  timeoutMs: number
  /** Most bytes of the body read; a larger answer fails. */
  maxBytes: number
}

export interface HttpAnswer {
  status: number
  headers: IncomingHttpHeaders
  /** The body as UTF-8. */
  text: string
  ms: number
}

/** A request that got no usable answer: refused, timed out, too large, a header Node will not send. */
export class HttpCallError extends Error {}

/** One request; never follows a redirect. Rejects with HttpCallError saying what went wrong. */
export function httpCall(req: HttpRequest): Promise<HttpAnswer> {
  const started = performance.now()
  const send = req.url.protocol === 'https:' ? httpsRequest : httpRequest
  const headers = { ...req.headers, ...(req.body !== undefined ? { 'content-length': String(req.body.length) } : {}) }
  return new Promise((resolve, reject) => {
    let settled = false
    const fail = (message: string) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      r?.destroy()
      reject(new HttpCallError(message))
    }
    let r: ReturnType<typeof httpRequest> | undefined
    // One deadline for the whole exchange: a server that answers a byte at a time cannot hold the step.
    const timer = setTimeout(() => fail(`no complete answer within ${req.timeoutMs} ms`), req.timeoutMs)
    try {
      r = send(req.url, { method: req.method, headers, agent: false }, (res) => {
        const declared = Number(res.headers['content-length'])
        if (Number.isFinite(declared) && declared > req.maxBytes) return fail(tooLarge(req.maxBytes, ` (Content-Length ${declared})`))
        const chunks: Buffer[] = []
        let size = 0
        res.on('data', (c: Buffer) => {
          size += c.length
          if (size > req.maxBytes) fail(tooLarge(req.maxBytes, ''))
          else chunks.push(c)
        })
        res.on('error', (e) => fail(`the answer was cut off (${e.message})`))
        res.on('end', () => {
          if (settled) return
          settled = true
          clearTimeout(timer)
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8'), ms: Math.round(performance.now() - started) })
        })
      })
    } catch (error) {
      // Node refuses a header value with a line break, or a name it cannot send, before anything goes out.
      return fail(`cannot send the request: ${(error as Error).message}`)
    }
    r.on('error', (e: NodeJS.ErrnoException) => fail(reason(e)))
    r.end(req.body)
  })
}

function tooLarge(max: number, declared: string): string {
  return `the answer's body is over ${max / 1024 / 1024} MiB${declared}; an http step reads at most that much`
}

function reason(e: NodeJS.ErrnoException): string {
  switch (e.code) {
    case 'ECONNREFUSED':
      return 'connection refused (ECONNREFUSED): nothing listens there; is it running?'
    case 'ENOTFOUND':
      return `no such host (ENOTFOUND)`
    case 'ECONNRESET':
      return 'the connection was reset before an answer (ECONNRESET)'
    case 'HPE_HEADER_OVERFLOW':
      return 'the answer\'s headers are too large (over 16 KB)'
    default:
      if (e.code?.startsWith('HPE_')) return `the answer is not valid HTTP (${e.code}: ${e.message})`
      return e.code ? `${e.message} (${e.code})` : e.message
  }
}

/** `303 See Other` */
export function statusText(status: number): string {
  return `${status}${STATUS_CODES[status] ? ` ${STATUS_CODES[status]}` : ''}`
}
