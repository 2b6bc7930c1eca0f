import { request } from 'node:http'
import { describe, expect, test } from 'vitest'
import { verifiedCurrent } from '../../src/domain/verify-journal.js'
import { parseScenarioOrThrow } from '../../src/scenario/parse.js'
import { runScenario } from '../../src/scenario/run.js'
import type { Sandbox } from '../../src/index.js'
import { receiver } from '../callbacks/receiver.js'
import { pay, sandbox } from '../helpers.js'

/** A shop of its own, a paid payment of it, and its notification answered 200 by an endpoint that verifies or not. */
async function paidShopPayment(sb: Sandbox, verifies: boolean): Promise<{ key: string; trackId: string }> {
  const { key } = await sb.client.createMerchant({ name: 'Operator test shop' })
  const rx = await receiver((_, req) => {
    if (verifies) void sb.client.verifyPayment({ merchant: key, trackId: String(req.json.trackId) })
    return { status: 200, body: 'ok' }
  })
  const created = await sb.client.createPayment({ merchant: key, amount: 59.97, callbackUrl: rx.url })
  if (created.result !== 100) throw new Error(created.message)
  await sb.client.simulate(created.trackId, { outcome: 'paid' })
  await rx.waitFor(1)
  if (verifies) await expect.poll(async () => (await sb.client.getPayment(created.trackId)).verifies.count).toBe(1)
  return { key, trackId: created.trackId }
}

/** A raw POST to the sandbox with these headers, as a web page's browser would send it. */
function post(url: string, path: string, headers: Record<string, string>, body: string): Promise<{ status: number; headers: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const r = request(new URL(path, url), { method: 'POST', headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) } }, (res) => {
      res.resume()
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers }))
    })
    r.on('error', reject)
    r.end(body)
  })
}

