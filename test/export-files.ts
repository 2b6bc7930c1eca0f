import { createServer } from 'node:http'
import type { ExportFile } from '../src/client/index.js'
import { startSandbox } from '../src/index.js'

/**
 * Export files for import tests: one made through the API, and large ones built directly, fast, as valid
 * records in the shape the sandbox writes (keys in its order, so an export of the imported state is
 * byte-for-byte the same lists).
 */

/**
 * A state made through the API and exported: two merchants; a paid payment with every optional field, its
 * delivered callbacks and a replay to another URL; a pending payment of the second merchant.
 */
export async function exportMadeThroughApi(): Promise<ExportFile> {
  const receiver = createServer((req, res) => req.resume().on('end', () => res.end('ok')))
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r))
  const callbackUrl = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/cb`
  const sb = await startSandbox()
  try {
    await sb.client.createMerchant({ key: 'shop_1', name: 'Shop 1' })
    const paid = await sb.client.createPayment({
      merchant: 'sandbox',
      amount: 12.5,
      callbackUrl,
      returnUrl: 'https://shop.example/return',
      description: 'Order 7 ☕',
      mobile: '+15550100',
    })
    if (paid.result !== 100) throw new Error(JSON.stringify(paid))
    await sb.client.simulate(paid.trackId, { outcome: 'unfinalized', amount: 10, asset: 'BTC' })
    await sb.client.simulate(paid.trackId, { outcome: 'paid', amount: 12.5 })
    while ((await sb.client.listDeliveries({ state: 'delivered' })).length < 2) await new Promise((r) => setTimeout(r, 20))
    await sb.client.replayDelivery(paid.trackId, { to: `${callbackUrl}?again=1` })
    const pending = await sb.client.createPayment({ merchant: 'shop_1', amount: 3, callbackUrl })
    if (pending.result !== 100) throw new Error(JSON.stringify(pending))
    return await sb.client.exportState()
  } finally {
    await sb.stop()
    receiver.close()
  }
}

const BASE_MS = Date.parse('2026-01-01T00:00:00.000Z')

function time(ms: number): string {
  return new Date(BASE_MS + ms).toISOString()
}

/** A valid, unique id from a number: 16 bytes → 22 base64url characters, never starting with '-'. */
function trackId(i: number): string {
  const bytes = Buffer.alloc(16)
  bytes.writeUInt32BE(0x10000000 + i, 0)
  bytes.writeUInt32BE(i * 2654435761 >>> 0, 8)
  return bytes.toString('base64url')
}

function deliveryId(i: number): string {
  const bytes = Buffer.alloc(9)
  bytes.writeUInt32BE(0x10000000 + i, 0)
  return `dlv_${bytes.toString('base64url')}`
}

export interface ExportParts {
  envelope: string
  merchants: string[]
  payments: string[]
  deliveries: string[]
}

/**
 * `payments` payments of merchant `sandbox`, cycling through pending, paid, failed and unfinalized; one delivered
 * callback for every `deliveryEvery`-th payment that is not pending (1: each of them). Records as JSON texts.
 */
export function exportParts(options: { payments: number; deliveryEvery?: number }): ExportParts {
  const every = options.deliveryEvery ?? 0
  const merchants = [JSON.stringify({ key: 'sandbox', name: 'Sandbox merchant', enabled: true, createdAt: time(0), updatedAt: time(0) })]
  const payments: string[] = []
  const deliveries: string[] = []
  const statuses = ['pending', 'paid', 'failed', 'unfinalized'] as const
  for (let i = 0; i < options.payments; i++) {
    const id = trackId(i)
    const status = statuses[i % 4]!
    const amount = (1000 + (i % 1000)) / 100
    const created = time(i * 10)
    const changed = time(i * 10 + 5)
    const paid = status === 'paid' || status === 'unfinalized'
    const history: object[] = [{ status: 'pending', at: created, source: 'api' }]
    if (status !== 'pending') history.push({ status, at: changed, source: 'control', ...(paid ? { paidAmount: amount } : {}) })
    payments.push(
      JSON.stringify({
        trackId: id,
        merchant: 'sandbox',
        amount,
        callbackUrl: 'http://127.0.0.1:3000/callback',
        description: `Order ${i}`,
        status,
        createdAt: created,
        updatedAt: status === 'pending' ? created : changed,
        history,
        ...(paid ? { paidAmount: amount } : {}),
        ...(status === 'paid' ? { refNumber: String(100_000_000_000 + i) } : {}),
      }),
    )
    if (every > 0 && status !== 'pending' && (every === 1 || i % every === 1)) {
      const dlv = deliveryId(deliveries.length)
      deliveries.push(
        JSON.stringify({
          id: dlv,
          trackId: id,
          url: 'http://127.0.0.1:3000/callback',
          event: 'payment.status_changed',
          body: {
            event: 'payment.status_changed',
            trackId: id,
            status,
            amount,
            ...(paid ? { paidAmount: amount } : {}),
            occurredAt: changed,
            sandbox: true,
          },
          headers: {
            'Content-Type': 'application/json',
            'User-Agent': 'pay-sandbox/0.1.0',
            'X-Pay-Sandbox-Delivery': dlv,
            'X-Pay-Sandbox-Event': 'payment.status_changed',
          },
          state: 'delivered',
          attempts: [{ attempt: 1, at: time(i * 10 + 6), durationMs: 2.3, status: 200, responseExcerpt: 'ok' }],
          maxRetries: 3,
          createdAt: time(i * 10 + 6),
          updatedAt: time(i * 10 + 7),
        }),
      )
    }
  }
  const envelope = `"format":"pay-sandbox-export","version":1,"exportedAt":${JSON.stringify(time(options.payments * 10 + 100))},"sandboxVersion":"0.1.0"`
  return { envelope, merchants, payments, deliveries }
}

/** The parts as one compact JSON text, as `GET /_sandbox/export` writes it. */
export function exportText(parts: ExportParts): string {
  return `{${parts.envelope},"merchants":[${parts.merchants.join(',')}],"payments":[${parts.payments.join(',')}],"deliveries":[${parts.deliveries.join(',')}]}`
}

/** The part of an export that an import must keep: everything but `exportedAt`. */
export function withoutExportedAt(text: string): string {
  return text.replace(/"exportedAt":\s*"[^"]*"/, '"exportedAt":""')
}
