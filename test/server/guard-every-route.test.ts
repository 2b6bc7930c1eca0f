import { expect, test } from 'vitest'
import { routesOf } from '../../src/openapi/install.js'
import { sandbox } from '../helpers.js'

/**
 * Every route the sandbox serves — the spec and control APIs, the lab's clock, chain and audit, the inspector, the
 * chat page and the Bot API — refuses a foreign Host (DNS rebinding) and a state change sent by another site's page,
 * so a route added later cannot forget it.
 */
test('every route answers 403 to a foreign Host, and every POST to a cross-site page', async () => {
  const sb = await sandbox()
  const port = new URL(sb.url).port
  const routes = routesOf(sb.server.app).flatMap((route) =>
    [route.method].flat().filter((m) => m === 'GET' || m === 'POST').map((method) => ({ method, url: route.url })),
  )
  const paths = routes.map(({ method, url }) => ({ method, path: url.replace(/:[A-Za-z]+/g, 'x').replace(/\*/g, 'x') }))
  expect(paths.length).toBeGreaterThan(40)
  expect(paths.map((p) => p.path)).toEqual(expect.arrayContaining(['/_sandbox/clock/advance', '/_sandbox/chain/mine', '/_sandbox/audit', '/inspect/payments']))

  const rebound = await Promise.all(
    paths.map(async ({ method, path }) => {
      const res = await sb.client.raw({ method, path, headers: { host: `evil.example:${port}`, 'content-type': 'application/json' }, ...(method === 'POST' ? { body: '{}' } : {}) })
      return `${method} ${path} ${res.status}`
    }),
  )
  expect(rebound.filter((line) => !line.endsWith(' 403'))).toEqual([])

  const crossSite = await Promise.all(
    paths
      .filter(({ method }) => method === 'POST')
      .map(async ({ method, path }) => {
        const headers = { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site', 'content-type': 'application/json' }
        const res = await sb.client.raw({ method, path, headers, body: '{}' })
        return `${method} ${path} ${res.status}`
      }),
  )
  expect(crossSite.filter((line) => !line.endsWith(' 403'))).toEqual([])
})