describe("the audit sees only the merchant: the operator's requests are marked and left out", () => {
  test('a hand-run pay payment verify with another key: the owner named on stderr, the spec answer unchanged, and no foreign-key in pay audit --strict', async () => {
    const sb = await sandbox()
    const { key, trackId } = await paidShopPayment(sb, true)

    // The developer looks, with the default key `sandbox`, four times.
    for (let i = 0; i < 4; i++) {
      const r = await pay(['payment', 'verify', trackId, '--url', sb.url, '--json'])
      expect(r.code).toBe(4)
      expect(JSON.parse(r.stdout)).toEqual({ result: 203, message: 'Invalid track ID' })
      expect(r.stderr).toContain('Error: verify answered result 203 — Invalid track ID')
      expect(r.stderr).toContain(`sandbox hint: payment ${trackId} exists here, created with the merchant key ${key} (not sandbox); verify it with --merchant ${key}`)
    }
    await expect.poll(async () => (await sb.client.getPayment(trackId)).verifies.count).toBe(5)
    const { verifies } = await sb.client.getPayment(trackId)
    expect(verifies.entries.filter((e) => e.operator)).toHaveLength(4)
    expect(verifies.entries.filter((e) => e.operator).every((e) => e.key === 'sandbox' && !e.owner && e.result === 203)).toBe(true)

    const audit = await pay(['audit', '--merchant', key, '--strict', '--ignore', 'insecure-url', '--url', sb.url])
    expect(audit.code, audit.stdout + audit.stderr).toBe(0)
    expect(audit.stdout).toMatch(/^Audit: PASS/)
    expect(audit.stdout).not.toContain('foreign-key')

    // The table of pay payment show marks them.
    const shown = await pay(['payment', 'show', trackId, '--url', sb.url])
    expect(shown.stdout.match(/sandbox \(operator: not the merchant's call\)/g)).toHaveLength(4)
  })

  test("the operator's verify with the right key is no proof that the merchant verified: the audit still fails an endpoint that never did", async () => {
    const sb = await sandbox()
    const { key, trackId } = await paidShopPayment(sb, false)
    const r = await pay(['payment', 'verify', trackId, '--merchant', key, '--url', sb.url])
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toMatch(/result\s+100 \(paid and verified\)/)
    expect(r.stderr).toBe('')
    await expect.poll(async () => (await sb.client.getPayment(trackId)).verifies.count).toBe(1)
    const { payment, verifies } = await sb.client.getPayment(trackId)
    expect(verifies.entries).toEqual([expect.objectContaining({ key, owner: true, result: 100, operator: true })])
    expect(verifiedCurrent(payment, verifies)).toBeUndefined()
    const wait = await pay(['payment', 'wait', trackId, '--verified', '--timeout', '300ms', '--url', sb.url])
    expect(wait.code).toBe(6)

    await sb.client.advanceClock(11_000)
    const report = await sb.client.audit({ merchant: key, ignore: ['insecure-url'] })
    expect(report.verdict).toBe('fail')
    expect(report.payments[0]!.findings.map((f) => f.check)).toEqual(['unverified-notification'])
  })

  test("a merchant's own call with another key is still caught; the request log marks only the operator's requests", async () => {
    const sb = await sandbox()
    const { key, trackId } = await paidShopPayment(sb, true)
    // The merchant's code, with the wrong key: no mark.
    await sb.client.verifyPayment({ merchant: 'sandbox', trackId })
    const marked = await pay(['payment', 'verify', trackId, '--merchant', key, '--url', sb.url])
    expect(marked.code).toBe(0)
    await expect.poll(async () => (await sb.client.getPayment(trackId)).verifies.count).toBe(3)
    const report = await sb.client.audit({ merchant: key, ignore: ['insecure-url'] })
    expect(report.payments[0]!.findings).toEqual([expect.objectContaining({ check: 'foreign-key', reason: expect.stringMatching(/^1 verify call with the key sandbox \(answered 203\)/) })])

    const verifies = (await sb.client.listRequests({ path: '/api/v1/verify' })).requests
    expect(verifies.map((r) => r.operator === true)).toEqual([false, false, true])
  })

  test('a web page cannot send the mark: a cross-origin verify is refused and not recorded, and no preflight is granted', async () => {
    const sb = await sandbox()
    const { key, trackId } = await paidShopPayment(sb, true)
    const body = JSON.stringify({ merchant: key, trackId })
    // What a browser would send for a page at another origin that managed to skip the preflight.
    const attempts: Array<Record<string, string>> = [
      { origin: 'http://shop.example', 'content-type': 'application/json', 'pay-sandbox-operator': '1' },
      { origin: 'http://127.0.0.1:3000', 'sec-fetch-site': 'same-site', 'content-type': 'application/json', 'pay-sandbox-operator': '1' },
    ]
    for (const headers of attempts) {
      expect((await post(sb.url, '/api/v1/verify', headers, body)).status).toBe(403)
    }
    // The preflight a browser sends first for a custom header is answered without any permission.
    const preflight = await new Promise<{ status: number; headers: Record<string, unknown> }>((resolve, reject) => {
      const r = request(new URL('/api/v1/verify', sb.url), {
        method: 'OPTIONS',
        headers: { origin: 'http://shop.example', 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type,pay-sandbox-operator' },
      }, (res) => {
        res.resume()
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers }))
      })
      r.on('error', reject)
      r.end()
    })
    expect(preflight.status).toBeGreaterThanOrEqual(400)
    expect(Object.keys(preflight.headers).filter((h) => h.startsWith('access-control-'))).toEqual([])
    await new Promise((r) => setTimeout(r, 100))
    const { verifies } = await sb.client.getPayment(trackId)
    expect(verifies.count).toBe(1)
    expect(verifies.entries.some((e) => e.operator)).toBe(false)
  })

  test("a scenario's verify step plays the merchant, unless it checks as the operator", async () => {
    const sb = await sandbox()
    const steps = [
      { merchant: { as: 'shop' } },
      { create: { as: 'order', merchant: '${shop.key}', amount: 5, callbackUrl: 'http://127.0.0.1:9/cb' } },
      { simulate: { payment: 'order', outcome: 'paid' } },
      { verify: { payment: 'order', operator: true }, expect: { result: 100 } },
      { wait: 100 },
      { verifies: { payment: 'order', within: 300 }, expect: { verified: false, count: 1 } },
      { verify: { payment: 'order' }, expect: { result: 100 } },
      { verifies: { payment: 'order' }, expect: { verified: true, result: 100, count: 2 } },
    ]
    const report = await runScenario(parseScenarioOrThrow(JSON.stringify({ version: 1, name: 'operator', steps }), 'operator.json'), { client: sb.client })
    expect(report.steps.map((s) => [s.title, s.outcome, s.message])).toContainEqual(['verify order as the operator → 100', 'passed', undefined])
    expect(report.ok).toBe(true)
  })
})
