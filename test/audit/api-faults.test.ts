import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { describe, expect, onTestFinished, test } from 'vitest'
import type { AuditReport, CheckId } from '../../src/audit/rules.js'
import type { FaultRuleInput } from '../../src/client/index.js'
import type { Sandbox } from '../../src/index.js'
import { send } from '../faults/http.js'
import { pay, sandbox } from '../helpers.js'

/**
 * The audit's checks of how a merchant copes with faults of the API, each against a merchant double that makes
 * the mistake and one that does not. The doubles are plain HTTP clients, as a merchant's server is: no operator
 * mark, a fresh connection per call, a timeout of their own or none.
 */

const CALLBACK = 'https://shop.example/payments/callback'
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** A paid order whose notification is lost, so only the merchant's verify calls speak for it. */
async function paidOrder(sb: Sandbox, merchant = 'sandbox'): Promise<string> {
  const created = await sb.client.createPayment({ merchant, amount: 25, callbackUrl: CALLBACK })
  if (created.result !== 100) throw new Error(JSON.stringify(created))
  await sb.client.simulate(created.trackId, { outcome: 'paid', callback: 'drop' })
  return created.trackId
}

interface Verifier {
  /** How long to wait before the n-th retry (1 for the first); undefined: give up after the first failure. */
  backoffMs?: (n: number) => number
  /** The client's timeout. */
  giveUpMs?: number
  maxTries?: number
}

/** A merchant's verify: asks until it gets a result below 400, as told. Resolves with the results and statuses seen. */
async function verify(sb: Sandbox, trackId: string, how: Verifier = {}): Promise<string[]> {
  const seen: string[] = []
  for (let n = 0; n < (how.maxTries ?? 30); n++) {
    if (n > 0) {
      const wait = how.backoffMs?.(n)
      if (wait === undefined) break
      await sleep(wait)
    }
    const answer = await send(sb.url, 'POST', '/api/v1/verify', { merchant: 'sandbox', trackId }, how.giveUpMs ?? 20_000)
    const result = answer.json?.result
    seen.push(answer.status === undefined ? (answer.error ?? 'no answer') : `${answer.status}/${String(result)}`)
    if (typeof result === 'number' && result < 400) break
  }
  return seen
}

/** The audit of one payment once the faults played are recorded and the grace period is over. */
async function auditOf(sb: Sandbox, trackId: string, hits: number): Promise<AuditReport> {
  await expect.poll(() => sb.server.faults.hits().filter((h) => h.trackId === trackId).length).toBe(hits)
  await sb.client.advanceClock(11_000)
  return sb.client.audit({ trackId })
}

const checksOf = (report: AuditReport): CheckId[] => report.payments.flatMap((p) => p.findings.map((f) => f.check))
const fault = (sb: Sandbox, trackId: string, rule: Omit<FaultRuleInput, 'trackId'>) => sb.addFault({ ...rule, trackId } as FaultRuleInput)

