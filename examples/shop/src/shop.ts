import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import { realpathSync } from 'node:fs'
import { pathToFileURL } from 'node:url'
import { type Config, loadConfig } from './config.js'
import { type Order, OPEN_STATES, Orders, type OrderState } from './orders.js'
import { isUnavailable, PaymentService, type Unavailable, type VerifyAnswer } from './payments.js'

/** What the shop sells, in cents: amounts are computed in whole cents, never by multiplying floats. */
const CATALOGUE: Record<string, { name: string; cents: number }> = {
  tshirt: { name: 'T-shirt', cents: 1999 },
  mug: { name: 'Mug', cents: 950 },
}
const MAX_QUANTITY = 100
const MAX_BODY_BYTES = 16 * 1024
/** A failed verify in a notification's handler is tried once more after this, if the service asks for no longer. */
const INLINE_RETRY_MS = 500
/** The longest wait between two verifies of an order the service could not answer for. */
const MAX_BACKOFF_MS = 60_000

const FINAL: readonly OrderState[] = ['delivered', 'amount_mismatch', 'not_completed', 'cancelled']

export interface Shop {
  url: string
  server: Server
  orders: Orders
  stop(): Promise<void>
}

type Why = 'notification' | 'reconciliation' | 'check'

/** An HTTP error answer with a message for the client. */
class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message)
  }
}

/**
 * The shop: `POST /orders` creates an order and its payment and sends the customer to the checkout page;
 * `POST /payments/callback` takes the service's notification, verifies, and delivers only on result 100 with the
 * order amount; every pending order is verified again every `reconcileMs`, so one whose notification was lost is
 * delivered anyway; `GET /orders/<id>` shows an order.
 */
