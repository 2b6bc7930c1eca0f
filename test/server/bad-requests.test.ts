import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { type Sandbox, startSandbox } from '../../src/index.js'

const rows: Array<{ name: string; method: string; path: string; body?: string; headers?: Record<string, string>; status: number; error: string }> = [
  { name: 'malformed JSON', method: 'POST', path: '/api/v1/request', body: '{"merchant": "sandbox",', status: 400, error: 'invalid_json' },
  { name: 'empty JSON body', method: 'POST', path: '/api/v1/verify', body: '', status: 400, error: 'invalid_json' },
  { name: 'a JSON array', method: 'POST', path: '/api/v1/request', body: '[1,2]', status: 400, error: 'invalid_body' },
  { name: 'a JSON string', method: 'POST', path: '/api/v1/verify', body: '"hello"', status: 400, error: 'invalid_body' },
  { name: 'JSON null', method: 'POST', path: '/api/v1/request', body: 'null', status: 400, error: 'invalid_body' },
  { name: 'text/plain', method: 'POST', path: '/api/v1/request', body: '{}', headers: { 'content-type': 'text/plain' }, status: 415, error: 'unsupported_media_type' },
  { name: 'form encoded', method: 'POST', path: '/api/v1/verify', body: 'merchant=sandbox', headers: { 'content-type': 'application/x-www-form-urlencoded' }, status: 415, error: 'unsupported_media_type' },
  { name: 'body over 1 MB', method: 'POST', path: '/api/v1/request', body: JSON.stringify({ description: 'x'.repeat(1024 * 1024) }), status: 413, error: 'payload_too_large' },
  { name: 'unknown route', method: 'GET', path: '/api/v2/request', status: 404, error: 'not_found' },
  { name: 'wrong method on a spec route', method: 'GET', path: '/api/v1/request', status: 405, error: 'method_not_allowed' },
  { name: 'unknown control route', method: 'DELETE', path: '/_sandbox/everything', status: 404, error: 'not_found' },
  { name: 'simulate with a bad outcome', method: 'POST', path: '/_sandbox/payments/x/simulate', body: '{"outcome": "refunded"}', status: 400, error: 'invalid_body' },
  { name: 'simulate an unknown payment', method: 'POST', path: '/_sandbox/payments/x/simulate', body: '{"outcome": "paid"}', status: 404, error: 'not_found' },
  { name: 'merchant with a bad key', method: 'POST', path: '/_sandbox/merchants', body: '{"key": "has spaces"}', status: 400, error: 'invalid_field' },
  { name: 'a duplicate merchant', method: 'POST', path: '/_sandbox/merchants', body: '{"key": "sandbox"}', status: 409, error: 'conflict' },
  { name: 'enable an unknown merchant', method: 'POST', path: '/_sandbox/merchants/nobody/enable', body: '{}', status: 404, error: 'not_found' },
]

describe('requests the spec defines no code for get a 4xx JSON error (with result under /api/v1)', () => {
  let sb: Sandbox
  beforeAll(async () => {
    sb = await startSandbox()
  })
  afterAll(() => sb.stop())

  test.each(rows)('$name → $status $error', async ({ method, path, body, headers, status, error }) => {
    const res = await sb.client.raw({ method, path, ...(body !== undefined ? { body } : {}), ...(headers ? { headers } : {}) })
    expect(res.status).toBe(status)
    expect(res.headers['content-type']).toMatch(/^application\/json/)
    const json = res.json as { statusCode: number; error: string; message: string }
    expect(json).toEqual({ ...(path.startsWith('/api/v1/') ? { result: status } : {}), statusCode: status, error, message: expect.any(String) })
    expect(json.message.length).toBeGreaterThan(5)
    expect(res.text).not.toMatch(/at .*\.(js|ts):\d+/)
  })

  test('the server keeps serving after bad requests, and stored nothing', async () => {
    for (const row of rows) await sb.client.raw({ method: row.method, path: row.path, ...(row.body !== undefined ? { body: row.body } : {}) })
    const health = await sb.client.health()
    expect(health.counts.payments).toBe(0)
    const res = await sb.client.createPayment({ merchant: 'sandbox', amount: 1, callbackUrl: 'http://localhost/cb' })
    expect(res.result).toBe(100)
  })
})

describe('a route that takes no query string answers as if none was sent', () => {
  let sb: Sandbox
  beforeAll(async () => {
    sb = await startSandbox()
  })
  afterAll(() => sb.stop())

  test.each(['?x=1', '?__proto__=1&constructor=2', '?a=1&a=2&b[]=3', '?=&&=x', `?${'k'.repeat(2000)}=1`])('GET /_sandbox/merchants%s', async (query) => {
    const plain = await sb.client.raw({ method: 'GET', path: '/_sandbox/merchants' })
    const res = await sb.client.raw({ method: 'GET', path: `/_sandbox/merchants${query}` })
    expect(plain.status).toBe(200)
    expect(res.status).toBe(200)
    expect(res.json).toEqual(plain.json)
    const health = await sb.client.raw({ method: 'GET', path: `/_sandbox/health${query}` })
    expect(health.status).toBe(200)
    expect((health.json as { ok: boolean }).ok).toBe(true)
  })
})
