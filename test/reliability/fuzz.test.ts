import fc from 'fast-check'
import { expect, test } from 'vitest'
import type { RawResponse } from '../../src/client/index.js'
import { sandbox } from '../helpers.js'

const CREATE_RESULTS = [100, 103, 104, 105, 106, 107, 108, 109]
const VERIFY_RESULTS = [100, 202, 203, 103, 104]
const FIELDS = ['merchant', 'amount', 'callbackUrl', 'returnUrl', 'description', 'mobile', 'trackId']
const HOSTILE_KEYS = ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'valueOf']

const numbers = fc.oneof(
  fc.double(),
  fc.integer(),
  fc.constantFrom(0, -0, 1e-324, 5e-324, 1e-9, 0.1 + 0.2, 1e12, 1e12 + 1, 1e21, 1e308, Number.MAX_SAFE_INTEGER + 2, -1),
)
const numericStrings = fc.constantFrom('10', '10.5', '1e3', '0x10', ' 5 ', '5 ', '-1', 'NaN', 'Infinity', '1_000', '٣', '10,5', '')
const urls = fc.oneof(
  fc.webUrl(),
  fc.constantFrom('http://127.0.0.1:9/cb', 'javascript:alert(1)', 'http://', 'ftp://x.example/', `https://e.example/${'a'.repeat(520)}`, 'http://exa mple.com/'),
)
const unicode = fc.string({ unit: 'binary', maxLength: 60 })
const values: fc.Arbitrary<unknown> = fc.oneof(
  numbers,
  numericStrings,
  urls,
  unicode,
  fc.constant('sandbox'),
  fc.constantFrom(null, true, false),
  fc.string({ minLength: 990, maxLength: 1010 }),
  fc.jsonValue({ maxDepth: 3 }),
  fc.constant({ polluted: 'yes' }),
)
const keys = fc.oneof(fc.constantFrom(...FIELDS), fc.constantFrom(...HOSTILE_KEYS), fc.string({ maxLength: 8 }))

/** A JSON object as text, so keys like `__proto__` reach the server as written. */
const objectText = (base: Record<string, unknown>) =>
  fc.array(fc.tuple(keys, values), { maxLength: 8 }).map((entries) => {
    const all: Array<[string, unknown]> = [...Object.entries(base), ...entries]
    return `{${all.map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v) ?? 'null'}`).join(',')}}`
  })

const rawBodies = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.constantFrom('', '{', '{"merchant":', '[]', '[{"merchant":"sandbox"}]', 'null', '42', '"text"', '{"a":1}}', '{"merchant":"sandbox",}', '\u0000', '{"amount":1e999999}'),
  fc.jsonValue().map((v) => JSON.stringify(v) ?? 'null'),
)

/** Valid base fields, so the fuzzed ones are reached past the API key check most of the time. */
const createBase = fc.oneof(
  fc.constant({}),
  fc.constant({ merchant: 'sandbox' }),
  fc.constant({ merchant: 'sandbox', amount: 10, callbackUrl: 'http://127.0.0.1:9/cb' }),
)

function expectDefined(res: RawResponse, results: number[]): number | undefined {
  expect(res.status, res.text).toBeLessThan(500)
  expect(res.headers['content-type']).toMatch(/^application\/json/)
  expect(res.text).not.toMatch(/\bat .+\.(js|ts):\d+|node_modules|"stack"/)
  const body = res.json as Record<string, unknown>
  expect(body, res.text).toBeTypeOf('object')
  if (res.status === 200) {
    expect(results, res.text).toContain(body.result)
    return body.result as number
  }
  expect(res.status).toBeGreaterThanOrEqual(400)
  // Every body of the spec API carries an integer result; a request error's is its HTTP status.
  expect(body, res.text).toEqual({ result: res.status, statusCode: res.status, error: expect.stringMatching(/^[a-z_]+$/), message: expect.any(String) })
  return undefined
}

test('fuzzed create bodies over HTTP: never a 5xx, always a defined result or 4xx shape, nothing stored on failure', async () => {
  const sb = await sandbox()
  let stored = (await sb.client.health()).counts.payments
  const seen = new Set<number | string>()
  await fc.assert(
    fc.asyncProperty(fc.oneof({ weight: 4, arbitrary: createBase.chain(objectText) }, { weight: 1, arbitrary: rawBodies }), async (text) => {
      const res = await sb.client.raw({ method: 'POST', path: '/api/v1/request', body: text, timeoutMs: 5000 })
      const result = expectDefined(res, CREATE_RESULTS)
      seen.add(result ?? res.status)
      const now = (await sb.client.health()).counts.payments
      if (result === 100) {
        const { trackId } = res.json as { trackId: string }
        const sent = JSON.parse(text) as { amount: number }
        expect(await sb.client.verifyPayment({ merchant: 'sandbox', trackId })).toEqual({ result: 202, amount: sent.amount })
        expect(now).toBe(stored + 1)
      } else {
        expect(now, `stored after ${text}`).toBe(stored)
      }
      stored = now
    }),
    { numRuns: 400 },
  )
  // The generators reach success, the field checks and request errors alike.
  for (const expected of [100, 104, 105, 106, 400]) expect(seen).toContain(expected)
  expect(({} as Record<string, unknown>).polluted).toBeUndefined()
  expect((await sb.client.health()).ok).toBe(true)
}, 60_000)

test('fuzzed verify bodies over HTTP: never a 5xx, always a defined result or 4xx shape', async () => {
  const sb = await sandbox()
  const created = await sb.client.createPayment({ merchant: 'sandbox', amount: 12.5, callbackUrl: 'http://127.0.0.1:9/cb' })
  if (created.result !== 100) throw new Error(JSON.stringify(created))
  const base = fc.oneof(
    fc.constant({}),
    fc.constant({ merchant: 'sandbox' }),
    fc.constant({ merchant: 'sandbox', trackId: created.trackId }),
    fc.constant({ trackId: created.trackId }),
  )
  const seen = new Set<number | string>()
  await fc.assert(
    fc.asyncProperty(fc.oneof({ weight: 4, arbitrary: base.chain(objectText) }, { weight: 1, arbitrary: rawBodies }), async (text) => {
      const res = await sb.client.raw({ method: 'POST', path: '/api/v1/verify', body: text, timeoutMs: 5000 })
      seen.add(expectDefined(res, VERIFY_RESULTS) ?? res.status)
    }),
    { numRuns: 400 },
  )
  for (const expected of [202, 203, 104, 400]) expect(seen).toContain(expected)
  expect(({} as Record<string, unknown>).polluted).toBeUndefined()
  expect(await sb.client.verifyPayment({ merchant: 'sandbox', trackId: created.trackId })).toEqual({ result: 202, amount: 12.5 })
}, 60_000)
