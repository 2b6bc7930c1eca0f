import swagger from '@fastify/swagger'
import type { FastifyInstance, RouteOptions } from 'fastify'
import { pageHeaders } from '../pages/layout.js'
import { documentedSchemas } from '../domain/export-schema.js'
import { errorSchemas, json, media, noQuery, replies } from '../http/schemas.js'
import { DOCS_STYLES, docsPage, type OpenApiDocument } from './docs-page.js'
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
 * Registers the OpenAPI 3.1 document, made from every route's schemas, and serves it at `/openapi.json` with a
 * reference page at `/docs` (rendered here from the document: no script, no CDN). Must run before any route is
 * added, so that each one is seen. A route with `config.undocumented` (its reason) is left out of the document.
 */
export async function installOpenapi(app: FastifyInstance, version: string): Promise<void> {
  const seen: RouteOptions[] = []
  routes.set(app, seen)
  app.addHook('onRoute', (route) => void seen.push(route))
  for (const schema of [...documentedSchemas(), ...errorSchemas]) app.addSchema(schema)
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

  const document = () => app.swagger() as unknown as OpenApiDocument
  app.get(
    '/openapi.json',
    { schema: { tags: ['Site'], summary: 'This API as an OpenAPI 3.1 document', querystring: noQuery, response: replies('GET', { 200: json('the document', { type: 'object', additionalProperties: true }) }) } },
    async (_request, reply) => reply.header('cache-control', 'no-store').send(document()),
  )
  app.get(
    '/docs',
    { schema: { tags: ['Site'], summary: 'This API as a page', querystring: noQuery, response: replies('GET', { 200: media('the reference page', 'text/html') }) }, config: { page: true } },
    async (_request, reply) => reply.headers(pageHeaders(undefined, DOCS_STYLES)).send(docsPage(document())),
  )
}

const routes = new WeakMap<FastifyInstance, RouteOptions[]>()

/** Every route of an app built with installOpenapi, as it was added (HEAD routes Fastify adds included). */
export function routesOf(app: FastifyInstance): readonly RouteOptions[] {
  return routes.get(app) ?? []
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Why a route is left out of the OpenAPI document (e.g. it is Telegram's API). */
    undocumented?: string
    /** The body as the document states it, where the route validates less (the spec API answers bad fields itself). */
    documentedBody?: object
  }
}
