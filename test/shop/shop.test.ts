import type { ChildProcess } from 'node:child_process'
import { createServer, request } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { describe, expect, onTestFinished, test } from 'vitest'
import type { Sandbox } from '../../src/index.js'
import { pay, ROOT, runScript, sandbox, tempDir } from '../helpers.js'

const SHOP = join(ROOT, 'examples', 'shop', 'dist', 'shop.js')
const SCENARIOS = join(ROOT, 'examples', 'shop', 'scenarios')
const FAST_CALLBACKS = { callbacks: { retries: 3, timeoutMs: 5000, scheduleMs: [100, 200, 400] } }

/** The example shop as its own process, configured by environment only; stopped when the test ends. */
async function runShop(payBaseUrl: string, merchantKey: string, extra: Record<string, string> = {}): Promise<{ url: string; output: () => string; child: ChildProcess }> {
  const shop = await runScript(SHOP, { PAY_BASE_URL: payBaseUrl, PAY_MERCHANT_KEY: merchantKey, PORT: '0', ...extra }, /shop listening on http:\/\/127\.0\.0\.1:\d+/)
  return { ...shop, url: /shop listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(shop.output())![1]! }
}

/** A merchant of its own for each shop, so audits and orders never mix. */
async function merchant(sb: Sandbox): Promise<string> {
  return (await sb.client.createMerchant({ name: 'Example shop' })).key
}

async function order(shop: string, body: Record<string, unknown>): Promise<{ status: number; location: string | null; json: Record<string, unknown> }> {
  const res = await fetch(`${shop}/orders`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body), redirect: 'manual' })
  return { status: res.status, location: res.headers.get('location'), json: (await res.json()) as Record<string, unknown> }
}

const orderState = async (shop: string, id: unknown) => ((await (await fetch(`${shop}/orders/${String(id)}`)).json()) as { state: string }).state

