import { gzipSync } from 'node:zlib'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { RequestError, type RequestErrorKind, SpecResult } from '../../src/domain/outcomes.js'
import { type Sandbox, startSandbox } from '../../src/index.js'
import { type Faults, faultyFs } from '../store/faulty-fs.js'

const json = { 'content-type': 'application/json' }
const valid = JSON.stringify({ merchant: 'sandbox', amount: 1, callbackUrl: 'http://127.0.0.1:9/cb' })

/** Every request error the spec API can answer, one way to cause each. */
const rows: Array<{ name: string; kind: RequestErrorKind; method?: string; path?: string; body?: string | Buffer; headers?: Record<string, string> }> = [
  { name: 'malformed JSON', kind: 'invalidJson', body: '{"merchant": "sandbox",' },
  { name: 'an empty body', kind: 'invalidJson', body: '' },
  { name: 'a body that is not UTF-8', kind: 'invalidJson', body: Buffer.from('{"description":"caf\u00e9"}', 'latin1') },
  { name: 'a JSON array', kind: 'invalidBody', body: '[1,2]' },
  { name: 'JSON null', kind: 'invalidBody', body: 'null' },
  { name: 'mobile sent as a number', kind: 'invalidField', body: JSON.stringify({ ...JSON.parse(valid), mobile: 15550100 }) },
  { name: 'description sent as a number', kind: 'invalidField', body: JSON.stringify({ ...JSON.parse(valid), description: 7 }) },
  { name: 'a URL that does not decode', kind: 'badRequest', path: '/api/v1/request%zz' },
  { name: 'a foreign Host', kind: 'hostNotAllowed', headers: { ...json, host: 'attacker.example' } },
  { name: 'a foreign Origin', kind: 'originNotAllowed', headers: { ...json, origin: 'https://evil.example' } },
  { name: 'Origin: null', kind: 'originNotAllowed', headers: { ...json, origin: 'null' } },
  { name: 'a cross-site POST', kind: 'crossSiteRequest', headers: { ...json, 'sec-fetch-site': 'cross-site' } },
  { name: 'an unknown /api/v1 path', kind: 'notFound', path: '/api/v1/requests' },
  { name: '/api/v1 itself', kind: 'notFound', path: '/api/v1' },
  { name: 'GET on create', kind: 'methodNotAllowed', method: 'GET', path: '/api/v1/request', body: undefined },
  { name: 'DELETE on verify', kind: 'methodNotAllowed', method: 'DELETE', path: '/api/v1/verify', body: undefined },
  { name: 'a body over 1 MB', kind: 'payloadTooLarge', body: JSON.stringify({ description: 'x'.repeat(1024 * 1024) }) },
  { name: 'text/plain', kind: 'unsupportedMediaType', headers: { 'content-type': 'text/plain' } },
  { name: 'gzip', kind: 'unsupportedMediaType', body: gzipSync(valid), headers: { ...json, 'content-encoding': 'gzip' } },
  { name: 'charset latin1', kind: 'unsupportedMediaType', headers: { 'content-type': 'application/json; charset=latin1' } },
]

/** Kinds that cannot happen under /api/v1 (control API only), or only through a bug. */
const elsewhere: RequestErrorKind[] = ['conflict', 'invalidTransition', 'internalError']

describe('under /api/v1 every body carries an integer result; a request error’s is its HTTP status', () => {
  let sb: Sandbox
  const faults: Faults = {}
  beforeAll(async () => {
    sb = await startSandbox({ storeFs: faultyFs(faults) })
  })
  afterAll(() => sb.stop())

  test.each(rows)('$name → $kind', async ({ kind, method = 'POST', path = '/api/v1/request', body = valid, headers = json }) => {
    const res = await sb.client.raw({ method, path, headers, ...(body !== undefined ? { body } : {}) })
    const { statusCode, error } = RequestError[kind]
    expect(res.status).toBe(statusCode)
    expect(res.headers['content-type']).toMatch(/^application\/json/)
    expect(res.json).toEqual({ result: statusCode, statusCode, error, message: expect.any(String) })
    expect(Object.keys(res.json as object)[0]).toBe('result')
    expect((res.json as { message: string }).message.length).toBeGreaterThan(10)
    if (kind === 'methodNotAllowed') expect(res.headers.allow).toBe('POST')
  })

  test('storageUnavailable: a create the disk refuses answers 503 with result 503', async () => {
    faults.write = () => 0
    try {
      const res = await sb.client.raw({ method: 'POST', path: '/api/v1/request', body: valid })
      expect(res.status).toBe(503)
      expect(res.json).toEqual({ result: 503, statusCode: 503, error: 'storage_unavailable', message: expect.stringContaining('nothing was stored') })
    } finally {
      delete faults.write
    }
  })

  test('every row of the table is covered, and no result can be read as a spec code', () => {
    const covered = new Set<RequestErrorKind>([...rows.map((r) => r.kind), 'storageUnavailable', ...elsewhere])
    expect([...covered].sort()).toEqual(Object.keys(RequestError).sort())
    const specCodes: number[] = Object.values(SpecResult)
    for (const { statusCode } of Object.values(RequestError)) {
      expect(Number.isInteger(statusCode)).toBe(true)
      expect(specCodes).not.toContain(statusCode)
    }
  })

  test('outside /api/v1 the shape stays {statusCode, error, message}', async () => {
    for (const [method, path] of [
      ['POST', '/api/v2/request'],
      ['GET', '/_sandbox/payments/nope'],
      ['POST', '/_sandbox/reset'],
    ] as const) {
      const res = await sb.client.raw({ method, path, headers: { 'content-type': 'text/plain' }, body: '{}' })
      expect(Object.keys(res.json as object).sort(), `${method} ${path}`).toEqual(['error', 'message', 'statusCode'])
    }
  })
})
