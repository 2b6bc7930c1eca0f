import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { type Sandbox, startSandbox } from '../../src/index.js'

const URL_PREFIX = 'https://merchant.example/'
const urlOf = (length: number) => URL_PREFIX + 'a'.repeat(length - URL_PREFIX.length)
const valid = { merchant: 'sandbox', amount: 10, callbackUrl: 'https://merchant.example/callback' }

const messages: Record<number, string> = {
  103: 'Merchant account is disabled',
  104: 'Invalid API key',
  105: 'Amount is missing or invalid',
  106: 'Callback URL is missing or invalid',
  107: 'Invalid return URL',
  108: 'Description is too long',
  109: 'Mobile number is too long',
}

/** Each row: what is changed from a valid body, and the spec result expected. */
const rows: Array<{ name: string; change: Record<string, unknown>; result: number }> = [
  { name: 'a valid minimal request', change: {}, result: 100 },
  { name: 'all optional fields', change: { returnUrl: 'http://localhost:3000/thanks', description: 'Order #1', mobile: '+15550100' }, result: 100 },
  // merchant key first: 104, then 103
  { name: 'merchant missing', change: { merchant: undefined }, result: 104 },
  { name: 'merchant empty', change: { merchant: '' }, result: 104 },
  { name: 'merchant unknown', change: { merchant: 'nope' }, result: 104 },
  { name: 'merchant not a string', change: { merchant: 42 }, result: 104 },
  { name: 'merchant key differing in case', change: { merchant: 'SANDBOX' }, result: 104 },
  { name: 'merchant disabled', change: { merchant: 'disabled-shop' }, result: 103 },
  // amount
  { name: 'amount missing', change: { amount: undefined }, result: 105 },
  { name: 'amount null', change: { amount: null }, result: 105 },
  { name: 'amount 0', change: { amount: 0 }, result: 105 },
  { name: 'amount negative', change: { amount: -1 }, result: 105 },
  { name: 'amount numeric string', change: { amount: '10' }, result: 105 },
  { name: 'amount text', change: { amount: 'ten' }, result: 105 },
  { name: 'amount boolean', change: { amount: true }, result: 105 },
  { name: 'amount object', change: { amount: { value: 10 } }, result: 105 },
  { name: 'amount smallest step 0.00000001', change: { amount: 0.00000001 }, result: 100 },
  { name: 'amount with 9 decimals', change: { amount: 0.000000001 }, result: 100 },
  { name: 'amount computed with floats (1 + 0.14)', change: { amount: 1 + 0.14 }, result: 100 },
  { name: 'amount decimal', change: { amount: 10.25 }, result: 100 },
  { name: 'amount at the upper bound 1e12', change: { amount: 1e12 }, result: 100 },
  { name: 'amount above the upper bound', change: { amount: 1e12 + 1 }, result: 105 },
  // callbackUrl
  { name: 'callbackUrl missing', change: { callbackUrl: undefined }, result: 106 },
  { name: 'callbackUrl empty', change: { callbackUrl: '' }, result: 106 },
  { name: 'callbackUrl not a URL', change: { callbackUrl: 'merchant.example/cb' }, result: 106 },
  { name: 'callbackUrl ftp', change: { callbackUrl: 'ftp://merchant.example/cb' }, result: 106 },
  { name: 'callbackUrl javascript:', change: { callbackUrl: 'javascript:alert(1)' }, result: 106 },
  { name: 'callbackUrl with spaces', change: { callbackUrl: 'https://merchant.example/a b' }, result: 106 },
  { name: 'callbackUrl not a string', change: { callbackUrl: 7 }, result: 106 },
  { name: 'callbackUrl http localhost', change: { callbackUrl: 'http://localhost:3000/cb' }, result: 100 },
  { name: 'callbackUrl of 512 characters', change: { callbackUrl: urlOf(512) }, result: 100 },
  { name: 'callbackUrl of 513 characters', change: { callbackUrl: urlOf(513) }, result: 106 },
  // returnUrl
  { name: 'returnUrl null (not given)', change: { returnUrl: null }, result: 100 },
  { name: 'returnUrl of 512 characters', change: { returnUrl: urlOf(512) }, result: 100 },
  { name: 'returnUrl of 513 characters', change: { returnUrl: urlOf(513) }, result: 107 },
  { name: 'returnUrl empty', change: { returnUrl: '' }, result: 107 },
  { name: 'returnUrl not a URL', change: { returnUrl: 'thanks' }, result: 107 },
  { name: 'returnUrl not a string', change: { returnUrl: 1 }, result: 107 },
  // description
  { name: 'description empty', change: { description: '' }, result: 100 },
  { name: 'description of 1000 characters', change: { description: 'd'.repeat(1000) }, result: 100 },
  { name: 'description of 1001 characters', change: { description: 'd'.repeat(1001) }, result: 108 },
  { name: 'description of 1000 emoji (characters, not UTF-16 units)', change: { description: '😀'.repeat(1000) }, result: 100 },
  { name: 'description of 1001 emoji', change: { description: '😀'.repeat(1001) }, result: 108 },
  // mobile
  { name: 'mobile of 50 characters', change: { mobile: '1'.repeat(50) }, result: 100 },
  { name: 'mobile of 51 characters', change: { mobile: '1'.repeat(51) }, result: 109 },
  // order when several fail at once
  { name: 'unknown key and bad amount → key first', change: { merchant: 'nope', amount: 0 }, result: 104 },
  { name: 'disabled merchant and bad amount → 103', change: { merchant: 'disabled-shop', amount: 0 }, result: 103 },
  { name: 'bad amount and bad callbackUrl → amount first', change: { amount: 0, callbackUrl: 'x' }, result: 105 },
  { name: 'bad callbackUrl and bad returnUrl → callbackUrl first', change: { callbackUrl: 'x', returnUrl: 'y' }, result: 106 },
  { name: 'bad returnUrl and long description → returnUrl first', change: { returnUrl: 'y', description: 'd'.repeat(1001) }, result: 107 },
  { name: 'long description and long mobile → description first', change: { description: 'd'.repeat(1001), mobile: '1'.repeat(51) }, result: 108 },
]

