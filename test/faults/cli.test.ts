import { describe, expect, test } from 'vitest'
import type { FaultRule } from '../../src/client/index.js'
import { exited, pay, sandbox, spawnSandbox, tempDir } from '../helpers.js'
import { send } from './http.js'

/** `pay fault add|list|clear`, `--api-fault` at start and in exec, and what `pay logs tail` says of a faulted request: the built CLI as a process. */

const CALLBACK = 'https://shop.example/cb'

describe('pay fault add | list | clear', () => {
  test('--route verify --status 503 --times 2: the next two verifies answer 503 with an integer result, the third the real answer', async () => {
    const sb = await sandbox()
    const created = await sb.client.createPayment({ merchant: 'sandbox', amount: 10, callbackUrl: CALLBACK })
    if (created.result !== 100) throw new Error('create failed')
    await sb.client.simulate(created.trackId, { outcome: 'paid' })
    const added = await pay(['fault', 'add', '--route', 'verify', '--status', '503', '--times', '2', '--url', sb.url, '--json'])
    expect(added.code, added.stderr).toBe(0)
    const rule = JSON.parse(added.stdout) as FaultRule
    expect(rule).toMatchObject({ id: expect.stringMatching(/^flt_[\w-]{12}$/), route: 'verify', status: 503, times: 2, played: 0, source: 'api' })

    const answers = []
    for (let i = 0; i < 3; i++) answers.push(await send(sb.url, 'POST', '/api/v1/verify', { merchant: 'sandbox', trackId: created.trackId }))
    expect(answers.map((a) => [a.status, a.json?.result])).toEqual([[503, 503], [503, 503], [200, 100]])

    const list = await pay(['fault', 'list', '--url', sb.url])
    expect(list.code).toBe(0)
    expect(list.stdout).toMatch(new RegExp(`ID +ROUTE +FAULT +SCOPE +PLAYED +SOURCE\\n${rule.id} +verify +status=503 +times=2 +2 of 2 \\(spent\\) +api\\n`))
    expect(JSON.parse((await pay(['fault', 'list', '--url', sb.url, '--json'])).stdout)).toEqual({ faults: [expect.objectContaining({ id: rule.id, matched: 2, played: 2 })] })

    const cleared = await pay(['fault', 'clear', rule.id, '--url', sb.url])
    expect(cleared).toMatchObject({ code: 0, stdout: `✔ Removed ${rule.id} (verify:status=503:times=2)\n` })
    expect((await pay(['fault', 'list', '--url', sb.url])).stdout).toBe('No fault rules: every request gets its real answer (pay fault add makes one).\n')
  })

  test('each fault and scope flag makes the rule it names; the compact form as an argument makes the same', async () => {
    const sb = await sandbox()
    const add = async (...args: string[]) => {
      const r = await pay(['fault', 'add', ...args, '--url', sb.url, '--json'])
      expect(r.code, r.stderr).toBe(0)
      return JSON.parse(r.stdout) as FaultRule
    }
    expect(await add('--route', 'create', '--html', '502')).toMatchObject({ route: 'create', html: 502 })
    expect(await add('--route', 'verify', '--delay', '1500ms', '--merchant', 'sandbox')).toMatchObject({ route: 'verify', delay: '1500ms', merchant: 'sandbox' })
    expect(await add('--route', 'checkout', '--timeout', '--track-id', 'abc_123')).toMatchObject({ route: 'checkout', timeout: true, trackId: 'abc_123' })
    expect(await add('--route', 'create', '--reset', '--after', '--times', '1')).toMatchObject({ route: 'create', reset: true, after: true, times: 1 })
    expect(await add('--route', 'all', '--retry-after', '429', '--seconds', '2', '--rate', '0.3', '--seed', '42')).toMatchObject({ route: 'all', retryAfter: 429, seconds: 2, rate: 0.3, seed: 42 })
    const compact = await add('verify:status=500:times=3')
    expect(compact).toMatchObject({ route: 'verify', status: 500, times: 3 })
    // A rate without a seed gets one, shown so that the run can be made again.
    const human = await pay(['fault', 'add', '--route', 'verify', '--status', '503', '--rate', '0.5', '--url', sb.url])
    expect(human.code).toBe(0)
    expect(human.stdout).toMatch(/^✔ Fault rule flt_[\w-]{12} added\n/)
    expect(human.stdout).toMatch(/seed +\d+ \(--seed \d+ faults the same requests again\)/)
    expect(human.stdout).toContain("your code's requests; the pay CLI's own get real answers")
    expect(await sb.client.listFaults()).toHaveLength(7)
    const cleared = await pay(['fault', 'clear', '--url', sb.url, '--json'])
    expect((JSON.parse(cleared.stdout) as { cleared: FaultRule[] }).cleared).toHaveLength(7)
  })

  test.each([
    [['--route', 'verify', '--status', 'abc'], /^--status must be <code> \(400 to 599\) \(got "abc"\)/],
    [['--route', 'verify', '--status', '200'], /^--status must be <code>/],
    [['--route', 'verify', '--status', '503', '--times', '0'], /^--times must be a whole number from 1 to 1000000 \(got 0\)/],
    [['--route', 'verify', '--status', '503', '--rate', '1.5'], /^--rate must be a share above 0 and at most 1/],
    [['--route', 'refund', '--status', '503'], /^--route must be one of create, verify, checkout, all/],
    [['--status', '503'], /--route/],
    [['--route', 'verify'], /^give one fault: /],
    [['--route', 'verify', '--status', '503', '--reset'], /^give one fault, not 2: status and reset/],
    [['--route', 'verify', '--status', '503', '--after'], /^--after makes the payment and then loses its answer: it needs route create \(got verify\)/],
    [['--route', 'verify', '--delay', '10m'], /^--delay must be <duration>/],
    [['--route', 'verify', '--status', '503', '--merchant', 'no spaces'], /^--merchant must be a merchant key/],
    [['verify:status=503:colour=red'], /"colour" is neither a fault \(status, html, delay, timeout, reset, retry-after\) nor a field/],
    [['verify:status=503', '--route', 'verify', '--status', '503'], /^give the rule as flags or as one argument in the compact form, not both/],
  ])('%j is a usage error (exit 2) naming the field, and adds nothing', async (args, message) => {
    const sb = await sandbox()
    const r = await pay(['fault', 'add', ...args, '--url', sb.url])
    expect(r.code, r.stdout).toBe(2)
    expect(r.stderr.replace(/^\s*(Error|›)?:?\s*/, '')).toMatch(message)
    expect(await sb.client.listFaults()).toEqual([])
  })

  test('clearing a rule the sandbox does not have is exit 5, naming it; with --json the error is JSON', async () => {
    const sb = await sandbox()
    const r = await pay(['fault', 'clear', 'flt_nothere00000', '--url', sb.url])
    expect(r.code).toBe(5)
    expect(r.stderr).toContain('no fault rule flt_nothere00000 (there are none)')
    const json = await pay(['fault', 'clear', 'flt_nothere00000', '--url', sb.url, '--json'])
    expect(json.code).toBe(5)
    expect(JSON.parse(json.stdout)).toMatchObject({ error: { message: expect.stringContaining('no fault rule flt_nothere00000') } })
  })

  test('pay sandbox reset removes the rules with the payments, and says so', async () => {
    const sb = await sandbox()
    await sb.addFault({ route: 'verify', status: 503 })
    const r = await pay(['sandbox', 'reset', '--yes', '--url', sb.url])
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toMatch(/Deleted 0 payments and 0 deliveries, and 1 fault rule; kept 1 merchants/)
    expect(await sb.client.listFaults()).toEqual([])
  })
})