describe('examples/shop: the shipped scenarios pass against the shop and fail against the variant that makes the mistake', () => {
  test.each([
    ['amount-differs.yaml', 'ignore-amount', /✖ 5\. the shop's order is not delivered \d+ ms\n {6}\/delivered: expected false, got true; \/state: expected "amount_mismatch", got "delivered" — GET http:\/\/127\.0\.0\.1:\d+\/orders\/ord_[\w-]+ answered 200 OK in \d+ ms: \{"id":"ord_[\w-]+","item":"tshirt","quantity":3,"amount":59\.97,"state":"delivered","delivered":true,/],
    ['verify-503.yaml', 'cancel-on-503', /✖ 5\. the order is delivered, not cancelled \d+ ms\n {6}\/state: expected "delivered", got "cancelled"; \/delivered: expected true, got false — GET http:\/\/127\.0\.0\.1:\d+\/orders\/ord_[\w-]+ answered 200 OK in \d+ ms: \{"id":"ord_[\w-]+","item":"mug","quantity":2,"amount":19,"state":"cancelled","delivered":false,.*"lastError":"verify: HTTP 503"/],
    ['dropped-notification.yaml', 'trust-callback', /✖ 3\. the shop's reconciliation delivers the order \d+ ms\n {6}not met within 10s \(\d+ tries\); the last: \/state: expected "delivered", got "awaiting_payment"; .* — GET http:\/\/127\.0\.0\.1:\d+\/orders\/ord_[\w-]+ answered 200 OK in \d+ ms: \{"id":"ord_[\w-]+","item":"mug",/],
  ])('%s: exit 0 against the shop, exit 6 against --mistake %s, naming the step and what the shop answered', { timeout: 60_000 }, async (file, mistake, failure) => {
    const sb = await sandbox(FAST_CALLBACKS)
    const key = await merchant(sb)
    const correct = await runShop(sb.url, key)
    const passed = await pay(['scenario', 'run', join(SCENARIOS, file), '--url', sb.url, '--var', `shop=${correct.url}`], { timeoutMs: 30_000 })
    expect(passed.code, passed.stdout + passed.stderr + correct.output()).toBe(0)
    expect(passed.stdout).toMatch(/✔ 1 scenario passed/)

    const wrong = await runShop(sb.url, key, { SHOP_MISTAKE: mistake })
    const failed = await pay(['scenario', 'run', join(SCENARIOS, file), '--url', sb.url, '--var', `shop=${wrong.url}`], { timeoutMs: 30_000 })
    expect(failed.code, failed.stdout + failed.stderr).toBe(6)
    expect(failed.stdout).toMatch(failure)
    expect(wrong.output()).toContain(`MISTAKE: ${mistake}`)
  })

  test('both pass against the shop under pay sandbox exec, with the shop started by the command', { timeout: 60_000 }, async () => {
    const script = `node '${SHOP}' > /dev/null & shop=$!; sleep 0.5; '${process.execPath}' '${join(ROOT, 'bin', 'run.js')}' scenario run '${SCENARIOS}' --var shop=http://127.0.0.1:$PORT; code=$?; kill $shop; exit $code`
    const port = String(await new Promise<number>((r) => {
      const s = createServer().listen(0, '127.0.0.1', () => {
        const p = (s.address() as AddressInfo).port
        s.close(() => r(p))
      })
    }))
    // A data file of its own: the exec test counts the temporary folders exec leaves.
    const r = await pay(['sandbox', 'exec', '--data', join(await tempDir(), 'data.json'), '--', 'sh', '-c', script], { env: { PORT: port }, timeoutMs: 45_000 })
    expect(r.code, r.stdout + r.stderr).toBe(0)
    expect(r.stdout).toMatch(/✔ 3 scenarios passed \(16 of 16 steps passed\)/)
  })
})

describe('examples/shop: the spec’s flow done right', () => {
  test('delivers once under duplicate notifications, answers each 2xx, and passes pay audit --strict', async () => {
    const sb = await sandbox(FAST_CALLBACKS)
    const key = await merchant(sb)
    const shop = await runShop(sb.url, key)
    const created = await order(shop.url, { item: 'tshirt', quantity: 2 })
    expect(created).toMatchObject({ status: 303, json: { amount: 39.98, state: 'awaiting_payment', delivered: false } })
    const trackId = String(created.json.trackId)
    expect(created.location).toBe(`${sb.url}/pay/${trackId}`)
    await sb.client.simulate(trackId, { outcome: 'paid', callback: 'duplicate=3' })
    await expect.poll(() => orderState(shop.url, created.json.id), { timeout: 10_000 }).toBe('delivered')
    await expect.poll(async () => (await sb.client.listDeliveries({ trackId }))[0]?.attempts.length, { timeout: 10_000 }).toBe(3)
    const [delivery] = await sb.client.listDeliveries({ trackId })
    expect(delivery!.attempts.map((a) => a.status)).toEqual([200, 200, 200])
    expect(shop.output().match(/is delivered/g)).toHaveLength(1)
    await sb.client.advanceClock(11_000)
    const audit = await pay(['audit', '--merchant', key, '--strict', '--ignore', 'insecure-url', '--url', sb.url])
    expect(audit.code, audit.stdout).toBe(0)
  })

  test('a verify that answers 503 is no answer: the shop retries with backoff and delivers; the variant cancels the order', { timeout: 60_000 }, async () => {
    const sb = await sandbox(FAST_CALLBACKS)
    const key = await merchant(sb)
    // Between the shop and the payment service: the first verifies answer 503, as an outage would.
    const verifies: number[] = []
    const outage = createServer((req, res) => {
      const chunks: Buffer[] = []
      req.on('data', (c: Buffer) => chunks.push(c))
      req.on('end', () => {
        if (req.url === '/api/v1/verify' && verifies.push(performance.now()) <= 3) {
          res.writeHead(503, { 'content-type': 'application/json', 'retry-after': '1' }).end('{"result":503,"message":"Service unavailable"}')
          return
        }
        const forward = request(new URL(req.url ?? '/', sb.url), { method: req.method, headers: req.headers }, (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers)
          answer.pipe(res)
        })
        forward.end(Buffer.concat(chunks))
      })
    })
    await new Promise<void>((r) => outage.listen(0, '127.0.0.1', r))
    onTestFinished(() => new Promise<void>((r) => outage.close(() => r())))
    const through = `http://127.0.0.1:${(outage.address() as AddressInfo).port}`

    const shop = await runShop(through, key, { RECONCILE_MS: '500' })
    const created = await order(shop.url, { item: 'mug', quantity: 1 })
    await sb.client.simulate(String(created.json.trackId), { outcome: 'paid' })
    await expect.poll(() => orderState(shop.url, created.json.id), { timeout: 20_000 }).toBe('delivered')
    // Never cancelled on the way, and never in a tight loop: at least the Retry-After between verifies.
    expect(shop.output()).not.toMatch(/cancelled/)
    const gaps = verifies.slice(0, 4).map((t, i, all) => (i === 0 ? Infinity : t - all[i - 1]!))
    expect(gaps.slice(1).every((gap) => gap >= 450), JSON.stringify(gaps)).toBe(true)
    expect(verifies.length).toBeLessThan(12)

    verifies.length = 0
    const variant = await runShop(through, key, { SHOP_MISTAKE: 'cancel-on-503' })
    const doomed = await order(variant.url, { item: 'mug', quantity: 1 })
    await sb.client.simulate(String(doomed.json.trackId), { outcome: 'paid' })
    await expect.poll(() => orderState(variant.url, doomed.json.id), { timeout: 10_000 }).toBe('cancelled')
  })

  test('pay audit fails the shop that took a 503 on verify as "not paid" and passes the one that retried with backoff', { timeout: 60_000 }, async () => {
    const sb = await sandbox(FAST_CALLBACKS)
    const keys = { careful: await merchant(sb), cancels: await merchant(sb) }
    const careful = await runShop(sb.url, keys.careful)
    const cancels = await runShop(sb.url, keys.cancels, { SHOP_MISTAKE: 'cancel-on-503' })
    const orders = await Promise.all([order(careful.url, { item: 'mug' }), order(cancels.url, { item: 'mug' })])
    for (const key of [keys.careful, keys.cancels]) await sb.addFault({ route: 'verify', status: 503, times: 2, merchant: key })
    for (const o of orders) await sb.client.simulate(String(o.json.trackId), { outcome: 'paid' })
    await expect.poll(() => orderState(careful.url, orders[0].json.id), { timeout: 20_000 }).toBe('delivered')
    await expect.poll(() => orderState(cancels.url, orders[1].json.id), { timeout: 10_000 }).toBe('cancelled')
    await sb.client.advanceClock(11_000)
    const passed = await pay(['audit', '--merchant', keys.careful, '--ignore', 'insecure-url', '--url', sb.url])
    expect(passed.code, passed.stdout).toBe(0)
    expect(passed.stdout).toMatch(/^Audit: PASS — 1 payment observed, 1 clean\n/)
    const failed = await pay(['audit', '--merchant', keys.cancels, '--ignore', 'insecure-url', '--url', sb.url])
    expect(failed.code, failed.stdout).toBe(6)
    expect(failed.stdout).toMatch(/^Audit: FAIL — 1 payment observed, 0 clean\n/)
    expect(failed.stdout).toMatch(/FAIL outage-taken-as-answer: the payment was paid and the merchant's verify got status 503 at \S+; it did not verify the payment successfully after\n/)
  })

  test('answers hostile or wrong requests with a clear 4xx', async () => {
    const sb = await sandbox()
    const shop = await runShop(sb.url, await merchant(sb))
    const post = (body: string, type = 'application/json') => fetch(`${shop.url}/orders`, { method: 'POST', headers: { 'content-type': type }, body })
    expect((await post('{"item":')).status).toBe(400)
    expect(await (await post('{"item":"car"}')).json()).toEqual({ error: 'item must be one of tshirt, mug' })
    expect((await post('{"item":"mug","quantity":0}')).status).toBe(400)
    expect((await post('x'.repeat(100_000))).status).toBe(413)
    expect((await post('item=mug', 'text/plain')).status).toBe(415)
    expect((await fetch(`${shop.url}/orders/ord_nope`)).status).toBe(404)
    expect((await fetch(`${shop.url}/payments/callback`)).status).toBe(405)
    const notice = await fetch(`${shop.url}/payments/callback`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"trackId":"not-ours"}' })
    expect(await notice.json()).toEqual({ ok: true, order: null })
  })
})
