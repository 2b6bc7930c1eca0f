import { describe, expect, test } from 'vitest'
import type { Payment } from '../../src/client/index.js'
import { pay, sandbox } from '../helpers.js'

async function created(client: import('../../src/client/index.js').SandboxClient, amount: number, merchant = 'sandbox'): Promise<string> {
  const body = await client.createPayment({ merchant, amount, callbackUrl: 'http://127.0.0.1:9/cb', description: `order ${amount}` })
  if (body.result !== 100) throw new Error(JSON.stringify(body))
  return body.trackId
}

describe('payment list', () => {
  test('a table of payments; --status, --merchant and --limit filter; --json prints only the list', async () => {
    const sb = await sandbox()
    await sb.client.createMerchant({ key: 'shop_2' })
    const a = await created(sb.client, 10)
    const b = await created(sb.client, 20)
    const c = await created(sb.client, 30, 'shop_2')
    await sb.client.simulate(a, { outcome: 'paid' })
    await sb.client.simulate(b, { outcome: 'unfinalized', amount: 19 })

    const table = await pay(['payment', 'list', '--url', sb.url])
    expect(table.code).toBe(0)
    const lines = table.stdout.trim().split('\n')
    expect(lines[0]).toMatch(/^TRACK ID\s+STATUS\s+AMOUNT\s+PAID\s+MERCHANT\s+CREATED\s+DESCRIPTION$/)
    expect(lines.slice(1).map((l) => l.split(/\s+/).slice(0, 2))).toEqual([
      [a, 'paid'],
      [b, 'unfinalized'],
      [c, 'pending'],
    ])

    const ids = async (...args: string[]) => {
      const r = await pay(['payment', 'list', '--url', sb.url, '--json', ...args])
      expect(r.code).toBe(0)
      return (JSON.parse(r.stdout) as { payments: Payment[] }).payments.map((p) => p.trackId)
    }
    expect(await ids('--status', 'paid')).toEqual([a])
    expect(await ids('--merchant', 'shop_2')).toEqual([c])
    expect(await ids('--limit', '2')).toEqual([b, c])
    expect(await ids('--status', 'failed')).toEqual([])

    const bad = await pay(['payment', 'list', '--status', 'lost', '--url', sb.url])
    expect(bad.code).toBe(2)
    expect(bad.stderr).toContain('--status must be one of pending, unfinalized, paid, failed, expired (got "lost")')
    // Only the message: no warning from oclif about a command that "did not parse" (NODE_ENV is test here).
    expect(bad.stderr).not.toMatch(/Warning|UnparsedCommand/)
  })
})

describe('payment show', () => {
  test('fields, state history and callback deliveries; an unknown trackId exits 5', async () => {
    const sb = await sandbox()
    const t = await created(sb.client, 42)
    await sb.client.simulate(t, { outcome: 'unfinalized' })
    await sb.client.simulate(t, { outcome: 'paid' })
    const r = await pay(['payment', 'show', t, '--url', sb.url])
    expect(r.code).toBe(0)
    expect(r.stdout).toMatch(new RegExp(`^Payment ${t}  paid$`, 'm'))
    expect(r.stdout).toMatch(/^\s+amount\s+42$/m)
    expect(r.stdout).toMatch(/^\s+refNumber\s+\S+$/m)
    const history = r.stdout.split('History\n')[1]!.split('\n\n')[0]!.split('\n')
    expect(history.slice(1).map((l) => l.split(/\s+/)[1])).toEqual(['pending', 'unfinalized', 'paid'])
    expect(r.stdout).toContain('Callbacks')

    const json = await pay(['payment', 'show', t, '--url', sb.url, '--json'])
    const shown = JSON.parse(json.stdout) as { payment: Payment; deliveries: unknown[] }
    expect(shown.payment).toEqual((await sb.client.getPayment(t)).payment)
    expect(Array.isArray(shown.deliveries)).toBe(true)

    const missing = await pay(['payment', 'show', 'nope', '--url', sb.url, '--json'])
    expect(missing.code).toBe(5)
    expect(JSON.parse(missing.stdout)).toEqual({ error: { code: 'not_found', message: 'no payment with trackId nope', exit: 5 } })
  })
})

describe('payment wait', () => {
  test('exits 0 when the state is reached, 6 after --timeout, 5 when it can never be reached', async () => {
    const sb = await sandbox()
    const t = await created(sb.client, 5)
    const waiting = pay(['payment', 'wait', t, '--status', 'paid', '--timeout', '15s', '--interval', '50ms', '--url', sb.url, '--json'])
    await new Promise((r) => setTimeout(r, 300))
    await sb.client.simulate(t, { outcome: 'paid' })
    const reached = await waiting
    expect(reached.code).toBe(0)
    expect(JSON.parse(reached.stdout)).toMatchObject({ trackId: t, status: 'paid' })

    const u = await created(sb.client, 6)
    const timedOut = await pay(['payment', 'wait', u, '--status', 'paid', '--timeout', '300ms', '--url', sb.url])
    expect(timedOut.code).toBe(6)
    expect(timedOut.stderr).toContain(`payment ${u} is still pending after 300ms (waiting for paid)`)

    await sb.client.simulate(u, { outcome: 'failed' })
    const never = await pay(['payment', 'wait', u, '--status', 'paid', '--url', sb.url])
    expect(never.code).toBe(5)
    expect(never.stderr).toContain(`payment ${u} is failed and can never become paid`)
    expect((await pay(['payment', 'wait', t, '--status', 'unfinalized', '--url', sb.url])).code).toBe(5)
  })
})
