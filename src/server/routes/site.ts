import type { FastifyInstance } from 'fastify'
import { ICON_SVG } from '../../checkout/icon.js'
import { GUARD_REFUSALS, media, noQuery, replies } from '../schemas.js'

const tags = ['Site']

/** `/` leads to the dashboard; `/favicon.ico` is the sandbox's icon, so no page a browser opens logs a failed request. */
export function siteRoutes() {
  return async function (app: FastifyInstance): Promise<void> {
    const rootSchema = {
      tags,
      summary: 'Leads to the dashboard',
      querystring: noQuery,
      response: replies('GET', { 302: { description: 'to /dashboard', type: 'null' } }, [], { html: GUARD_REFUSALS }),
    }
    app.get('/', { schema: rootSchema, config: { page: true } }, async (_request, reply) => reply.redirect('/dashboard', 302))

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