describe('faulted requests in pay logs tail', () => {
  test('--json carries what was done; the lines say it too, and a request with no answer shows as ---', async () => {
    const sb = await sandbox()
    const created = await sb.client.createPayment({ merchant: 'sandbox', amount: 10, callbackUrl: CALLBACK })
    if (created.result !== 100) throw new Error('create failed')
    await sb.addFault({ route: 'verify', status: 503, times: 1 })
    await sb.addFault({ route: 'verify', timeout: true, times: 1 })
    await send(sb.url, 'POST', '/api/v1/verify', { merchant: 'sandbox', trackId: created.trackId })
    await send(sb.url, 'POST', '/api/v1/verify', { merchant: 'sandbox', trackId: created.trackId }, 700)
    await expect.poll(async () => (await sb.client.listRequests({ path: '/api/v1/verify' })).requests.length).toBe(2)
    const r = await pay(['logs', 'tail', '--filter', 'path=/api/v1/verify', '--json', '--url', sb.url])
    expect(r.code, r.stderr).toBe(0)
    const lines = r.stdout.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>)
    expect(lines).toEqual([
      expect.objectContaining({ status: 503, result: 503, trackId: created.trackId, fault: 'status 503' }),
      expect.objectContaining({ status: 0, trackId: created.trackId, fault: expect.stringMatching(/^timeout, client gave up after 0\.[7-9] s$/) }),
    ])
    const human = await pay(['logs', 'tail', '--filter', 'path=/api/v1/verify', '--url', sb.url])
    expect(human.stdout).toMatch(/POST \/api\/v1\/verify 503 result=503 error=service_unavailable trackId=\S+ [\d.]+ms fault: status 503\n/)
    expect(human.stdout).toMatch(/POST \/api\/v1\/verify --- trackId=\S+ [\d.]+ms fault: timeout, client gave up after 0\.\d s\n/)
  })
})

