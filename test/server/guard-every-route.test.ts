import { expect, test } from 'vitest'
import { routesOf } from '../../src/openapi/install.js'
import { sandbox } from '../helpers.js'

const TOKEN = `515151:${'T'.repeat(35)}`

/**
 * Every route the sandbox serves — the spec and control APIs, the lab's clock, chain and audit, the inspector, the
 * chat page and the Bot API — refuses a foreign Host (DNS rebinding) and a state change sent by another site's page,
 * so a route added later cannot forget it.
 */
test('every route answers 403 to a foreign Host, and every POST and DELETE to a cross-site page', async () => {
  const sb = await sandbox()
  const port = new URL(sb.url).port
  const routes = routesOf(sb.server.app).flatMap((route) =>
    [route.method].flat().filter((m) => m === 'GET' || m === 'POST' || m === 'DELETE').map((method) => ({ method, url: route.url })),
  )
  const paths = routes.map(({ method, url }) => ({ method, path: url.replace(/:[A-Za-z]+/g, 'x').replace(/\*/g, 'x') }))
  expect(paths.length).toBeGreaterThan(40)
  expect(paths.map((p) => p.path)).toEqual(expect.arrayContaining(['/_sandbox/clock/advance', '/_sandbox/chain/mine', '/_sandbox/audit', '/inspect/payments']))

  const changing = (method: string) => method === 'POST' || method === 'DELETE'
  expect(paths.filter(({ method }) => method === 'DELETE').length).toBeGreaterThan(0)
  const rebound = await Promise.all(
    paths.map(async ({ method, path }) => {
      const res = await sb.client.raw({ method, path, headers: { host: `evil.example:${port}`, 'content-type': 'application/json' }, ...(changing(method) ? { body: '{}' } : {}) })
      return `${method} ${path} ${res.status}`
    }),
  )
  expect(rebound.filter((line) => !line.endsWith(' 403'))).toEqual([])

  const crossSite = await Promise.all(
    paths
      .filter(({ method }) => changing(method))
      .map(async ({ method, path }) => {
        const headers = { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site', 'content-type': 'application/json' }
        const res = await sb.client.raw({ method, path, headers, body: '{}' })
        return `${method} ${path} ${res.status}`
      }),
  )
  expect(crossSite.filter((line) => !line.endsWith(' 403'))).toEqual([])

  // A page of another origin that the browser does not mark (no Sec-Fetch-Site): only its Origin tells. An Origin
  // is the sandbox's own only when its host and port are the ones the request was sent to; IP literals and
  // localhost get no pass. The Bot API changes things by GET too.
  // The shutdown last, by itself: let through, it would stop the sandbox under the other requests.
  const changes = paths
    .filter(({ method, path }) => (changing(method) || path.startsWith('/telegram')) && path !== '/_sandbox/shutdown')
    .map(({ method, path }) => ({ method, path: path === '/telegram/x' ? `/telegram/bot${TOKEN}/setWebhook` : path }))
  const host = `127.0.0.1:${port}`
  const otherPort = String(Number(port) === 65535 ? 1 : Number(port) + 1)
  const foreignOrigins = ['http://203.0.113.9', `http://203.0.113.9:${port}`, `http://127.0.0.1:${otherPort}`, `http://localhost:${port}`, `http://[::1]:${port}`, 'http://127.0.0.1']
  const unmarked = await Promise.all(
    changes.flatMap(({ method, path }) =>
      foreignOrigins.map(async (origin) => {
        const res = await sb.client.raw({ method, path, headers: { host, origin, 'content-type': 'application/json' }, ...(changing(method) ? { body: '{}' } : {}) })
        return `${method} ${path} from ${origin} ${res.status} ${(res.json as { error?: string; description?: string } | undefined)?.error ?? ''}`
      }),
    ),
  )
  expect(unmarked.filter((line) => !line.endsWith(' 403 cross_site_request'))).toEqual([])

  // The sandbox's own pages send their own origin, and bots and the CLI none: neither is refused by the guard.
  const own = await Promise.all(
    changes.flatMap(({ method, path }) =>
      [`http://${host}`, undefined].map(async (origin) => {
        const headers = { host, 'content-type': 'application/json', ...(origin ? { origin } : {}) }
        const res = await sb.client.raw({ method, path, headers, ...(changing(method) ? { body: '{}' } : {}) })
        return `${method} ${path} from ${origin ?? 'no origin'} ${res.status}`
      }),
    ),
  )
  expect(own.filter((line) => line.endsWith(' 403'))).toEqual([])

  for (const origin of foreignOrigins) {
    const res = await sb.client.raw({ method: 'POST', path: '/_sandbox/shutdown', headers: { host, origin, 'content-type': 'application/json' }, body: '{}' })
    expect(`${origin} ${res.status}`).toBe(`${origin} 403`)
  }
})
