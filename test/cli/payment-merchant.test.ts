import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { type Sandbox, startSandbox } from '../../src/index.js'
import { pay } from '../helpers.js'

describe('pay payment / pay merchant against a running sandbox', () => {
  let sb: Sandbox
  let env: Record<string, string>
  beforeAll(async () => {
    sb = await startSandbox()
    env = { PAY_SANDBOX_URL: sb.url }
  })
  afterAll(() => sb.stop())

  const createTrackId = async (extra: string[] = []) => {
    const r = await pay(['payment', 'create', '--amount', '12.5', '--callback-url', 'http://localhost:3000/cb', '--json', ...extra], { env })
    expect(r.code, r.stderr).toBe(0)
    return (JSON.parse(r.stdout) as { trackId: string }).trackId
  }

  test('create prints the trackId and checkout URL; --json prints only the result', async () => {
    const human = await pay(['payment', 'create', '--amount', '10', '--callback-url', 'http://localhost:3000/cb'], { env })
    expect(human.code).toBe(0)
    expect(human.stdout).toMatch(/Payment created/)
    expect(human.stdout).toMatch(new RegExp(`checkout\\s+${sb.url}/pay/[A-Za-z0-9_-]{22}`))
    const json = await pay(['payment', 'create', '--amount', '10', '--callback-url', 'http://localhost:3000/cb', '--json'], { env })
    const body = JSON.parse(json.stdout) as Record<string, unknown>
    expect(body).toEqual({ result: 100, trackId: expect.any(String), message: 'success', checkoutUrl: `${sb.url}/pay/${body.trackId as string}` })
  })

  test('a spec failure prints its code and message and exits 4', async () => {
    const r = await pay(['payment', 'create', '--amount', '0', '--callback-url', 'http://localhost/cb'], { env })
    expect(r.code).toBe(4)
    expect(r.stderr).toContain('result 105 — Amount is missing or invalid')
    const j = await pay(['payment', 'create', '--amount', '5', '--callback-url', 'nope', '--json'], { env })
    expect(j.code).toBe(4)
    expect(JSON.parse(j.stdout)).toEqual({ result: 106, message: 'Callback URL is missing or invalid' })
    const k = await pay(['payment', 'create', '--amount', '5', '--callback-url', 'http://localhost/cb', '--merchant', 'wrong'], { env })
    expect(k.code).toBe(4)
    expect(k.stderr).toContain('result 104 — Invalid API key')
  })

  test('a missing required value with no TTY exits 2 naming the flag', async () => {
    const r = await pay(['payment', 'create', '--callback-url', 'http://localhost/cb'], { env })
    expect(r.code).toBe(2)
    expect(r.stderr).toContain('missing required flag --amount')
    const s = await pay(['payment', 'create', '--amount', '3'], { env })
    expect(s.code).toBe(2)
    expect(s.stderr).toContain('missing required flag --callback-url')
    const t = await pay(['payment', 'create', '--amount', 'ten', '--callback-url', 'http://localhost/cb'], { env })
    expect(t.code).toBe(2)
    expect(t.stderr).toContain('--amount must be a number, e.g. 25.5 (got "ten")')
  })

  test('simulate moves the payment and verify shows each state; --amount changes the amount paid', async () => {
    const trackId = await createTrackId()
    const pending = await pay(['payment', 'verify', trackId, '--json'], { env })
    expect(JSON.parse(pending.stdout)).toEqual({ result: 202, amount: 12.5 })
    expect(pending.code).toBe(0)

    const u = await pay(['payment', 'simulate', trackId, '--outcome', 'unfinalized'], { env })
    expect(u.code, u.stderr).toBe(0)
    expect(u.stdout).toContain(`Payment ${trackId} is now unfinalized`)
    expect(JSON.parse((await pay(['payment', 'verify', trackId, '--json'], { env })).stdout)).toEqual({ result: 203, amount: 12.5 })

    const p = await pay(['payment', 'simulate', trackId, '--outcome', 'paid', '--amount', '12', '--json'], { env })
    expect(JSON.parse(p.stdout)).toMatchObject({ trackId, status: 'paid', paidAmount: 12, refNumber: expect.stringMatching(/^\d{12}$/) })
    const v = await pay(['payment', 'verify', trackId], { env })
    expect(v.stdout).toMatch(/result\s+100 \(paid and verified\)/)
    expect(v.stdout).toMatch(/amount\s+12\n/)
  })

  test('simulate on a final payment exits 5 with the reason; an unknown trackId exits 5', async () => {
    const trackId = await createTrackId()
    await pay(['payment', 'simulate', trackId, '--outcome', 'failed'], { env })
    const r = await pay(['payment', 'simulate', trackId, '--outcome', 'paid'], { env })
    expect(r.code).toBe(5)
    expect(r.stderr).toContain('is failed, a final state; it cannot become paid')
    const u = await pay(['payment', 'simulate', 'nope', '--outcome', 'paid', '--json'], { env })
    expect(u.code).toBe(5)
    expect(JSON.parse(u.stdout)).toEqual({ error: { code: 'not_found', message: 'no payment with trackId nope', exit: 5 } })
    const bad = await pay(['payment', 'simulate', trackId, '--outcome', 'refunded'], { env })
    expect(bad.code).toBe(2)
    expect(bad.stderr).toContain('--outcome must be one of paid, unfinalized, failed, expired (got "refunded")')
  })

  test('verify: failure answers exit 4; --expect exits 0 on a match and 6 otherwise', async () => {
    const trackId = await createTrackId()
    const unknown = await pay(['payment', 'verify', 'nope'], { env })
    expect(unknown.code).toBe(4)
    expect(unknown.stderr).toContain('verify answered result 203 — Invalid track ID')
    expect(unknown.stdout).toBe('')
    expect((await pay(['payment', 'verify', trackId, '--expect', '202'], { env })).code).toBe(0)
    const miss = await pay(['payment', 'verify', trackId, '--expect', '100'], { env })
    expect(miss.code).toBe(6)
    expect(miss.stderr).toContain('expected result 100, got result 202 — not completed by the customer')
  })

  test('merchants: create, list, disable (103), enable', async () => {
    const c = await pay(['merchant', 'create', '--key', 'cli-shop', '--name', 'CLI Shop', '--json'], { env })
    expect(c.code, c.stderr).toBe(0)
    expect(JSON.parse(c.stdout)).toMatchObject({ key: 'cli-shop', name: 'CLI Shop', enabled: true })
    // Each step's commands at once where they do not depend on one another.
    const [dup, generated, trackId, missing] = await Promise.all([
      pay(['merchant', 'create', '--key', 'cli-shop'], { env }),
      pay(['merchant', 'create', '--json'], { env }),
      createTrackId(['--merchant', 'cli-shop']),
      pay(['merchant', 'disable', 'nobody'], { env }),
    ])
    expect(dup.code).toBe(5)
    expect(dup.stderr).toContain('a merchant with key cli-shop already exists')
    expect((JSON.parse(generated.stdout) as { key: string }).key).toMatch(/^sandbox_[A-Za-z0-9_-]{16}$/)
    expect(missing.code).toBe(5)
    expect(missing.stderr).toContain('no merchant with key nobody')

    expect((await pay(['merchant', 'disable', 'cli-shop'], { env })).stdout).toContain('Merchant cli-shop is disabled')
    const [list, v, created] = await Promise.all([
      pay(['merchant', 'list'], { env }),
      pay(['payment', 'verify', trackId, '--merchant', 'cli-shop', '--json'], { env }),
      pay(['payment', 'create', '--amount', '1', '--callback-url', 'http://localhost/cb', '--merchant', 'cli-shop'], { env }),
    ])
    expect(list.stdout).toMatch(/cli-shop\s+CLI Shop\s+disabled/)
    expect(list.stdout).toMatch(/sandbox\s+Sandbox merchant\s+enabled/)
    expect(JSON.parse(v.stdout)).toEqual({ result: 103, message: 'Merchant account is disabled' })
    expect(created.code).toBe(4)
    await pay(['merchant', 'enable', 'cli-shop'], { env })
    expect(JSON.parse((await pay(['payment', 'verify', trackId, '--merchant', 'cli-shop', '--json'], { env })).stdout).result).toBe(202)
  })

  test('PAY_MERCHANT_KEY picks the merchant', async () => {
    const r = await pay(['payment', 'create', '--amount', '1', '--callback-url', 'http://localhost/cb'], { env: { ...env, PAY_MERCHANT_KEY: 'absent' } })
    expect(r.code).toBe(4)
    expect(r.stderr).toContain('Invalid API key')
  })
})

describe('with no sandbox running', () => {
  test('client commands say where they looked and exit 3', async () => {
    const env = { PAY_SANDBOX_URL: 'http://127.0.0.1:9' }
    for (const args of [['sandbox', 'status'], ['payment', 'verify', 'x'], ['merchant', 'list']]) {
      const r = await pay(args, { env })
      expect(r.code).toBe(3)
      expect(r.stderr).toContain('no sandbox at http://127.0.0.1:9')
      expect(r.stderr).toContain('start one with `pay sandbox start`')
      expect(r.stdout).toBe('')
    }
  })
})
