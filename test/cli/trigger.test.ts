import { describe, expect, test } from 'vitest'
import type { TriggerResult } from '../../src/cli/trigger.js'
import { verifiedCurrent } from '../../src/domain/verify-journal.js'
import { closedPortUrl, receiver } from '../callbacks/receiver.js'
import { pay, sandbox } from '../helpers.js'
import { terminal } from './tty.js'

function parsed(stdout: string): TriggerResult {
  return JSON.parse(stdout) as TriggerResult
}

describe('pay trigger <outcome>: one command from create to the callback', () => {
  test("paid --callback-url <receiver> --json: the receiver gets a POST naming the trackId, verify answers 100, and trigger's own verify is marked the operator's", async () => {
    const sb = await sandbox()
    const rx = await receiver()
    const r = await pay(['trigger', 'paid', '--callback-url', rx.url, '--url', sb.url, '--json'])
    expect(r.code, r.stderr).toBe(0)
    expect(r.stderr).toBe('')
    const result = parsed(r.stdout)
    expect(rx.received).toHaveLength(1)
    expect(rx.received[0]).toMatchObject({ method: 'POST', path: '/callback', json: { trackId: result.trackId, status: 'paid', amount: 10 } })
    expect(result).toEqual({
      trackId: expect.any(String),
      checkoutUrl: `${sb.url}/pay/${result.trackId}`,
      merchant: 'sandbox',
      amount: 10,
      status: 'paid',
      callback: { url: rx.url, delivery: expect.stringMatching(/^dlv_/), state: 'delivered', status: 200, durationMs: expect.any(Number) },
      verify: { result: 100, amount: 10, refNumber: expect.stringMatching(/^\d{12}$/) },
    })
    // What trigger showed is what verify answers: its own call, in the journal as the operator's, which is no
    // proof that the merchant verified.
    // The journal's entry is written just after the answer.
    await expect.poll(async () => (await sb.client.getPayment(result.trackId)).verifies.count).toBe(1)
    const { payment, verifies } = await sb.client.getPayment(result.trackId)
    expect(verifies.entries).toEqual([expect.objectContaining({ key: 'sandbox', owner: true, result: 100, operator: true })])
    expect(verifiedCurrent(payment, verifies)).toBeUndefined()
    expect(await sb.client.verifyPayment({ merchant: 'sandbox', trackId: result.trackId })).toEqual(result.verify)
  })

  test('failed, with no callback URL and not at a terminal: its own receiver gets the callback, verify stays at 202', async () => {
    const sb = await sandbox()
    const r = await pay(['trigger', 'failed', '--url', sb.url])
    expect(r.code, r.stderr).toBe(0)
    const trackId = /trackId\s+(\S+)/.exec(r.stdout)?.[1]
    expect(trackId).toBeDefined()
    expect(r.stdout).toContain(`checkout  ${sb.url}/pay/${trackId}`)
    expect(r.stdout).toMatch(/callback {2}✔ http:\/\/127\.0\.0\.1:\d+\/callback \(pay trigger's own receiver: --callback-url for yours\) answered HTTP 200 in [\d.]+ ms/)
    expect(r.stdout).toContain('verify    202 (not completed by the customer), amount 10')
    expect(await sb.client.verifyPayment({ merchant: 'sandbox', trackId: trackId! })).toEqual({ result: 202, amount: 10 })
    const [delivery] = await sb.client.listDeliveries({ trackId: trackId! })
    expect(delivery).toMatchObject({ state: 'delivered', body: { trackId, status: 'failed' } })
  })

  test('PAY_CALLBACK_URL stands for --callback-url; --amount and --merchant make the payment', async () => {
    const sb = await sandbox()
    const shop = await sb.client.createMerchant({ key: 'shop_key' })
    const rx = await receiver()
    const r = await pay(['trigger', 'unfinalized', '--amount', '99.9', '--merchant', shop.key, '--url', sb.url, '--json'], { env: { PAY_CALLBACK_URL: rx.url } })
    expect(r.code, r.stderr).toBe(0)
    const result = parsed(r.stdout)
    expect(result).toMatchObject({ merchant: 'shop_key', amount: 99.9, status: 'unfinalized', callback: { url: rx.url, status: 200 }, verify: { result: 203, amount: 99.9 } })
    expect(rx.received[0]!.json).toMatchObject({ trackId: result.trackId, status: 'unfinalized' })
  })

  test.each([
    ['an endpoint answering 500', async () => (await receiver(() => ({ status: 500, body: 'boom' }))).url, { status: 500 }, /the callback was not delivered: .* answered HTTP 500/],
    ['nothing listening', closedPortUrl, { error: expect.stringContaining('ECONNREFUSED') }, /the callback was not delivered: .*ECONNREFUSED/],
  ])('%s: exit 8, the answer in the result and the reason on stderr', async (_, url, answer, reason) => {
    const sb = await sandbox()
    const callbackUrl = await url()
    const r = await pay(['trigger', 'paid', '--callback-url', callbackUrl, '--url', sb.url, '--json'])
    expect(r.code).toBe(8)
    expect(parsed(r.stdout).callback).toMatchObject({ url: callbackUrl, durationMs: expect.any(Number), ...answer })
    expect(r.stderr).toMatch(reason)
  })

  test('a callback delayed past --wait: exit 8 naming the delay, with no attempt', async () => {
    const sb = await sandbox()
    const rx = await receiver()
    const r = await pay(['trigger', 'paid', '--callback-url', rx.url, '--callback', 'delay=1h', '--wait', '300ms', '--url', sb.url, '--json'])
    expect(r.code).toBe(8)
    expect(parsed(r.stdout).callback).toMatchObject({ state: 'pending', fault: 'delay=1h (requested by simulate)' })
    expect(r.stderr).toContain('no attempt to deliver the callback within 300ms (it is delayed 1h on the sandbox clock')
    expect(rx.received).toHaveLength(0)
  })

  test('--callback drop, as simulate takes it: nothing is sent, and that is what was asked (exit 0)', async () => {
    const sb = await sandbox()
    const rx = await receiver()
    const r = await pay(['trigger', 'paid', '--callback-url', rx.url, '--callback', 'drop', '--url', sb.url, '--json'])
    expect(r.code, r.stderr).toBe(0)
    expect(parsed(r.stdout).callback).toMatchObject({ state: 'dropped', fault: 'drop (requested by simulate)' })
    expect(rx.received).toHaveLength(0)
  })

  test('--callback duplicate=3: the first attempt is reported; every copy reaches the receiver', async () => {
    const sb = await sandbox()
    const rx = await receiver()
    const r = await pay(['trigger', 'paid', '--callback-url', rx.url, '--callback', 'duplicate=3', '--url', sb.url, '--json'])
    expect(r.code, r.stderr).toBe(0)
    expect(parsed(r.stdout).callback).toMatchObject({ status: 200, fault: 'duplicate=3 (requested by simulate)' })
    const copies = await rx.waitFor(3)
    expect(new Set(copies.map((c) => c.headers['x-pay-sandbox-delivery'])).size).toBe(1)
  })

  test.each([
    [['trigger', 'paied'], /^unknown outcome "paied": the outcomes are paid, unfinalized, failed, expired; did you mean paid\?$/],
    [['trigger', 'refunded'], /^unknown outcome "refunded": the outcomes are paid, unfinalized, failed, expired$/],
    [['trigger', 'paid', '--callback', 'lose'], /^--callback: callback mode must be send, drop, delay=<duration>/],
    [['trigger', 'paid', '--callback', 'reorder'], /^--callback reorder holds the notification until the payment's next one, and a paid payment has none/],
    [['trigger', 'paid', '--amount', '0'], /^--amount must be a number greater than 0/],
    [['trigger', 'paid', '--wait', 'soon'], /^--wait must be a duration/],
  ])('pay %j: a usage error (exit 2) before anything is created', async (args, message) => {
    const sb = await sandbox()
    const r = await pay([...args, '--url', sb.url, '--json'])
    expect(r.code, r.stderr).toBe(2)
    const { error } = JSON.parse(r.stdout) as { error: { code: string; message: string } }
    expect(error.code).toBe('usage')
    expect(error.message).toMatch(message)
    expect(await sb.client.listPayments()).toEqual([])
  })

  test('an unknown merchant key: create answers 104, exit 4 with the spec answer', async () => {
    const sb = await sandbox()
    const r = await pay(['trigger', 'paid', '--merchant', 'nope', '--url', sb.url, '--json'])
    expect(r.code).toBe(4)
    expect(JSON.parse(r.stdout)).toEqual({ result: 104, message: 'Invalid API key' })
    expect(r.stderr).toContain('create answered result 104 — Invalid API key')
  })

  test('no sandbox: exit 3, before any receiver or payment', async () => {
    const r = await pay(['trigger', 'paid', '--url', 'http://127.0.0.1:9'])
    expect(r.code).toBe(3)
    expect(r.stderr).toContain('no sandbox at http://127.0.0.1:9')
  })

  test('at a terminal: the callback URL is asked for, and a spinner shows while the callback is awaited, gone at the end', async () => {
    const sb = await sandbox()
    // The receiver never answers, so the wait is on screen until the sandbox's callback timeout (5 s).
    const slow = await receiver(() => 'hang')
    const tty = await terminal(['trigger', 'paid', '--url', sb.url, '--wait', '20s'])
    await tty.waitFor(/Callback URL \(Enter: a receiver of pay trigger's own\)/)
    await tty.type(slow.url)
    await tty.enter()
    const waiting = await tty.waitFor(/waiting for the callback to/)
    expect(waiting).toMatch(/[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] \S+ is paid; waiting for the callback to http:\/\/127\.0\.0\.1:\d+\/callback \(up to 20s\)/)
    await slow.waitFor(1)
    // The sandbox gives up on the hanging answer: exit 8, and the spinner is gone.
    const done = await tty.waitFor(/\[exit \d+\]/, 20_000)
    expect(done).toContain('[exit 8]')
    expect(done).toContain('Payment')
    expect(done).not.toMatch(/waiting for the callback/)
  }, 40_000)

  test('at a terminal with nothing given: the outcome is picked from a list, and Enter at the URL sends to its own receiver', async () => {
    const sb = await sandbox()
    const tty = await terminal(['trigger', '--url', sb.url])
    expect(await tty.waitFor(/What does the customer do\?/)).toMatch(/paid[\s\S]*unfinalized[\s\S]*failed[\s\S]*expired/)
    await tty.type('Down')
    await tty.enter()
    await tty.waitFor(/Callback URL/)
    await tty.enter()
    const done = await tty.waitFor(/\[exit \d+\]/)
    expect(done).toContain('[exit 0]')
    expect(done).toMatch(/is now unfinalized/)
    expect(done).toMatch(/pay trigger's own receiver: --callback-url for yours\) answered HTTP 200/)
    const [payment] = await sb.client.listPayments()
    expect(payment).toMatchObject({ status: 'unfinalized', description: 'pay trigger unfinalized' })
  })
})
