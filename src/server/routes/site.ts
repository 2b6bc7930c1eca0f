import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { FastifyInstance } from 'fastify'
import { RequestError } from '../../domain/outcomes.js'
import { GUIDES, guideFile } from '../../guides.js'
import { sendRequestError } from '../../http/errors.js'
import { ICON_SVG } from '../../pages/icon.js'
import { media, noQuery, replies } from '../../http/schemas.js'
import { PACKAGE_ROOT } from '../../version.js'

const tags = ['Site']

const guideParams = {
  type: 'object',
  properties: { name: { type: 'string', maxLength: 64, description: `the guide: ${GUIDES.map((g) => g.name).join(', ')}` } },
  required: ['name'],
  additionalProperties: false,
} as const

/**
 * `/favicon.ico` is the sandbox's icon, so no page a browser opens logs a failed request. (`/` is the inspector's.)
 * `/guides/<name>` is a guide of the package's docs/ folder, as its Markdown text.
 */
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

    const guideSchema = {
      tags,
      summary: 'A guide (one per task: CI, a shop, a bot, the unhappy paths, support, a test suite), as Markdown text',
      params: guideParams,
      querystring: noQuery,
      response: replies('GET', { 200: media('the guide', 'text/plain') }, ['invalidBody', 'notFound']),
    }
    app.get<{ Params: { name: string } }>('/guides/:name', { schema: guideSchema }, async (request, reply) => {
      const guide = GUIDES.find((g) => g.name === request.params.name)
      const text = guide && PACKAGE_ROOT !== undefined ? await readFile(join(PACKAGE_ROOT, guideFile(guide.name)), 'utf8').catch(() => undefined) : undefined
      if (text === undefined) {
        const names = GUIDES.map((g) => g.name).join(', ')
        return sendRequestError(request, reply, { ...RequestError.notFound, message: guide ? `the guide ${guide.name} is not in this package` : `no guide named ${request.params.name}; the guides are ${names}` })
      }
      return reply
        .headers({
          'content-type': 'text/plain; charset=utf-8',
          'cache-control': 'no-cache',
          'x-content-type-options': 'nosniff',
          'content-security-policy': "default-src 'none'",
        })
        .send(text)
    })
  }
}
