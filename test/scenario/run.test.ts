import { XMLParser, XMLValidator } from 'fast-xml-parser'
import { describe, expect, it, onTestFinished } from 'vitest'
import { SandboxClient } from '../../src/client/index.js'
import { parseScenarioOrThrow } from '../../src/scenario/parse.js'
import { CallbackReceiver } from '../../src/scenario/receiver.js'
import { toJUnit } from '../../src/scenario/report.js'
import { runScenario, runScenarios } from '../../src/scenario/run.js'
import { sandbox } from '../helpers.js'

function scenario(name: string, steps: unknown[], file = `${name}.json`) {
  return parseScenarioOrThrow(JSON.stringify({ version: 1, name, steps }), file)
}

const shopAndOrder = [
  { merchant: { as: 'shop' } },
  { create: { as: 'order', merchant: '${shop.key}', amount: 10, callbackUrl: 'https://merchant.example/cb' } },
]

describe('scenario runner', () => {
  it('passes a scenario whose expectations hold, binding values for later steps', async () => {
    const sb = await sandbox()
    const report = await runScenario(
      scenario('ok', [
        ...shopAndOrder,
        { simulate: { payment: 'order', outcome: 'paid', amount: 4 } },
        { verify: { as: 'v', payment: 'order' }, expect: { result: 100, amount: 4, amountMatchesOrder: false, refNumber: true } },
        { verify: { trackId: '${order.trackId}', merchant: '${shop.key}' }, expect: { refNumber: '${v.refNumber}', amount: '${v.amount}' } },
      ]),
      { client: sb.client },
    )
    expect(report.steps.map((s) => [s.outcome, s.message])).toEqual(Array(5).fill(['passed', undefined]))
    expect(report.ok).toBe(true)
    const { payment } = await sb.client.getPayment((await sb.client.listPayments())[0]!.trackId)
    expect(payment).toMatchObject({ status: 'paid', paidAmount: 4, amount: 10 })
  })

  it('fails a verifies or audit step whose expectation does not hold, saying what the sandbox observed', async () => {
    const sb = await sandbox()
    const report = await runScenario(
      scenario('unhappy', [
        { receiver: { as: 'naive' } },
        { merchant: { as: 'shop' } },
        { create: { as: 'order', merchant: '${shop.key}', amount: 10, callbackUrl: '${naive.url}' } },
        { simulate: { payment: 'order', outcome: 'paid', callback: 'duplicate=2' } },
        { callback: { receiver: 'naive', payment: 'order', match: { status: 'paid' } } },
        { clock: { advance: '11s' } },
        { verifies: { payment: 'order', within: 100 }, expect: { verified: true } },
      ]),
      { client: sb.client },
    )
    expect(report.steps.at(-1)).toMatchObject({
      outcome: 'failed',
      message: "the merchant did not verify the payment's paid status after it changed, within 100 ms (0 verify calls)",
    })
    const audit = await runScenario(
      scenario('audit', [
        { merchant: { as: 'shop' } },
        { create: { as: 'order', merchant: '${shop.key}', amount: 10, callbackUrl: 'https://shop.example/cb' } },
        { simulate: { payment: 'order', outcome: 'paid', callback: 'drop' } },
        { clock: { advance: '11s' } },
        { audit: { merchant: '${shop.key}' } },
      ]),
      { client: sb.client },
    )
    expect(audit.steps.at(-1)!.message).toMatch(/^expected 0 failures, got 1 — findings: FAIL dropped-unreconciled \(\S+\): the paid notification was dropped at .* \(requested by simulate\), and the payment was never verified after it changed$/)
  })

  it('expects request errors the spec has no result code for', async () => {
    const sb = await sandbox()
    const report = await runScenario(
      scenario('request error', [
        { merchant: { as: 'shop' } },
        { create: { as: 'bad', merchant: '${shop.key}', amount: 1, callbackUrl: 'https://m.example/cb', description: 5 }, expect: { error: 'invalid_field' } },
        { create: { merchant: '${shop.key}', amount: 1, callbackUrl: 'https://m.example/cb', description: '${bad.message}' } },
      ]),
      { client: sb.client },
    )
    expect(report.steps.map((s) => s.message ?? s.outcome)).toEqual(['passed', 'passed', 'passed'])
    const [payment] = await sb.client.listPayments()
    expect(payment?.description).toBe('description must be a string (got a number)')
  })

  it('detects an unmet expectation, says what differed, and skips the rest of the scenario', async () => {
    const sb = await sandbox()
    const report = await runScenario(
      scenario('designed to fail', [
        ...shopAndOrder,
        { verify: { payment: 'order' }, expect: { result: 100, refNumber: true } },
        { simulate: { payment: 'order', outcome: 'paid' } },
      ]),
      { client: sb.client },
    )
    expect(report.ok).toBe(false)
    expect(report.steps.map((s) => s.outcome)).toEqual(['passed', 'passed', 'failed', 'skipped'])
    expect(report.steps[2]!.message).toBe('expected result 100, got 202; expected refNumber to be present, it is absent — answer {"result":202,"amount":10}')
    expect(report.steps[2]!.error).toBeUndefined()
    // The skipped simulate never ran.
    expect((await sb.client.listPayments({ status: 'paid' })).length).toBe(0)
  })

  const failing: Array<[string, unknown[], RegExp]> = [
    ['a create answered with another result', [{ merchant: { as: 'shop' } }, { create: { merchant: '${shop.key}', amount: 0, callbackUrl: 'https://m.example/cb' }, expect: { result: 106 } }], /^expected result 106, got 105 \(Amount is missing or invalid\)$/],
    ['a wrong message', [{ merchant: { as: 'shop' } }, { create: { merchant: '${shop.key}', amount: 0, callbackUrl: 'https://m.example/cb' }, expect: { result: 105, message: 'Bad amount' } }], /expected message "Bad amount", got "Amount is missing or invalid"/],
    ['an order amount expected to match but differing', [...shopAndOrder, { simulate: { payment: 'order', outcome: 'paid', amount: 9.99 } }, { verify: { payment: 'order' }, expect: { amountMatchesOrder: true } }], /amount 9\.99 differs from the order amount 10/],
    ['a move the sandbox refuses', [...shopAndOrder, { simulate: { payment: 'order', outcome: 'failed' } }, { simulate: { payment: 'order', outcome: 'paid' } }], /the sandbox refused: payment \S+ is failed, a final state; it cannot become paid \(invalid_transition\)/],
    ['a refusal that does not come', [...shopAndOrder, { simulate: { payment: 'order', outcome: 'paid' }, expect: { error: 'invalid_transition' } }], /expected the sandbox to refuse with invalid_transition, but the payment became paid/],
    ['a callback that never comes', [{ receiver: { as: 'hook' } }, { merchant: { as: 'shop' } }, { create: { as: 'order', merchant: '${shop.key}', amount: 1, callbackUrl: '${hook.url}' } }, { callback: { receiver: 'hook', payment: 'order', match: { status: 'paid' }, within: 200 } }], /no callback \{status: "paid", trackId: "\S+"\} answered 2xx at receiver hook within 200 ms; it received nothing/],
    ['a callback that needed more attempts than expected', [{ receiver: { as: 'hook', failFirst: 2 } }, { merchant: { as: 'shop' } }, { create: { as: 'order', merchant: '${shop.key}', amount: 1, callbackUrl: '${hook.url}' } }, { simulate: { payment: 'order', outcome: 'paid' } }, { callback: { receiver: 'hook', payment: 'order', match: { status: 'paid' }, attempts: 1 } }], /^callback \{status: "paid", trackId: "\S+"\}: took 3 attempts, expected 1$/],
    ['a delivery log entry that needed more attempts than expected', [{ receiver: { as: 'hook', failFirst: 1 } }, { merchant: { as: 'shop' } }, { create: { as: 'order', merchant: '${shop.key}', amount: 1, callbackUrl: '${hook.url}' } }, { simulate: { payment: 'order', outcome: 'failed' } }, { callback: { payment: 'order', match: { status: 'failed' }, attempts: 1 } }], /^callback \{status: "failed", trackId: "\S+"\} \(delivery \S+\) took 2 attempts, expected 1$/],
    ['a delivery that is not in the log', [...shopAndOrder, { callback: { payment: 'order', within: 100 } }], /no delivered callback \{trackId: "\S+"\} in the sandbox's log within 100 ms; no deliveries recorded/],
  ]
  it.each(failing)('fails on %s', async (_label, steps, message) => {
    const sb = await sandbox({ callbacks: { retries: 3, timeoutMs: 1000, scheduleMs: [50] } })
    const report = await runScenario(scenario('fails', steps), { client: sb.client })
    const failed = report.steps.find((s) => s.outcome === 'failed')
    expect(failed?.message).toMatch(message)
    expect(report.ok).toBe(false)
  })

  it('marks a step that cannot reach the sandbox as an error, not an unmet expectation', async () => {
    const client = new SandboxClient('http://127.0.0.1:9')
    const report = await runScenario(scenario('unreachable', shopAndOrder), { client })
    expect(report.steps[0]).toMatchObject({ outcome: 'failed', error: true })
    expect(report.steps[0]!.message).toMatch(/no sandbox at http:\/\/127\.0\.0\.1:9/)
    expect(report.steps[1]!.outcome).toBe('skipped')
  })

  it('fault steps add rules the merchant\'s create and verify meet, and the run removes them when it ends', async () => {
    const sb = await sandbox()
    const kept = await sb.addFault({ route: 'checkout', status: 500 })
    const report = await runScenario(
      scenario('faults', [
        ...shopAndOrder,
        { fault: { route: 'verify', status: 503, times: 1, payment: 'order' } },
        { verify: { payment: 'order' }, expect: { result: 503, message: true } },
        { title: 'the operator is never faulted', fault: { route: 'verify', status: 500, times: 1, payment: 'order' } },
        { verify: { payment: 'order', operator: true }, expect: { result: 202 } },
        { title: 'the rule was left for the merchant', verify: { payment: 'order' }, expect: { result: 500 } },
        { fault: { route: 'create', status: 503, after: true, times: 1, merchant: '${shop.key}' } },
        { create: { merchant: '${shop.key}', amount: 10, callbackUrl: 'https://merchant.example/cb' }, expect: { error: 'service_unavailable' } },
        { fault: { route: 'verify', html: 502, times: 1, trackId: '${order.trackId}' } },
        { verify: { payment: 'order' }, expect: { result: 202 } },
      ]),
      { client: sb.client },
    )
    expect(report.steps.map((s) => [s.number, s.title, s.outcome])).toEqual([
      [1, 'merchant shop', 'passed'],
      [2, 'create order → 100', 'passed'],
      [3, 'fault verify:status=503:times=1 on order', 'passed'],
      [4, 'verify order → 503', 'passed'],
      [5, 'the operator is never faulted', 'passed'],
      [6, 'verify order as the operator → 202', 'passed'],
      [7, 'the rule was left for the merchant', 'passed'],
      [8, 'fault create:status=503:times=1:merchant=${shop.key}:after', 'passed'],
      [9, 'create → service_unavailable', 'passed'],
      [10, 'fault verify:html=502:times=1:trackId=${order.trackId}', 'passed'],
      [11, 'verify order → 202', 'failed'],
    ])
    expect(report.steps[10]!.message).toMatch(/^verify answered HTTP 502 with no result code: "<html>\\r\\n<head><title>502 Bad Gateway<\/title>.*\(fault rule flt_[\w-]{12}\)$/)
    // The answer-lost create made its payment all the same.
    expect(await sb.client.listPayments()).toHaveLength(2)
    // The run's rules are gone; the one it found is kept.
    expect(await sb.client.listFaults()).toEqual([expect.objectContaining({ id: kept.id })])
    const cleared = await runScenario(scenario('clear', [{ fault: { clear: true } }]), { client: sb.client })
    expect(cleared.steps[0]).toMatchObject({ title: 'fault: clear every rule', outcome: 'passed', detail: '1 rule removed' })
    expect(await sb.client.listFaults()).toEqual([])
  })

  it('runs scenarios independently on one sandbox and totals them', async () => {
    const sb = await sandbox()
    const toggling = scenario('toggle', [
      { merchant: { as: 'shop' } },
      { disable: 'shop' },
      { create: { merchant: '${shop.key}', amount: 1, callbackUrl: 'https://m.example/cb' }, expect: { result: 103 } },
    ])
    const other = scenario('other', shopAndOrder)
    const report = await runScenarios([toggling, other, toggling], { client: sb.client })
    expect(report.ok).toBe(true)
    expect(report.totals).toEqual({ scenarios: 3, failedScenarios: 0, steps: 8, passed: 8, failed: 0, skipped: 0 })
    const merchants = await sb.client.listMerchants()
    expect(merchants.filter((m) => !m.enabled)).toHaveLength(2)
    expect(merchants.find((m) => m.key === 'sandbox')?.enabled).toBe(true)
  })
})

describe('callback receiver', () => {
  it('answers the first N requests with the failure status, then 2xx, recording each', async () => {
    const receiver = new CallbackReceiver('hook', 2, 503)
    const url = await receiver.start()
    onTestFinished(() => receiver.stop())
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callbacks\/hook$/)
    const statuses: number[] = []
    for (let i = 0; i < 3; i++) {
      const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ trackId: 'T', status: 'paid', i }) })
      statuses.push(res.status)
    }
    expect(statuses).toEqual([503, 503, 200])
    expect(receiver.received.map((r) => [r.seq, r.method, (r.body as { i: number }).i, r.answered])).toEqual([
      [1, 'POST', 0, 503],
      [2, 'POST', 1, 503],
      [3, 'POST', 2, 200],
    ])
  })

  it('wakes a waiter on the request it waits for', async () => {
    const receiver = new CallbackReceiver('hook', 0, 500)
    const url = await receiver.start()
    onTestFinished(() => receiver.stop())
    const waiting = receiver.waitFor(() => receiver.received.find((r) => (r.body as { n?: number }).n === 2), 2000)
    await fetch(url, { method: 'POST', body: '{"n":1}' })
    await fetch(url, { method: 'POST', body: '{"n":2}' })
    expect((await waiting)?.seq).toBe(2)
    expect(await receiver.waitFor(() => undefined, 30)).toBeUndefined()
  })
})

