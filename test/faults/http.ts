import { request } from 'node:http'

/** What a client saw of one request: the answer, or the error it ended with, and how long it took. */
export interface Seen {
  status?: number
  headers?: Record<string, string | string[] | undefined>
  text?: string
  json?: Record<string, unknown>
  /** `ECONNRESET`, `socket hang up`, `gave up` (the client's own timeout) … */
  error?: string
  ms: number
}

/**
 * One request on a fresh connection, as a merchant's HTTP client makes it: JSON in, the answer or the error out.
 * `giveUpMs`: the client's timeout, after which it closes the connection itself.
 */
export function send(url: string, method: string, path: string, body?: unknown, giveUpMs = 20_000): Promise<Seen> {
  const started = performance.now()
  const payload = body === undefined ? undefined : JSON.stringify(body)
  return new Promise((resolve) => {
    const done = (seen: Omit<Seen, 'ms'>) => resolve({ ...seen, ms: performance.now() - started })
    const r = request(
      new URL(path, url),
      { method, headers: { 'content-type': 'application/json', ...(payload !== undefined ? { 'content-length': Buffer.byteLength(payload) } : {}) }, agent: false },
      (res) => {
        let text = ''
        res.setEncoding('utf8')
        res.on('data', (c: string) => (text += c))
        res.on('error', (e: NodeJS.ErrnoException) => done({ error: e.code ?? e.message }))
        res.on('end', () => {
          let json: Record<string, unknown> | undefined
          try {
            json = JSON.parse(text) as Record<string, unknown>
          } catch {
            json = undefined
          }
          done({ status: res.statusCode, headers: res.headers, text, ...(json ? { json } : {}) })
        })
      },
    )
    const timer = setTimeout(() => r.destroy(new Error('gave up')), giveUpMs)
    r.on('close', () => clearTimeout(timer))
    r.on('error', (e: NodeJS.ErrnoException) => done({ error: e.code ?? e.message }))
    r.end(payload)
  })
}
