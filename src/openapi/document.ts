import swagger from '@fastify/swagger'
import Fastify, { type RouteOptions } from 'fastify'
import type { OpenApiDocument } from './docs-page.js'
import { apiDescription } from './rules.js'

/** The document's tags, in the order the docs page shows them. */
export const TAGS = [
  { name: 'Spec API', description: 'Create and verify, as the Merchant Payment Service\'s spec says.' },
  { name: 'Control API', description: 'Act as the customer, inspect payments and callbacks, manage the sandbox (`/_sandbox`).' },
  { name: 'Lab', description: 'Rehearse what production does to an integration: the sandbox clock, confirmations (`/_sandbox/chain`) and the audit of what the sandbox observed.' },
  { name: 'Chat', description: 'The customer\'s side of the Telegram Bot API emulator (`/_sandbox/chat`, `/chat`). The Bot API itself (`/telegram`) is Telegram\'s and documented by Telegram.' },
  { name: 'Checkout page', description: 'The hosted checkout page and the endpoints its script uses.' },
  { name: 'Site', description: 'The inspector\'s pages, this reference and the icon.' },
]

/**
 * The OpenAPI document of an app's routes, as @fastify/swagger makes it: the routes the app added (in their order,
 * with their schemas and configs) and its shared schemas are laid out again on an app of their own that never
 * listens, with swagger registered first, as it would have been on the app itself.
 */
export async function makeDocument(routes: readonly RouteOptions[], schemas: readonly object[], version: string): Promise<OpenApiDocument> {
  // Nothing is validated or answered here: the routes are only read.
  const app = Fastify({ logger: false, exposeHeadRoutes: false })
  app.setValidatorCompiler(() => () => true)
  app.setSerializerCompiler(() => (data) => JSON.stringify(data))
  for (const schema of schemas) app.addSchema(schema)
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: 'pay sandbox', version, description: apiDescription() },
      // Relative to wherever the document was fetched: the sandbox answers under several names.
      servers: [{ url: '/' }],
      tags: TAGS,
    },
    refResolver: { buildLocalReference: (json, _base, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`) },
    transform: ({ schema, url, route }) => ({
      schema: {
        ...schema,
        ...(route.config?.documentedBody !== undefined ? { body: route.config.documentedBody } : {}),
        ...(route.config?.undocumented !== undefined ? { hide: true } : {}),
      },
      url,
    }),
  })
  // The HEAD routes Fastify added beside GET ones are left out of the document, as swagger leaves them.
  for (const route of routes) {
    if (route.method === 'HEAD') continue
    app.route({
      method: route.method,
      url: route.url,
      ...(route.schema ? { schema: route.schema } : {}),
      ...(route.config ? { config: route.config } : {}),
      handler: async () => undefined,
    })
  }
  await app.ready()
  const document = app.swagger() as unknown as OpenApiDocument
  await app.close()
  return document
}