describe('outage-taken-as-answer (FAIL)', () => {
  test('a merchant that takes a 503 on verify as "not paid" fails; one that retries with backoff passes', async () => {
    const sb = await sandbox()
    const wrong = await paidOrder(sb)
    const right = await paidOrder(sb)
    await fault(sb, wrong, { route: 'verify', status: 503, times: 2 })
    await fault(sb, right, { route: 'verify', status: 503, times: 2 })

    expect(await verify(sb, wrong)).toEqual(['503/503'])
    expect(await verify(sb, right, { backoffMs: (n) => 600 * 2 ** (n - 1) })).toEqual(['503/503', '503/503', '200/100'])

    // Within the grace period the merchant may still come back: judged later (its failed verify, and its lost notification).
    await expect.poll(() => sb.server.faults.hits().length).toBe(3)
    const early = await sb.client.audit({})
    expect(early.totals.waiting).toBe(2)
    expect(early.verdict).toBe('pass')

    const failed = await auditOf(sb, wrong, 1)
    expect(failed.verdict).toBe('fail')
    expect(failed.payments[0]!.findings).toEqual([
      { check: 'outage-taken-as-answer', level: 'fail', reason: expect.stringMatching(/^the payment was paid and the merchant's verify got status 503 at \S+; it did not verify the payment successfully after$/), at: expect.any(String) },
    ])
    // Not also told that it never verified the lost notification: the outage says why.
    expect(checksOf(failed)).not.toContain('dropped-unreconciled')
    const passed = await auditOf(sb, right, 2)
    expect(passed).toMatchObject({ verdict: 'pass', ok: true, payments: [] })
  })

  test.each<[string, Omit<FaultRuleInput, 'trackId'>]>([
    ['an HTML page from a proxy', { route: 'verify', html: 502, times: 1 }],
    ['a reset connection', { route: 'verify', reset: true, times: 1 }],
  ])('%s taken as "not paid" fails too; a late real answer (delay) is an answer', async (_what, rule) => {
    const sb = await sandbox()
    const wrong = await paidOrder(sb)
    const late = await paidOrder(sb)
    await fault(sb, wrong, rule)
    await fault(sb, late, { route: 'verify', delay: '300ms', times: 1 })
    await verify(sb, wrong)
    expect(await verify(sb, late)).toEqual(['200/100'])
    expect(checksOf(await auditOf(sb, wrong, 1))).toEqual(['outage-taken-as-answer'])
    expect(checksOf(await auditOf(sb, late, 1))).toEqual([])
  })

  test('a verify that failed while the payment was still pending is no outage of a paid payment', async () => {
    const sb = await sandbox()
    const created = await sb.client.createPayment({ merchant: 'sandbox', amount: 25, callbackUrl: CALLBACK })
    if (created.result !== 100) throw new Error('create failed')
    await fault(sb, created.trackId, { route: 'verify', status: 503, times: 1 })
    await verify(sb, created.trackId)
    await sb.client.simulate(created.trackId, { outcome: 'paid', callback: 'drop' })
    await sleep(600)
    await verify(sb, created.trackId)
    expect(checksOf(await auditOf(sb, created.trackId, 1))).toEqual([])
  })
})

describe('notifications refused while verify was failing', () => {
  /** A merchant's endpoint that verifies each notification and answers 503 (send it again) while verify fails. */
  async function endpoint(sb: Sandbox): Promise<string> {
    const server = createServer((req, res) => {
      let text = ''
      req.on('data', (c: Buffer) => (text += c.toString()))
      req.on('end', async () => {
        const { trackId } = JSON.parse(text) as { trackId: string }
        const answer = await send(sb.url, 'POST', '/api/v1/verify', { merchant: 'sandbox', trackId })
        res.statusCode = answer.status === 200 ? 200 : 503
        res.end()
      })
    })
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
    onTestFinished(() => new Promise<void>((r) => server.close(() => r())))
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}/callback`
  }

  test('are neither callback-retried nor retries-exhausted when the merchant verified once it could', async () => {
    const sb = await sandbox({ callbacks: { retries: 3, scheduleMs: [500, 500, 500], timeoutMs: 5_000 } })
    const url = await endpoint(sb)
    const order = async () => {
      const created = await sb.client.createPayment({ merchant: 'sandbox', amount: 30, callbackUrl: url })
      if (created.result !== 100) throw new Error('create failed')
      return created.trackId
    }
    const retried = await order()
    const exhausted = await order()
    await fault(sb, retried, { route: 'verify', status: 503, times: 2 })
    await fault(sb, exhausted, { route: 'verify', status: 503, times: 4 })
    for (const t of [retried, exhausted]) await sb.client.simulate(t, { outcome: 'paid' })
    await expect.poll(async () => (await sb.client.listDeliveries({ trackId: retried }))[0]?.state).toBe('delivered')
    await expect.poll(async () => (await sb.client.listDeliveries({ trackId: exhausted }))[0]?.state).toBe('failed')
    // Its reconciliation verifies the order whose notifications all came during the outage.
    await sleep(600)
    expect(await verify(sb, exhausted)).toEqual(['200/100'])
    // The endpoint is local: insecure-url is all there is to say.
    expect(checksOf(await auditOf(sb, retried, 2))).toEqual(['insecure-url'])
    expect(checksOf(await auditOf(sb, exhausted, 4))).toEqual(['insecure-url'])
  })
})

describe('no-client-timeout (WARN)', () => {
  test('a client that keeps a held verify open past the bound is warned; one with a timeout is not', async () => {
    const sb = await sandbox({ faultHoldMs: 2_500, audit: { clientTimeoutMs: 1_000 } })
    const wrong = await paidOrder(sb)
    const right = await paidOrder(sb)
    await fault(sb, wrong, { route: 'verify', timeout: true, times: 1 })
    await fault(sb, right, { route: 'verify', timeout: true, times: 1 })
    const [wrongSeen, rightSeen] = await Promise.all([
      verify(sb, wrong, { backoffMs: () => 600 }),
      verify(sb, right, { giveUpMs: 400, backoffMs: () => 600 }),
    ])
    expect(wrongSeen).toEqual([expect.stringMatching(/socket hang up|ECONNRESET/), '200/100'])
    expect(rightSeen).toEqual(['gave up', '200/100'])
    const warned = await auditOf(sb, wrong, 1)
    expect(warned.payments[0]!.findings).toEqual([
      { check: 'no-client-timeout', level: 'warn', reason: expect.stringMatching(/^a verify the sandbox played timeout on was still open when the sandbox closed it after 2\.\d s$/), at: expect.any(String) },
    ])
    expect(warned).toMatchObject({ verdict: 'warn', ok: true })
    expect(checksOf(await auditOf(sb, right, 1))).toEqual([])
  })
})

describe('retry-too-soon (WARN) and retry-storm (FAIL)', () => {
  test('retrying before Retry-After is warned; waiting it out is not', async () => {
    const sb = await sandbox()
    const wrong = await paidOrder(sb)
    const right = await paidOrder(sb)
    await fault(sb, wrong, { route: 'verify', retryAfter: 429, seconds: 1, times: 1 })
    await fault(sb, right, { route: 'verify', retryAfter: 429, seconds: 1, times: 1 })
    expect(await verify(sb, wrong, { backoffMs: () => 300 })).toEqual(['429/429', '200/100'])
    expect(await verify(sb, right, { backoffMs: () => 1_100 })).toEqual(['429/429', '200/100'])
    const warned = await auditOf(sb, wrong, 1)
    expect(warned.payments[0]!.findings).toEqual([
      { check: 'retry-too-soon', level: 'warn', reason: expect.stringMatching(/^the verify was retried 0\.\d+ s after retry-after 429 \(Retry-After: 1\), before the Retry-After: 1 it carried$/), at: expect.any(String) },
    ])
    expect(checksOf(await auditOf(sb, right, 1))).toEqual([])
  })

  test('a retry at once after a 503 is warned; more than 10 within 10 s is a storm and fails', async () => {
    const sb = await sandbox()
    const soon = await paidOrder(sb)
    const storm = await paidOrder(sb)
    await fault(sb, soon, { route: 'verify', status: 503, times: 1 })
    await fault(sb, storm, { route: 'verify', status: 503, times: 14 })
    expect(await verify(sb, soon, { backoffMs: () => 0 })).toEqual(['503/503', '200/100'])
    expect(await verify(sb, storm, { backoffMs: () => 0 })).toHaveLength(15)
    expect((await auditOf(sb, soon, 1)).payments[0]!.findings).toEqual([
      { check: 'retry-too-soon', level: 'warn', reason: expect.stringMatching(/^the verify was retried 0\.\d+ s after status 503, with no backoff$/), at: expect.any(String) },
    ])
    const stormed = await auditOf(sb, storm, 14)
    expect(stormed.payments[0]!.findings).toEqual([
      { check: 'retry-storm', level: 'fail', reason: expect.stringMatching(/^the verify was retried 14 times within 10s from \S+, after status 503$/), at: expect.any(String) },
    ])
    expect(stormed.verdict).toBe('fail')
  })

  test('creates: a merchant that retries an order in a tight loop fails; one with backoff passes; both are listed by merchant', async () => {
    const sb = await sandbox()
    for (const key of ['loop_shop', 'calm_shop']) await sb.client.createMerchant({ key })
    await sb.addFault({ route: 'create', status: 503, times: 12, merchant: 'loop_shop' })
    await sb.addFault({ route: 'create', html: 502, times: 2, merchant: 'calm_shop' })
    const order = (merchant: string) => send(sb.url, 'POST', '/api/v1/request', { merchant, amount: 12.5, callbackUrl: CALLBACK, description: 'order 1' })
    let tries = 0
    while ((await order('loop_shop')).status !== 200) tries++
    expect(tries).toBe(12)
    for (let n = 0; (await order('calm_shop')).status !== 200; n++) await sleep(600 * 2 ** n)
    await expect.poll(() => sb.server.faults.hits().length).toBe(14)
    const report = await sb.client.audit({})
    expect(report.creates).toEqual([
      { merchant: 'loop_shop', verdict: 'fail', findings: [{ check: 'retry-storm', level: 'fail', reason: expect.stringMatching(/^the create was retried 12 times within 10s from \S+, after status 503$/), at: expect.any(String) }] },
    ])
    expect(report.counts).toEqual({ 'retry-storm': 1 })
    // Scoped to the careful merchant, or to one payment, the loop is not its concern.
    expect((await sb.client.audit({ merchant: 'calm_shop' })).creates).toEqual([])
    const [made] = await sb.client.listPayments({ merchant: 'loop_shop' })
    expect((await sb.client.audit({ trackId: made!.trackId })).creates).toEqual([])
  })
})

describe('pay audit prints them, with advice, and exits 6 on a failure', () => {
  test('the outage and the creates of a merchant, as a person reads them', async () => {
    const sb = await sandbox()
    const wrong = await paidOrder(sb)
    await fault(sb, wrong, { route: 'verify', status: 503, times: 1 })
    await verify(sb, wrong)
    await sb.addFault({ route: 'create', status: 500, times: 11 })
    while ((await send(sb.url, 'POST', '/api/v1/request', { merchant: 'sandbox', amount: 3, callbackUrl: CALLBACK })).status !== 200);
    await expect.poll(() => sb.server.faults.hits().length).toBe(12)
    await sb.client.advanceClock(11_000)
    const r = await pay(['audit', '--url', sb.url])
    expect(r.code, r.stderr).toBe(6)
    expect(r.stdout).toContain(`✖ ${wrong}  paid  merchant sandbox\n    FAIL outage-taken-as-answer: the payment was paid and the merchant's verify got status 503 at `)
    expect(r.stdout).toContain('→ A verify that fails says nothing about the payment: keep the order open, verify again with backoff')
    expect(r.stdout).toMatch(/✖ creates {2}merchant sandbox\n {4}FAIL retry-storm: the create was retried 11 times within 10s from \S+, after status 500\n/)
    const json = JSON.parse((await pay(['audit', '--url', sb.url, '--json', '--ignore', 'retry-storm'])).stdout) as AuditReport
    expect(json.creates).toEqual([])
    expect(json.counts).toEqual({ 'outage-taken-as-answer': 1 })
  })
})
