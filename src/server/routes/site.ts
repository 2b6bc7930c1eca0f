import type { FastifyInstance } from 'fastify'
import { ICON_SVG } from '../../checkout/icon.js'

/** `/` leads to the dashboard; `/favicon.ico` is the sandbox's icon, so no page a browser opens logs a failed request. */
export function siteRoutes() {
  return async function (app: FastifyInstance): Promise<void> {
    app.get('/', { config: { page: true } }, async (_request, reply) => reply.redirect('/dashboard', 302))

    app.get('/favicon.ico', async (_request, reply) =>
      reply
        .headers({
          'content-type': 'image/svg+xml',
          'cache-control': 'public, max-age=86400',
          'x-content-type-options': 'nosniff',
          'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'",
        })
        .send(ICON_SVG),
    )
  }
}