export async function startShop(config: Config, log: (line: string) => void = console.log): Promise<Shop> {
  const orders = new Orders()
  const pay = new PaymentService(config.payBaseUrl, config.merchantKey)
  const mistake = config.mistake
  let publicUrl = config.publicUrl ?? ''

  /** Verify, once more after a short wait when the service gave no answer (unless it asks for a longer one). */
  async function verify(trackId: string, why: Why): Promise<VerifyAnswer | Unavailable> {
    const answer = await pay.verify(trackId)
    if (!isUnavailable(answer) || why !== 'notification' || mistake === 'cancel-on-503' || (answer.retryAfterMs ?? 0) > INLINE_RETRY_MS) return answer
    await new Promise((r) => setTimeout(r, Math.max(INLINE_RETRY_MS, answer.retryAfterMs ?? 0)))
    return pay.verify(trackId)
  }

  /** Where an order goes on a verify answer; undefined: it stays as it is. */
  function next(order: Order, answer: VerifyAnswer, why: Why): { state: OrderState; refNumber?: string } | undefined {
    if (answer.result === 100) {
      const paidInFull = answer.amount === order.amount || mistake === 'ignore-amount'
      return paidInFull ? { state: 'delivered', ...(answer.refNumber !== undefined ? { refNumber: answer.refNumber } : {}) } : { state: 'amount_mismatch' }
    }
    if (answer.result === 203 && answer.message === undefined) return { state: 'confirming' }
    // 202 after a notification: the customer gave up or the time ran out. Otherwise the customer may still pay.
    if (answer.result === 202) return why === 'notification' ? { state: 'not_completed' } : undefined
    return undefined
  }

  /**
   * Verifies an order and acts on the answer, never on a notification's body: delivered once, on 100 with the
   * order amount. When the service gives no answer the order stays as it is and is verified again later, each
   * time waiting longer (and at least as long as Retry-After asks): an outage is not "not paid".
   */
  function settle(order: Order, why: Why, notified?: Record<string, unknown>): Promise<'unavailable' | OrderState> {
    return orders.exclusive(order.id, async () => {
      const now = orders.get(order.id)!
      if (FINAL.includes(now.state)) return now.state
      if (mistake === 'trust-callback') {
        if (why !== 'notification') return now.state
        const status = notified?.status
        const state: OrderState | undefined = status === 'paid' ? 'delivered' : status === 'unfinalized' ? 'confirming' : status === 'failed' || status === 'expired' ? 'not_completed' : undefined
        if (state !== undefined) change(now, { state })
        return state ?? now.state
      }
      // The service failed to answer a moment ago and asked for (or earned) a pause: a notification does not cut it
      // short. It is answered "not now", and the service sends it again; the reconciliation verifies once it is over.
      if (why === 'notification' && now.verifyFailures > 0 && now.nextCheckAt > Date.now() && mistake !== 'cancel-on-503') return 'unavailable'
      const answer = await verify(now.trackId, why)
      if (isUnavailable(answer)) {
        if (mistake === 'cancel-on-503') {
          change(now, { state: 'cancelled', lastError: `verify: ${answer.unavailable}` })
          return 'cancelled'
        }
        const failures = now.verifyFailures + 1
        const waitMs = Math.max(Math.min(MAX_BACKOFF_MS, config.reconcileMs * 2 ** (failures - 1)), answer.retryAfterMs ?? 0)
        change(now, { verifyFailures: failures, lastError: `verify: ${answer.unavailable}`, nextCheckAt: Date.now() + waitMs })
        log(`verify of ${now.trackId} (order ${now.id}) got no answer (${answer.unavailable}); trying again in ${waitMs} ms`)
        return 'unavailable'
      }
      const moved = next(now, answer, why)
      const reset = { verifyFailures: 0, nextCheckAt: Date.now() + config.reconcileMs }
      if (answer.result !== 100 && answer.result !== 202 && answer.result !== 203) {
        change(now, { ...reset, lastError: `verify answered ${answer.result}${answer.message ? ` ${answer.message}` : ''}` })
        return now.state
      }
      // confirming is never a step back from a later state.
      if (moved === undefined || (moved.state === 'confirming' && now.state !== 'awaiting_payment')) {
        change(now, reset)
        return now.state
      }
      change(now, { ...reset, ...moved })
      log(`order ${now.id} is ${moved.state} (${why}, verify ${answer.result}${answer.amount !== undefined ? ` amount ${answer.amount}` : ''})`)
      return moved.state
    })
  }

  /** A new version of the order; its last error is kept only when the change says it again. */
  function change(order: Order, fields: Partial<Order>): void {
    const { lastError: _previous, ...rest } = order
    orders.put({ ...rest, ...fields, updatedAt: new Date().toISOString() })
  }

  async function createOrder(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const input = await readBody(req)
    const item = typeof input.item === 'string' ? CATALOGUE[input.item] : undefined
    if (!item) throw new HttpError(400, `item must be one of ${Object.keys(CATALOGUE).join(', ')}`)
    const quantity = input.quantity === undefined ? 1 : Number(input.quantity)
    if (!Number.isInteger(quantity) || quantity < 1 || quantity > MAX_QUANTITY) throw new HttpError(400, `quantity must be a whole number from 1 to ${MAX_QUANTITY}`)
    const id = orders.newId()
    const amount = (item.cents * quantity) / 100
    const created = await pay.create({
      amount,
      callbackUrl: `${publicUrl}/payments/callback`,
      returnUrl: `${publicUrl}/orders/${id}`,
      description: `Order ${id}: ${quantity} × ${item.name}`,
    })
    if (isUnavailable(created)) throw new HttpError(502, `the payment service is unavailable (${created.unavailable}); please try again`)
    if (created.result !== 100 || !('trackId' in created)) throw new HttpError(502, `the payment service refused the payment: ${created.result} ${created.message}`)
    const at = new Date().toISOString()
    // Kept before the customer is sent to pay: no notification can come for an order the shop does not know.
    const order: Order = {
      id,
      item: input.item as string,
      quantity,
      amount,
      state: 'awaiting_payment',
      trackId: created.trackId,
      checkoutUrl: pay.checkoutUrl(created.trackId),
      createdAt: at,
      updatedAt: at,
      verifyFailures: 0,
      nextCheckAt: Date.now() + config.reconcileMs,
    }
    orders.put(order)
    log(`order ${id} created: ${quantity} × ${item.name}, ${amount} (trackId ${created.trackId})`)
    // A browser follows the redirect to the checkout page; an API client can read the order from the body.
    send(res, 303, view(order), { location: order.checkoutUrl })
  }

  async function notification(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = await readBody(req)
    const trackId = typeof body.trackId === 'string' ? body.trackId : undefined
    if (trackId === undefined) throw new HttpError(400, 'trackId missing')
    const order = orders.byPayment(trackId)
    // Not ours (another shop's, or already forgotten): nothing to do, and nothing to send again.
    if (!order) return send(res, 200, { ok: true, order: null })
    const outcome = await settle(order, 'notification', body)
    // Not handled: an answer other than 2xx makes the service send it again; the reconciliation tries too.
    if (outcome === 'unavailable') return send(res, 503, { error: 'the payment could not be verified now; send it again later' })
    send(res, 200, { ok: true, order: order.id, state: outcome })
  }

  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0]!
    const route = async (): Promise<void> => {
      const order = /^\/orders\/([\w-]{1,64})(\/check)?$/.exec(path)
      if (path === '/') {
        allow(req, ['GET', 'HEAD'])
        return send(res, 200, { shop: 'pay example shop', items: CATALOGUE })
      }
      if (path === '/orders') {
        if (req.method === 'GET') return send(res, 200, { orders: orders.list().map(view) })
        allow(req, ['GET', 'POST'])
        return createOrder(req, res)
      }
      if (path === '/payments/callback') {
        allow(req, ['POST'])
        return notification(req, res)
      }
      if (order) {
        const found = orders.get(order[1]!)
        if (!found) throw new HttpError(404, `no order ${order[1]}`)
        if (order[2]) {
          allow(req, ['POST'])
          // On demand, as a customer's "check my payment" button would: verify now.
          await settle(found, 'check')
          return send(res, 200, view(orders.get(found.id)!))
        }
        allow(req, ['GET', 'HEAD'])
        return send(res, 200, view(found))
      }
      throw new HttpError(404, 'no such page')
    }
    route().catch((error: unknown) => {
      const status = error instanceof HttpError ? error.status : 500
      if (status === 500) log(`error: ${(error as Error).stack ?? String(error)}`)
      if (!res.headersSent) send(res, status, { error: status === 500 ? 'internal error' : (error as Error).message })
      else res.destroy()
    })
  })

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(config.port, config.host, () => resolve())
  })
  const address = server.address()
  const port = typeof address === 'object' && address ? address.port : config.port
  const url = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`
  publicUrl ||= url

  // Reconciliation: open orders are verified again on a schedule, so a lost notification loses no order.
  let stopping = false
  let timer: NodeJS.Timeout | undefined
  const reconcile = async () => {
    for (const order of orders.list()) {
      if (stopping) return
      if (OPEN_STATES.includes(order.state) && order.nextCheckAt <= Date.now()) await settle(order, 'reconciliation').catch(() => {})
    }
  }
  const tick = () => {
    timer = setTimeout(() => void reconcile().finally(() => !stopping && tick()), Math.min(config.reconcileMs, 1000))
  }
  // Trusting notifications, that shop never verifies, so it has nothing to reconcile with.
  if (mistake !== 'trust-callback') tick()

  log(`shop listening on ${url} (payments: ${config.payBaseUrl}, merchant ${config.merchantKey}${mistake ? `; MISTAKE: ${mistake}` : ''})`)
  return {
    url,
    server,
    orders,
    async stop() {
      stopping = true
      clearTimeout(timer)
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}

/** An order as the shop shows it. */
function view(order: Order) {
  return {
    id: order.id,
    item: order.item,
    quantity: order.quantity,
    amount: order.amount,
    state: order.state,
    delivered: order.state === 'delivered',
    trackId: order.trackId,
    checkoutUrl: order.checkoutUrl,
    ...(order.refNumber !== undefined ? { refNumber: order.refNumber } : {}),
    ...(order.lastError !== undefined ? { lastError: order.lastError } : {}),
    createdAt: order.createdAt,
    updatedAt: order.updatedAt,
  }
}

function allow(req: IncomingMessage, methods: string[]): void {
  if (!methods.includes(req.method ?? '')) throw new HttpError(405, `${req.method} is not allowed here; use ${methods.join(' or ')}`)
}

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body))
}

/** A JSON or form body as an object; at most MAX_BODY_BYTES. */
function readBody(req: IncomingMessage): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const type = String(req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase()
    if (type !== 'application/json' && type !== 'application/x-www-form-urlencoded') {
      req.resume()
      return reject(new HttpError(415, 'send application/json or a form (application/x-www-form-urlencoded)'))
    }
    const chunks: Buffer[] = []
    let size = 0
    req.on('data', (c: Buffer) => {
      size += c.length
      if (size <= MAX_BODY_BYTES) chunks.push(c)
    })
    req.on('error', reject)
    req.on('end', () => {
      if (size > MAX_BODY_BYTES) return reject(new HttpError(413, `the body is over ${MAX_BODY_BYTES} bytes`))
      const text = Buffer.concat(chunks).toString('utf8')
      if (type === 'application/x-www-form-urlencoded') return resolve(Object.fromEntries(new URLSearchParams(text)))
      try {
        const value: unknown = JSON.parse(text)
        if (typeof value === 'object' && value !== null && !Array.isArray(value)) return resolve(value as Record<string, unknown>)
      } catch {
        // answered below
      }
      reject(new HttpError(400, 'the body must be a JSON object'))
    })
  })
}

// Started as a program (also through a symlinked folder, whose path Node resolves for import.meta.url).
if (process.argv[1] && import.meta.url === pathToFileURL(realpathSync(process.argv[1])).href) {
  let config: Config
  try {
    config = loadConfig()
  } catch (error) {
    console.error((error as Error).message)
    process.exit(2)
  }
  const shop = await startShop(config).catch((error: Error) => {
    console.error(`cannot start: ${error.message}`)
    process.exit(1)
  })
  const stop = () => void shop.stop().then(() => process.exit(0))
  process.once('SIGINT', stop)
  process.once('SIGTERM', stop)
}