describe('junit reporter', () => {
  it('writes well-formed JUnit XML: a suite per file, a case per step, failures, errors and skips', async () => {
    const sb = await sandbox()
    const report = await runScenarios(
      [
        scenario('passes <&> "quoted"', shopAndOrder, 'dir/a&b.json'),
        scenario('fails', [...shopAndOrder, { verify: { payment: 'order' }, expect: { result: 100 } }, { wait: 1 }]),
      ],
      { client: sb.client },
    )
    const unreachable = await runScenarios([scenario('errors', [{ merchant: { as: 'shop' } }])], { client: new SandboxClient('http://127.0.0.1:9') })
    const xml = toJUnit({ ...report, scenarios: [...report.scenarios, ...unreachable.scenarios], totals: { ...report.totals, steps: report.totals.steps + 1, failed: report.totals.failed + 1 } })

    expect(XMLValidator.validate(xml)).toBe(true)
    expect(xml).toContain('name="passes &lt;&amp;&gt; &quot;quoted&quot;"')
    expect(xml.startsWith('<?xml version="1.0" encoding="UTF-8"?>\n<testsuites ')).toBe(true)
    const doc = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '', isArray: (name) => ['testsuite', 'testcase'].includes(name) }).parse(xml)
    const root = doc.testsuites
    expect(root).toMatchObject({ tests: '7', failures: '1', errors: '1', skipped: '1' })
    const suites = root.testsuite as Array<Record<string, unknown> & { testcase: Array<Record<string, unknown>> }>
    expect(suites.map((s) => [s.name, s.file, s.tests, s.failures, s.errors, s.skipped])).toEqual([
      ['passes <&> "quoted"', 'dir/a&b.json', '2', '0', '0', '0'],
      ['fails', 'fails.json', '4', '1', '0', '1'],
      ['errors', 'errors.json', '1', '0', '1', '0'],
    ])
    const fails = suites[1]!.testcase
    expect(fails.map((c) => c.name)).toEqual(['1. merchant shop', '2. create order → 100', '3. verify order → 100', '4. wait 1 ms'])
    expect(fails[2]!.failure).toMatchObject({ type: 'expectation', message: expect.stringContaining('expected result 100, got 202') })
    expect(fails[3]!.skipped).toBeDefined()
    expect(suites[2]!.testcase[0]!.error).toMatchObject({ type: 'error', message: expect.stringContaining('no sandbox at') })
    for (const s of suites) for (const c of s.testcase) expect(Number(c.time)).toBeGreaterThanOrEqual(0)
  })
})
