import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, onTestFinished, test } from 'vitest'
import type { CheckId } from '../../src/audit/rules.js'
import { type Sandbox, type SandboxClient, startSandbox } from '../../src/index.js'
import { eventually } from '../callbacks/receiver.js'
import { pay } from '../helpers.js'

/** How a merchant's callback endpoint behaves: the mistakes the audit looks for, or their absence. */
interface Behaviour {
  /** Call verify with this key before answering (a correct merchant's first move). */
  verifyWith?: string
  /** The status of the n-th request (1-based); 200 by default. */
  answer?: (n: number) => number
  /** Answer only after this long. */
  delayMs?: number
  /** 409 to a delivery id already answered 2xx, or to a status older than one already seen. */
  refuseRepeats?: boolean
}

/** A merchant's callback endpoint on 127.0.0.1: a test double that makes a mistake, or does not. */
async function merchant(client: SandboxClient, behaviour: Behaviour = {}): Promise<{ url: string; requests: () => number }> {
  let n = 0
  const handled = new Set<string>()
  const seen = new Set<string>()
  const server = createServer((req, res) => {
    let text = ''
    req.on('data', (c: Buffer) => (text += c.toString()))
    req.on('end', async () => {
      const number = ++n
      const body = JSON.parse(text) as { trackId: string; status: string }
      const delivery = String(req.headers['x-pay-sandbox-delivery'])
      // A naive state machine: refuses what it already handled, and a step back from paid.
      const stale = body.status === 'unfinalized' && seen.has(`${body.trackId}:paid`)
      if (behaviour.refuseRepeats && (handled.has(delivery) || stale)) {
        res.statusCode = 409
        res.end('already handled')
        return
      }
      if (behaviour.verifyWith) await client.verifyPayment({ merchant: behaviour.verifyWith, trackId: body.trackId })
      if (behaviour.delayMs) await new Promise((r) => setTimeout(r, behaviour.delayMs))
      res.statusCode = behaviour.answer?.(number) ?? 200
      if (res.statusCode < 300) {
        handled.add(delivery)
        seen.add(`${body.trackId}:${body.status}`)
      }
      res.end('ok')
    })
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  onTestFinished(() => new Promise<void>((r) => {
    server.closeAllConnections()
    server.close(() => r())
  }))
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/callback`, requests: () => n }
}

describe('pay audit: each check against a merchant that makes the mistake, and one that does not', () => {
  let sb: Sandbox
  let shop: string
  beforeAll(async () => {
    sb = await startSandbox({ callbacks: { retries: 2, scheduleMs: [1_000], timeoutMs: 2_000 }, audit: { slowMs: 150 } })
    shop = (await sb.client.createMerchant({ key: 'audit_shop' })).key
  })
  afterAll(() => sb.stop())

  async function order(callbackUrl: string, extra: { returnUrl?: string; amount?: number } = {}): Promise<string> {
    const created = await sb.client.createPayment({ merchant: shop, amount: extra.amount ?? 20, callbackUrl, ...(extra.returnUrl ? { returnUrl: extra.returnUrl } : {}) })
    if (created.result !== 100) throw new Error(JSON.stringify(created))
    return created.trackId
  }

  /** The checks the audit finds for one payment, once `delivered` of its deliveries are settled and the grace has passed. */
  async function checksOf(trackId: string, settled = 1): Promise<CheckId[]> {
    await eventually(async () => {
      const deliveries = await sb.client.listDeliveries({ trackId })
      return deliveries.filter((d) => d.state !== 'pending').length >= settled ? true : undefined
    })
    await sb.client.advanceClock(11_000)
    const report = await sb.client.audit({ trackId })
    return (report.payments[0]?.findings ?? []).map((f) => f.check)
  }

  const correct = (): Behaviour => ({ verifyWith: shop })

  test.each<[CheckId, (make: typeof order) => Promise<{ wrong: [string, number?]; right: [string, number?] }>]>([
    [
      'unverified-notification',
      async (make) => {
        const wrong = await make((await merchant(sb.client)).url)
        const right = await make((await merchant(sb.client, correct())).url)
        for (const t of [wrong, right]) await sb.client.simulate(t, { outcome: 'paid' })
        return { wrong: [wrong], right: [right] }
      },
    ],
    [
      'dropped-unreconciled',
      async (make) => {
        const endpoint = await merchant(sb.client, correct())
        const wrong = await make(endpoint.url)
        const right = await make(endpoint.url)
        for (const t of [wrong, right]) await sb.client.simulate(t, { outcome: 'paid', callback: 'drop' })
        // The correct merchant's reconciliation job verifies open orders.
        await sb.client.verifyPayment({ merchant: shop, trackId: right })
        return { wrong: [wrong], right: [right] }
      },
    ],
    [
      'retries-exhausted',
      async (make) => {
        const wrong = await make((await merchant(sb.client, { ...correct(), answer: () => 500 })).url)
        const right = await make((await merchant(sb.client, correct())).url)
        for (const t of [wrong, right]) await sb.client.simulate(t, { outcome: 'paid' })
        await eventually(async () => ((await sb.client.listDeliveries({ trackId: wrong }))[0]!.attempts.length >= 1 ? true : undefined))
        await sb.client.advanceClock(1_000)
        await eventually(async () => ((await sb.client.listDeliveries({ trackId: wrong }))[0]!.attempts.length >= 2 ? true : undefined))
        await sb.client.advanceClock(1_000)
        return { wrong: [wrong], right: [right] }
      },
    ],
    [
      'not-idempotent',
      async (make) => {
        const wrong = await make((await merchant(sb.client, { ...correct(), refuseRepeats: true })).url)
        const right = await make((await merchant(sb.client, correct())).url)
        for (const t of [wrong, right]) await sb.client.simulate(t, { outcome: 'paid', callback: 'duplicate=2' })
        return { wrong: [wrong], right: [right] }
      },
    ],
    [
      'not-idempotent',
      async (make) => {
        const wrong = await make((await merchant(sb.client, { ...correct(), refuseRepeats: true })).url)
        const right = await make((await merchant(sb.client, correct())).url)
        for (const t of [wrong, right]) {
          await sb.client.simulate(t, { outcome: 'unfinalized', callback: 'reorder' })
          await sb.client.simulate(t, { outcome: 'paid' })
        }
        return { wrong: [wrong, 2], right: [right, 2] }
      },
    ],
    [
      'slow-callback',
      async (make) => {
        const wrong = await make((await merchant(sb.client, { ...correct(), delayMs: 300 })).url)
        const right = await make((await merchant(sb.client, correct())).url)
        for (const t of [wrong, right]) await sb.client.simulate(t, { outcome: 'paid' })
        return { wrong: [wrong], right: [right] }
      },
    ],
    [
      'callback-retried',
      async (make) => {
        const wrong = await make((await merchant(sb.client, { ...correct(), answer: (n) => (n === 1 ? 503 : 200) })).url)
        const right = await make((await merchant(sb.client, correct())).url)
        for (const t of [wrong, right]) await sb.client.simulate(t, { outcome: 'paid' })
        await eventually(async () => ((await sb.client.listDeliveries({ trackId: wrong }))[0]!.attempts.length >= 1 ? true : undefined))
        await sb.client.advanceClock(1_000)
        return { wrong: [wrong], right: [right] }
      },
    ],
    [
      'foreign-key',
      async (make) => {
        const endpoint = await merchant(sb.client, correct())
        const wrong = await make(endpoint.url)
        const right = await make(endpoint.url)
        for (const t of [wrong, right]) await sb.client.simulate(t, { outcome: 'paid' })
        await sb.client.verifyPayment({ merchant: 'sandbox', trackId: wrong })
        return { wrong: [wrong], right: [right] }
      },
    ],
    [
      'verify-polling',
      async (make) => {
        const endpoint = await merchant(sb.client, correct())
        const wrong = await make(endpoint.url)
        const right = await make(endpoint.url)
        for (let i = 0; i < 12; i++) await sb.client.verifyPayment({ merchant: shop, trackId: wrong })
        for (let i = 0; i < 2; i++) await sb.client.verifyPayment({ merchant: shop, trackId: right })
        for (const t of [wrong, right]) await sb.client.simulate(t, { outcome: 'paid' })
        return { wrong: [wrong], right: [right] }
      },
    ],
    [
      'amount-differs',
      async (make) => {
        const endpoint = await merchant(sb.client, correct())
        const wrong = await make(endpoint.url)
        const right = await make(endpoint.url)
        await sb.client.simulate(wrong, { outcome: 'paid', amount: 2 })
        await sb.client.simulate(right, { outcome: 'paid' })
        return { wrong: [wrong], right: [right] }
      },
    ],
  ])('%s', async (check, setup) => {
    const { wrong, right } = await setup(order)
    expect(await checksOf(...wrong)).toContain(check)
    expect(await checksOf(...right)).not.toContain(check)
  })

  test('insecure-url: plain http or a local host, and not for public https', async () => {
    const wrong = await order('http://127.0.0.1:9/cb', { returnUrl: 'https://192.168.1.5/thanks' })
    const right = await order('https://shop.example.com/cb', { returnUrl: 'https://shop.example.com/thanks' })
    const reasons = (await sb.client.audit({ trackId: wrong })).payments[0]!.findings.filter((f) => f.check === 'insecure-url').map((f) => f.reason)
    expect(reasons).toEqual(['callbackUrl is plain http to a loopback address', 'returnUrl points at a private address'])
    expect((await sb.client.audit({ trackId: right })).payments).toEqual([])
  })

  test('a notification still within the grace period is waiting, not failed', async () => {
    const trackId = await order((await merchant(sb.client)).url)
    await sb.client.simulate(trackId, { outcome: 'paid' })
    await eventually(async () => ((await sb.client.listDeliveries({ trackId }))[0]!.state === 'delivered' ? true : undefined))
    const report = await sb.client.audit({ trackId, ignore: ['insecure-url'] })
    expect(report).toMatchObject({ ok: true, verdict: 'pass', totals: { waiting: 1, fail: 0 } })
  })

  test('pay audit: the verdict in words, exit 6 on a failure (and on a warning with --strict), one JSON document with --json', async () => {
    const naive = await merchant(sb.client)
    const m = await sb.client.createMerchant()
    const created = await sb.client.createPayment({ merchant: m.key, amount: 5, callbackUrl: naive.url })
    if (created.result !== 100) throw new Error('create failed')
    await sb.client.simulate(created.trackId, { outcome: 'paid' })
    await eventually(async () => ((await sb.client.listDeliveries({ trackId: created.trackId }))[0]!.state === 'delivered' ? true : undefined))
    await sb.client.advanceClock(11_000)
    const failed = await pay(['audit', '--merchant', m.key, '--url', sb.url])
    expect(failed.code).toBe(6)
    expect(failed.stdout).toMatch(/^Audit: FAIL — 1 payment observed, 0 clean\n {2}1 failure, 1 warning, 0 notes/)
    expect(failed.stdout).toContain(`✖ ${created.trackId}  paid  merchant ${m.key}`)
    expect(failed.stdout).toMatch(/ {4}FAIL unverified-notification: the paid notification was answered 200 at .*\n {9}→ On every notification call verify/)
    const json = await pay(['audit', '--merchant', m.key, '--json', '--url', sb.url])
    expect(json.code).toBe(6)
    expect(JSON.parse(json.stdout)).toMatchObject({ ok: false, verdict: 'fail', counts: { 'unverified-notification': 1, 'insecure-url': 1 } })

    await sb.client.verifyPayment({ merchant: m.key, trackId: created.trackId })
    const strict = await pay(['audit', '--merchant', m.key, '--strict', '--url', sb.url])
    expect(strict.code).toBe(6)
    expect(strict.stdout).toMatch(/^Audit: FAIL \(strict\) — 1 payment observed, 0 clean\n {2}0 failures, 1 warning/)
    expect(await sb.client.audit({ merchant: m.key })).toMatchObject({ ok: true, verdict: 'warn' })
    const clean = await pay(['audit', '--merchant', m.key, '--strict', '--ignore', 'insecure-url', '--since', '1h', '--url', sb.url])
    expect(clean.code).toBe(0)
    expect(clean.stdout).toMatch(/^Audit: PASS — 1 payment observed, 1 clean/)
    expect((await sb.client.audit({ merchant: m.key, since: '2999-01-01T00:00:00Z' })).totals.payments).toBe(0)
    const bad = await pay(['audit', '--ignore', 'insecure-urls', '--url', sb.url])
    expect(bad.code).toBe(2)
    expect(bad.stderr).toContain('--ignore: no check "insecure-urls"')
    const res = await sb.client.raw({ method: 'GET', path: '/_sandbox/audit?since=yesterday' })
    expect(res.status).toBe(400)
  })
})
