import { describe, expect, test } from 'vitest'
import type { Payment } from '../../src/client/index.js'
import { sandbox } from '../helpers.js'
import { terminal } from './tty.js'

describe('prompts at a terminal', () => {
  test('payment create asks for a missing --amount, and creates the payment with the answer', async () => {
    const sb = await sandbox()
    const tty = await terminal(['payment', 'create', '--url', sb.url, '--callback-url', 'http://127.0.0.1:9/cb'])
    await tty.waitFor(/Amount/)
    await tty.type('12.5')
    await tty.enter()
    const done = await tty.waitFor(/\[exit \d+\]/)
    expect(done).toContain('[exit 0]')
    expect(done).toContain('Payment created')
    const trackId = /trackId\s+(\S+)/.exec(done)?.[1]
    expect(trackId).toBeDefined()
    const { payment } = await sb.client.getPayment(trackId!)
    expect(payment).toMatchObject<Partial<Payment>>({ amount: 12.5, callbackUrl: 'http://127.0.0.1:9/cb' })
  })

  test('with CI set, nothing is asked even at a terminal: a usage error naming the flag', async () => {
    const sb = await sandbox()
    const tty = await terminal(['payment', 'create', '--url', sb.url, '--callback-url', 'http://127.0.0.1:9/cb'], { CI: 'true' })
    const done = await tty.waitFor(/\[exit \d+\]/)
    expect(done).toContain('missing required flag --amount')
    expect(done).toContain('[exit 2]')
    expect(await sb.client.listPayments()).toEqual([])
  })

  test('payment simulate without --outcome offers the outcomes; arrow keys pick one', async () => {
    const sb = await sandbox()
    const body = await sb.client.createPayment({ merchant: 'sandbox', amount: 4, callbackUrl: 'http://127.0.0.1:9/cb' })
    if (body.result !== 100) throw new Error(JSON.stringify(body))
    const tty = await terminal(['payment', 'simulate', body.trackId, '--url', sb.url])
    const menu = await tty.waitFor(/What does the customer do\?/)
    expect(menu).toMatch(/paid[\s\S]*unfinalized[\s\S]*failed/)
    await tty.type('Down')
    await tty.enter()
    const done = await tty.waitFor(/\[exit \d+\]/)
    expect(done).toContain('[exit 0]')
    expect((await sb.client.getPayment(body.trackId)).payment.status).toBe('unfinalized')
  })

  test('sandbox reset asks first; answering no changes nothing', async () => {
    const sb = await sandbox()
    const body = await sb.client.createPayment({ merchant: 'sandbox', amount: 1, callbackUrl: 'http://127.0.0.1:9/cb' })
    expect(body.result).toBe(100)
    const tty = await terminal(['sandbox', 'reset', '--url', sb.url])
    await tty.waitFor(/Delete all 1 payments and 0 deliveries at .*Merchants are kept/)
    await tty.type('n')
    await tty.enter()
    const done = await tty.waitFor(/\[exit \d+\]/)
    expect(done).toContain('cancelled; nothing was changed')
    expect(done).toContain('[exit 1]')
    expect((await sb.client.health()).counts.payments).toBe(1)
  })

  test('a mistyped flag names the closest one at a terminal too, and exits 2', async () => {
    const tty = await terminal(['payment', 'create', '--amout', '5', '--url', 'http://127.0.0.1:9'])
    const done = await tty.waitFor(/\[exit \d+\]/)
    expect(done).toContain('unknown flag --amout (did you mean --amount?)')
    expect(done).toContain('[exit 2]')
  })

  test('a mistyped command offers the closest one', async () => {
    const tty = await terminal(['paymnt', 'list', '--url', 'http://127.0.0.1:9'])
    await tty.waitFor(/Did you mean payment list\?/)
    await tty.type('n')
    await tty.enter()
    expect(await tty.waitFor(/\[exit \d+\]/)).toContain('[exit 127]')
  })
})
