import { execFile } from 'node:child_process'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { type Sandbox, startSandbox } from '../../src/index.js'
import { receiver, type Receiver } from '../callbacks/receiver.js'
import { pay } from '../helpers.js'

/** Amounts real clients send: float arithmetic, the extremes of a double, and the documented bound. */
const accepted: Array<[string, number]> = [
  ['1 + 0.14', 1 + 0.14],
  ['0.1 + 0.2', 0.1 + 0.2],
  ['1.1 * 3', 1.1 * 3],
  ['0.07 * 100', 0.07 * 100],
  ['0.57 * 100', 0.57 * 100],
  ['a 15-digit price', 123.456789012345],
  ['9 decimals', 0.000000001],
  ['the smallest normal double', 2.2250738585072014e-308],
  ['the smallest double, 5e-324 (subnormal)', Number.MIN_VALUE],
  ['the bound itself, 1e12', 1e12],
  ['just under the bound', 999999999999.9999],
]

/** The JSON text of `field` in a body, exactly as sent. */
function numberText(body: string, field: string): string | undefined {
  return new RegExp(`"${field}":(-?[0-9][0-9.eE+-]*)`).exec(body)?.[1]
}

describe('amounts are any finite JSON number > 0 up to 1e12, answered exactly as sent', () => {
  let sb: Sandbox
  let shop: Receiver
  beforeAll(async () => {
    sb = await startSandbox({ callbacks: { retries: 0, timeoutMs: 2000, scheduleMs: [100] } })
  })
  afterAll(() => sb.stop())

  const create = async (amountText: string) =>
    sb.client.raw({
      method: 'POST',
      path: '/api/v1/request',
      body: `{"merchant":"sandbox","amount":${amountText},"callbackUrl":"${shop.url}/cb"}`,
    })

  test.each(accepted)('%s: verify and the callback carry the same double, in its shortest form', async (_name, amount) => {
    shop = await receiver()
    const sent = JSON.stringify(amount)
    const created = await create(sent)
    expect(created.json, created.text).toMatchObject({ result: 100 })
    const trackId = (created.json as { trackId: string }).trackId
    const verify = () => sb.client.raw({ method: 'POST', path: '/api/v1/verify', body: { merchant: 'sandbox', trackId } })

    const pending = await verify()
    expect(pending.json).toMatchObject({ result: 202 })
    expect(numberText(pending.text, 'amount')).toBe(String(amount))

    await sb.client.simulate(trackId, { outcome: 'paid' })
    const paid = await verify()
    expect(paid.json).toMatchObject({ result: 100 })
    const text = numberText(paid.text, 'amount')!
    expect(text).toBe(String(amount))
    expect(JSON.parse(text)).toBe(amount)

    const [callback] = await shop.waitFor(1)
    expect(numberText(callback!.text, 'amount')).toBe(String(amount))
    expect(numberText(callback!.text, 'paidAmount')).toBe(String(amount))
    expect(JSON.parse(numberText(callback!.text, 'paidAmount')!)).toBe(amount)
  })

  test.each([
    ['0', 105],
    ['-0', 105],
    ['-5e-324', 105],
    ['-1.14', 105],
    ['1000000000000.0001', 105],
    ['1e12', 100],
    ['1000000000001', 105],
    ['1e400', 105],
    ['"1.14"', 105],
    ['"0.30000000000000004"', 105],
  ])('amount %s → %i', async (text, result) => {
    shop = await receiver()
    const res = await create(text)
    expect(res.status).toBe(200)
    expect((res.json as { result: number }).result).toBe(result)
  })

  test('a paid amount computed with floats is kept exactly; above the bound it is refused', async () => {
    shop = await receiver()
    const trackId = ((await create('10')).json as { trackId: string }).trackId
    const paidAmount = 0.1 + 0.2
    const payment = await sb.client.simulate(trackId, { outcome: 'unfinalized', amount: paidAmount })
    expect(payment.paidAmount).toBe(paidAmount)
    const verify = await sb.client.raw({ method: 'POST', path: '/api/v1/verify', body: { merchant: 'sandbox', trackId } })
    expect(verify.json).toMatchObject({ result: 203 })
    expect(numberText(verify.text, 'amount')).toBe('0.30000000000000004')
    const over = await sb.client.raw({ method: 'POST', path: `/_sandbox/payments/${trackId}/simulate`, body: { outcome: 'paid', amount: 1e12 + 1 } })
    expect(over.status).toBe(400)
    expect(over.json).toMatchObject({ error: 'invalid_field' })
  })

  test('a Python merchant (urllib) computing its price with floats sees verify answer the same amount', async () => {
    const script = String.raw`
import json, sys, urllib.request
base = sys.argv[1]
def post(path, body):
    req = urllib.request.Request(base + path, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req) as res:
        return json.loads(res.read())
order = 1 + 0.14
created = post("/api/v1/request", {"merchant": "sandbox", "amount": order, "callbackUrl": "http://127.0.0.1:9/cb"})
assert created["result"] == 100, created
post("/_sandbox/payments/" + created["trackId"] + "/simulate", {"outcome": "paid"})
verified = post("/api/v1/verify", {"merchant": "sandbox", "trackId": created["trackId"]})
print(json.dumps({"delivered": verified["result"] == 100 and verified["amount"] == order, "amount": repr(verified["amount"])}))
`
    const out = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) =>
      execFile('python3', ['-c', script, sb.url], { timeout: 20_000 }, (error, stdout, stderr) =>
        resolve({ code: error ? ((error.code as number) ?? 1) : 0, stdout, stderr }),
      ),
    )
    expect(out.code, out.stderr).toBe(0)
    expect(JSON.parse(out.stdout)).toEqual({ delivered: true, amount: '1.1400000000000001' })
  })

  test('pages round for display: the checkout and the inspector show 1.14, the exact number on hover', async () => {
    shop = await receiver()
    const trackId = ((await create(JSON.stringify(1 + 0.14))).json as { trackId: string }).trackId
    const page = await sb.client.raw({ method: 'GET', path: `/pay/${trackId}`, headers: { accept: 'text/html' } })
    expect(page.text).toMatch(/class="amount">1\.14 </)
    expect(page.text).toContain('0.0000114 BTC')
    expect(page.text).not.toContain('1.1400000000000001')
    for (const path of ['/inspect/payments', `/inspect/payments/${trackId}`]) {
      const inspector = await sb.client.raw({ method: 'GET', path, headers: { accept: 'text/html' } })
      expect(inspector.text, path).toContain('<span title="1.1400000000000001">1.14</span>')
    }
  })

  test('an order worth less than an asset’s smallest unit asks for that unit and says so', async () => {
    shop = await receiver()
    const tiny = ((await create('0.00000001')).json as { trackId: string }).trackId
    const page = (await sb.client.raw({ method: 'GET', path: `/pay/${tiny}`, headers: { accept: 'text/html' } })).text
    expect(page).toContain('Send exactly <strong>0.00000001 BTC</strong>')
    expect(page).toContain('The order is worth less than 0.00000001 BTC, the smallest amount the sandbox asks for in BTC: it rounds up to 0.00000001 BTC.')
    expect(page).toContain('0.00000001 BTC (rounded up)')
    // USDT at 1 USD: 0.00000001 USD is below its 6 decimals too.
    expect(page).toContain('it rounds up to 0.000001 USDT')

    const smallest = ((await create('5e-324')).json as { trackId: string }).trackId
    const subnormal = (await sb.client.raw({ method: 'GET', path: `/pay/${smallest}`, headers: { accept: 'text/html' } })).text
    expect(subnormal).toMatch(/class="amount">&lt; 0\.00000001 </)
    expect(subnormal).toContain('Send exactly <strong>0.00000001 BTC</strong>')

    // An order of one whole unit needs no note.
    const whole = ((await create('25')).json as { trackId: string }).trackId
    const normal = (await sb.client.raw({ method: 'GET', path: `/pay/${whole}`, headers: { accept: 'text/html' } })).text
    expect(normal).not.toContain('rounded up')
    expect(normal).not.toContain('rounds up')
  })

  test('the CLI sends --amount as the double it reads, and its table rounds for display', async () => {
    const env = { PAY_SANDBOX_URL: sb.url }
    const created = await pay(['payment', 'create', '--amount', '1.1400000000000001', '--callback-url', 'http://127.0.0.1:9/cb', '--json'], { env })
    expect(created.code, created.stderr).toBe(0)
    const trackId = (JSON.parse(created.stdout) as { trackId: string }).trackId
    const simulated = await pay(['payment', 'simulate', trackId, '--outcome', 'paid', '--amount', '0.30000000000000004', '--json'], { env })
    expect(simulated.code, simulated.stderr).toBe(0)
    expect(JSON.parse(simulated.stdout)).toMatchObject({ amount: 1 + 0.14, paidAmount: 0.1 + 0.2 })
    const verified = await pay(['payment', 'verify', trackId, '--json'], { env })
    expect(numberText(verified.stdout.replace(/\s/g, ''), 'amount')).toBe('0.30000000000000004')
    const list = await pay(['payment', 'list', '--limit', '1'], { env })
    expect(list.stdout).toMatch(new RegExp(`${trackId}\\s+paid\\s+1\\.14\\s+0\\.3\\s`))
    const tooLarge = await pay(['payment', 'create', '--amount', '1e400', '--callback-url', 'http://127.0.0.1:9/cb'], { env })
    expect(tooLarge.code).toBe(2)
    expect(tooLarge.stderr).toContain('--amount')
  })
})
