import type { FastifyInstance } from 'fastify'
import { ICON_SVG } from '../../pages/icon.js'
import { media, noQuery, replies } from '../../http/schemas.js'

const tags = ['Site']

/** `/favicon.ico` is the sandbox's icon, so no page a browser opens logs a failed request. (`/` is the inspector's.) */
export function siteRoutes() {
  return async function (app: FastifyInstance): Promise<void> {
    const iconSchema = { tags, summary: 'The sandbox\'s icon', querystring: noQuery, response: replies('GET', { 200: media('an SVG picture', 'image/svg+xml') }) }
    app.get('/favicon.ico', { schema: iconSchema }, async (_request, reply) =>
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