describe('POST /api/v1/request', () => {
  let sb: Sandbox
  beforeAll(async () => {
    sb = await startSandbox()
    await sb.client.createMerchant({ key: 'disabled-shop', name: 'Disabled shop' })
    await sb.client.setMerchantEnabled('disabled-shop', false)
  })
  afterAll(() => sb.stop())

  test.each(rows)('$name → $result', async ({ change, result }) => {
    const body: Record<string, unknown> = { ...valid, ...change }
    for (const k of Object.keys(body)) if (body[k] === undefined) delete body[k]
    const before = (await sb.client.health()).counts.payments
    const res = await sb.client.raw({ method: 'POST', path: '/api/v1/request', body })
    expect(res.status).toBe(200)
    expect(res.headers['content-type']).toMatch(/^application\/json/)
    const after = (await sb.client.health()).counts.payments
    if (result === 100) {
      const json = res.json as { result: number; trackId: string; message: string }
      expect(Object.keys(json).sort()).toEqual(['message', 'result', 'trackId'])
      expect(json.result).toBe(100)
      expect(json.message).toBe('success')
      expect(json.trackId).toMatch(/^[A-Za-z0-9_-]{22}$/)
      expect(after).toBe(before + 1)
    } else {
      expect(res.json).toEqual({ result, message: messages[result] })
      expect(after).toBe(before)
    }
  })

  test('trackIds are unique and stored with the request as sent', async () => {
    const ids = new Set<string>()
    for (let i = 0; i < 50; i++) {
      const body = await sb.client.createPayment({ ...valid, amount: i + 1, description: `order ${i}` })
      if (body.result !== 100) throw new Error(`create failed: ${JSON.stringify(body)}`)
      ids.add(body.trackId)
    }
    expect(ids.size).toBe(50)
    const [first] = ids
    const { payment } = await sb.client.getPayment(first!)
    expect(payment).toMatchObject({ amount: 1, description: 'order 0', merchant: 'sandbox', status: 'pending' })
  })

  test('a description or mobile that is not a string is a 400 naming the field', async () => {
    for (const field of ['description', 'mobile']) {
      const res = await sb.client.raw({ method: 'POST', path: '/api/v1/request', body: { ...valid, [field]: 12 } })
      expect(res.status).toBe(400)
      expect(res.json).toEqual({ result: 400, statusCode: 400, error: 'invalid_field', message: `${field} must be a string (got a number)` })
    }
  })

  test('__proto__ and constructor keys are dropped, then the spec rules apply', async () => {
    const before = (await sb.client.health()).counts.payments
    const raw = '{"__proto__": {"merchant": "sandbox"}, "constructor": {"prototype": {"amount": 1}}, "amount": 5, "callbackUrl": "http://localhost/cb"}'
    const res = await sb.client.raw({ method: 'POST', path: '/api/v1/request', body: raw })
    expect(res.status).toBe(200)
    expect(res.json).toEqual({ result: 104, message: 'Invalid API key' })
    expect((await sb.client.health()).counts.payments).toBe(before)
  })

  test('unknown extra fields are ignored', async () => {
    const res = await sb.client.raw({ method: 'POST', path: '/api/v1/request', body: { ...valid, orderId: 'A1', extra: { x: 1 } } })
    expect((res.json as { result: number }).result).toBe(100)
  })
})
