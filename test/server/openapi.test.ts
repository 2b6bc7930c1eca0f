import { validate } from '@readme/openapi-parser'
import { expect, test } from 'vitest'
import { failures, RequestError, SpecMessage } from '../../src/domain/outcomes.js'
import { MAX_AMOUNT } from '../../src/domain/payment.js'
import { LIMITS } from '../../src/domain/validate.js'
import { routesOf } from '../../src/openapi/install.js'
import { sandbox } from '../helpers.js'

interface Doc {
  openapi: string
  info: { description: string }
  paths: Record<string, Record<string, { tags?: string[]; requestBody?: unknown; responses: Record<string, { description: string; content?: Record<string, { schema: Record<string, unknown> }> }> }>>
}

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH'])

test('every route has its schemas: params where the path has some, a query for GET, a body for POST, answers with the error shape', async () => {
  const sb = await sandbox()
  const missing: string[] = []
  const exempt: string[] = []
  for (const route of routesOf(sb.server.app)) {
    const methods = [route.method].flat()
    if (methods.every((m) => m === 'HEAD')) continue
    const name = `${methods.join(',')} ${route.url}`
    if (route.config?.undocumented !== undefined) {
      exempt.push(`${name}: ${route.config.undocumented}`)
      continue
    }
    const schema = (route.schema ?? {}) as Record<string, unknown>
    if (/[:*]/.test(route.url) && !schema.params) missing.push(`${name}: params`)
    if (methods.includes('GET') && !schema.querystring) missing.push(`${name}: querystring`)
    if (methods.some((m) => BODY_METHODS.has(m)) && !schema.body) missing.push(`${name}: body`)
    const response = (schema.response ?? {}) as Record<string, Record<string, unknown>>
    const statuses = Object.keys(response).map(Number)
    if (!statuses.some((s) => s < 400)) missing.push(`${name}: a success answer`)
    if (!statuses.includes(403) || !statuses.includes(500)) missing.push(`${name}: the guard's 403 and the 500`)
    for (const status of statuses.filter((s) => s >= 400)) {
      // A page route answers the guard's refusals (and an unknown payment) with a page.
      if (route.config?.page && (response[status]?.content as Record<string, unknown> | undefined)?.['text/html']) continue
      const shape = route.url.startsWith('/api/v1/') ? 'SpecRequestError#' : 'RequestError#'
      if (response[status]?.$ref !== shape) missing.push(`${name}: ${status} in the error shape ${shape}`)
    }
  }
  expect(missing).toEqual([])
  // Left out on purpose, each for its reason: Telegram's own API, and the 405s of the spec paths.
  expect(exempt.map((e) => e.split(':')[0]).sort()).toEqual([
    'GET,HEAD,PUT,DELETE,PATCH,OPTIONS /api/v1/request',
    'GET,HEAD,PUT,DELETE,PATCH,OPTIONS /api/v1/verify',
    'GET,POST /bot*',
    'GET,POST /telegram',
    'GET,POST /telegram/*',
  ])
})

test('/openapi.json is a valid OpenAPI 3.1 document of the spec and control APIs, without the Bot API', async () => {
  const sb = await sandbox()
  const res = await fetch(`${sb.url}/openapi.json`)
  expect(res.status).toBe(200)
  expect(res.headers.get('content-type')).toMatch(/^application\/json/)
  const doc = (await res.json()) as Doc
  expect(doc.openapi).toBe('3.1.0')
  const result = await validate(structuredClone(doc) as never, { resolve: { external: false } } as never)
  expect(result.valid ? [] : result.errors).toEqual([])

  const paths = Object.keys(doc.paths)
  expect(paths).toEqual(expect.arrayContaining(['/api/v1/request', '/api/v1/verify', '/_sandbox/payments/{trackId}/simulate', '/_sandbox/import', '/pay/{trackId}', '/docs']))
  expect(paths.filter((p) => p.startsWith('/telegram') || p.startsWith('/bot'))).toEqual([])
  expect(Object.keys(doc.paths['/api/v1/request']!)).toEqual(['post'])
  for (const [path, methods] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(methods)) {
      expect(op.tags, `${method} ${path}`).toHaveLength(1)
      expect(Object.values(op.responses).every((r) => r.description !== 'Default Response'), `${method} ${path}`).toBe(true)
    }
  }
  // Under /api/v1 an error body carries result; elsewhere it does not.
  const errorShape = (path: string) => doc.paths[path]!.post!.responses['415']!.content!['application/json']!.schema.$ref
  expect(errorShape('/api/v1/verify')).toBe('#/components/schemas/SpecRequestError')
  expect(errorShape('/_sandbox/reset')).toBe('#/components/schemas/RequestError')
  const components = (doc as unknown as { components: { schemas: Record<string, { required: string[] }> } }).components.schemas
  expect(components.SpecRequestError!.required).toEqual(['result', 'statusCode', 'error', 'message'])
  expect(components.RequestError!.required).toEqual(['statusCode', 'error', 'message'])
})

test('the spec rules in the document come from the outcomes table and the limits', async () => {
  const sb = await sandbox()
  const doc = (await (await fetch(`${sb.url}/openapi.json`)).json()) as Doc & { paths: Record<string, Record<string, { description?: string }>> }
  const text = `${doc.info.description}\n${doc.paths['/api/v1/request']!.post!.description}\n${doc.paths['/api/v1/verify']!.post!.description}`
  for (const f of Object.values(failures)) expect(text).toContain(`${f.result} \`${f.message}\``)
  expect(text).toContain(SpecMessage.invalidTrackId)
  for (const limit of Object.values(LIMITS)) expect(text).toContain(`at most ${limit} characters`)
  expect(text).toContain(`at most 1e${Math.log10(MAX_AMOUNT)}`)
  for (const { error } of Object.values(RequestError)) expect(text).toContain(`\`${error}\``)
})

test('a browser may fetch /openapi.json and /docs (same-origin GET); another origin may not', async () => {
  const sb = await sandbox()
  const host = new URL(sb.url).host
  for (const path of ['/openapi.json', '/docs']) {
    const same = await sb.client.raw({ method: 'GET', path, headers: { host, origin: sb.url, 'sec-fetch-site': 'same-origin', 'sec-fetch-mode': 'cors' } })
    expect(same.status).toBe(200)
    const rebound = await sb.client.raw({ method: 'GET', path, headers: { host: `evil.example:${new URL(sb.url).port}` } })
    expect(rebound.status).toBe(403)
    const foreign = await sb.client.raw({ method: 'GET', path, headers: { host, origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' } })
    expect(foreign.status).toBe(403)
    expect(foreign.headers['access-control-allow-origin']).toBeUndefined()
  }
})