describe('--api-fault at start and in exec', () => {
  test('exec: the rules play on the command\'s requests from the start', async () => {
    const script = `const u = process.env.PAY_SANDBOX_URL; const post = (p, b) => fetch(u + p, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(b) });
(async () => { const c = await (await post('/api/v1/request', { merchant: 'sandbox', amount: 5, callbackUrl: '${CALLBACK}' })).json();
for (let i = 0; i < 3; i++) { const r = await post('/api/v1/verify', { merchant: 'sandbox', trackId: c.trackId }); console.log(r.status, (await r.json()).result) } })()`
    const r = await pay(['sandbox', 'exec', '--data', `${await tempDir()}/data.json`, '--api-fault', 'verify:status=503:times=2', '--', process.execPath, '-e', script], { timeoutMs: 40_000 })
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toBe('503 503\n503 503\n200 202\n')
  })

  test('start: a bad rule is exit 2 naming it; a good one is listed as the start\'s, replaced by the next start\'s, and a held request does not hold up pay sandbox stop', async () => {
    const dir = await tempDir()
    const bad = await pay(['sandbox', 'start', '--data', `${dir}/data.json`, '--port', '0', '--api-fault', 'verify:status=700'])
    expect(bad.code).toBe(2)
    expect(bad.stderr).toMatch(/--api-fault: status must be <code> \(400 to 599\) \(got 700\) in "verify:status=700"; write <route>:<fault>/)

    const first = await spawnSandbox(['--data', `${dir}/data.json`, '--api-fault', 'verify:timeout', '--api-fault', 'create:html=502:times=1'])
    expect((await pay(['sandbox', 'status', '--url', first.url])).stdout).toMatch(/API faults +verify:timeout, create:html=502:times=1\n/)
    const listed = JSON.parse((await pay(['fault', 'list', '--json', '--url', first.url])).stdout) as { faults: FaultRule[] }
    expect(listed.faults.map((f) => [f.route, f.source])).toEqual([['verify', 'start'], ['create', 'start']])
    await pay(['fault', 'add', 'checkout:status=500', '--url', first.url])
    // A merchant's verify held with no timeout of its own; the stop closes it.
    const held = send(first.url, 'POST', '/api/v1/verify', { merchant: 'sandbox', trackId: 'x' }, 60_000)
    await expect.poll(async () => (await pay(['fault', 'list', '--json', '--url', first.url])).stdout).toMatch(/"played": 1/)
    const started = performance.now()
    const stop = await pay(['sandbox', 'stop', '--url', first.url])
    expect(stop.code, stop.stderr).toBe(0)
    await exited(first.child)
    expect(performance.now() - started).toBeLessThan(15_000)
    expect((await held).error).toMatch(/socket hang up|ECONNRESET/)

    const second = await spawnSandbox(['--data', `${dir}/data.json`, '--api-fault', 'verify:status=503:times=1'])
    const after = JSON.parse((await pay(['fault', 'list', '--json', '--url', second.url])).stdout) as { faults: FaultRule[] }
    expect(after.faults.map((f) => `${f.source} ${f.route}`)).toEqual(['api checkout', 'start verify'])
  })
})
