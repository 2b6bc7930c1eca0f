import { createServer, type IncomingHttpHeaders, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'

export interface ReceivedCallback {
  /** 1-based, in arrival order. */
  seq: number
  at: number
  method: string
  path: string
  headers: IncomingHttpHeaders
  text: string
  /** The body parsed as JSON, when it is JSON. */
  body: unknown
  /** Status the receiver answered with. */
  answered: number
  /** Taken by a callback step; a later step cannot match it again. */
  consumed: boolean
}

const MAX_BODY = 1024 * 1024

/**
 * A merchant's callback endpoint for a scenario: records every request and answers 2xx, except the first
 * `failFirst` requests, which get `failStatus` (to see the sandbox retry). It can play a correct merchant (`before`:
 * verify before answering) or one that is not idempotent (`refuseRepeats`: 409 to a delivery it answered 2xx).
 */
export class CallbackReceiver {
  readonly received: ReceivedCallback[] = []
  private readonly server: Server
  private readonly waiters = new Set<() => void>()
  private served = 0
  url = ''

  /** Delivery ids answered 2xx, for refuseRepeats. */
  private readonly answered = new Set<string>()

  constructor(
    readonly name: string,
    private readonly failFirst: number,
    private readonly failStatus: number,
    private readonly behaviour: { refuseRepeats?: boolean; before?: (body: unknown) => Promise<void> } = {},
  ) {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = []
      let size = 0
      req.on('data', (c: Buffer) => {
        size += c.length
        if (size <= MAX_BODY) chunks.push(c)
      })
      req.on('end', async () => {
        const text = Buffer.concat(chunks).toString('utf8')
        let body: unknown
        try {
          body = JSON.parse(text)
        } catch {
          body = undefined
        }
        this.served++
        const seq = this.served
        const failing = seq <= this.failFirst
        const delivery = String(req.headers['x-pay-sandbox-delivery'] ?? '')
        const repeat = this.behaviour.refuseRepeats === true && delivery !== '' && this.answered.has(delivery)
        if (!failing && !repeat) await this.behaviour.before?.(body)
        const answered = failing ? this.failStatus : repeat ? 409 : 200
        if (answered === 200 && delivery !== '') this.answered.add(delivery)
        this.received.push({
          seq,
          at: Date.now(),
          method: req.method ?? '',
          path: req.url ?? '',
          headers: req.headers,
          text,
          body,
          answered,
          consumed: false,
        })
        res.writeHead(answered, { 'content-type': 'application/json' })
        res.end(
          JSON.stringify(
            failing ? { error: `failing on purpose (${seq} of ${this.failFirst})` } : repeat ? { error: `delivery ${delivery} was handled already (refusing repeats on purpose)` } : { ok: true },
          ),
        )
        for (const wake of this.waiters) wake()
      })
    })
  }

  async start(): Promise<string> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject)
      this.server.listen(0, '127.0.0.1', () => resolve())
    })
    const { port } = this.server.address() as AddressInfo
    this.url = `http://127.0.0.1:${port}/callbacks/${this.name}`
    return this.url
  }

  /** Resolves with `check()`'s answer once it has one, or undefined after `ms`. Re-checked on every request. */
  waitFor<T>(check: () => T | undefined, ms: number): Promise<T | undefined> {
    const first = check()
    if (first !== undefined) return Promise.resolve(first)
    return new Promise((resolve) => {
      const done = (value: T | undefined) => {
        clearTimeout(timer)
        this.waiters.delete(wake)
        resolve(value)
      }
      const wake = () => {
        const value = check()
        if (value !== undefined) done(value)
      }
      const timer = setTimeout(() => done(check()), ms)
      this.waiters.add(wake)
    })
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections()
    await new Promise<void>((resolve) => this.server.close(() => resolve()))
  }
}
