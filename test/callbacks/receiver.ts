import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { onTestFinished } from 'vitest'

export interface Received {
  /** performance.now() when the request body was complete. */
  at: number
  method: string
  path: string
  headers: IncomingHttpHeaders
  /** Raw body as received. */
  text: string
  json: Record<string, unknown>
}

/** What to answer the n-th request (1-based): a status and body, or `hang` (never answer). */
export type Answer = { status?: number; body?: string } | 'hang'

export interface Receiver {
  url: string
  received: Received[]
  /** Connections open now, and the most ever open at once (counted on the receiver's side). */
  connections: { open: number; max: number }
  /** Resolves once `count` requests have arrived; rejects after `timeoutMs`. */
  waitFor(count: number, timeoutMs?: number): Promise<Received[]>
}

/** A real HTTP receiver on 127.0.0.1, closed when the test finishes. */
export async function receiver(answer: (n: number, req: Received) => Answer = () => ({ status: 200, body: 'ok' })): Promise<Receiver> {
  const received: Received[] = []
  const waiters: Array<{ count: number; resolve: () => void }> = []
  const hanging: ServerResponse[] = []
  const connections = { open: 0, max: 0 }
  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8')
      let json: Record<string, unknown> = {}
      try {
        json = JSON.parse(text) as Record<string, unknown>
      } catch {
        json = {}
      }
      const r: Received = { at: performance.now(), method: req.method ?? '', path: req.url ?? '', headers: req.headers, text, json }
      received.push(r)
      const a = answer(received.length, r)
      for (const w of waiters.filter((w) => received.length >= w.count)) w.resolve()
      if (a === 'hang') {
        hanging.push(res)
        return
      }
      res.statusCode = a.status ?? 200
      res.end(a.body ?? '')
    })
  })
  server.on('connection', (socket) => {
    connections.open++
    connections.max = Math.max(connections.max, connections.open)
    // The sender hanging up (end) closes it for counting, even while a hanging answer keeps the socket.
    let counted = true
    const gone = () => {
      if (counted) connections.open--
      counted = false
    }
    socket.once('end', gone)
    socket.once('close', gone)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  onTestFinished(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  )
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}/callback`,
    received,
    connections,
    waitFor(count, timeoutMs = 10_000) {
      if (received.length >= count) return Promise.resolve(received)
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`receiver got ${received.length} requests, expected ${count} within ${timeoutMs} ms`)),
          timeoutMs,
        )
        waiters.push({
          count,
          resolve: () => {
            clearTimeout(timer)
            resolve(received)
          },
        })
      })
    },
  }
}

/** A URL on 127.0.0.1 where nothing listens: a port that was free a moment ago. */
export async function closedPortUrl(): Promise<string> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return `http://127.0.0.1:${port}/callback`
}

/** Polls `check` until it returns a value, or fails after `timeoutMs`. */
export async function eventually<T>(check: () => Promise<T | undefined> | T | undefined, timeoutMs = 10_000): Promise<T> {
  const until = Date.now() + timeoutMs
  for (;;) {
    const value = await check()
    if (value !== undefined) return value
    if (Date.now() > until) throw new Error(`condition not met within ${timeoutMs} ms`)
    await new Promise((r) => setTimeout(r, 20))
  }
}
