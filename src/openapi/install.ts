import type { FastifyInstance, RouteOptions } from 'fastify'
import { pageHeaders } from '../pages/layout.js'
import { documentedSchemas } from '../domain/export-schema.js'
import { errorSchemas, json, media, noQuery, replies } from '../http/schemas.js'
import type { OpenApiDocument } from './docs-page.js'

/**
 * Serves the OpenAPI 3.1 document, made from every route's schemas, at `/openapi.json` with a reference page at
 * `/docs` (rendered here from the document: no script, no CDN). Must run before any route is added, so that each
 * one is seen. A route with `config.undocumented` (its reason) is left out of the document.
 *
 * The document is made on its first request (src/openapi/document.ts): @fastify/swagger and what it loads were a
 * tenth of the server's start, for a page few starts serve.
 */
export async function installOpenapi(app: FastifyInstance, version: string): Promise<void> {
  const seen: RouteOptions[] = []
  routes.set(app, seen)
  app.addHook('onRoute', (route) => void seen.push(route))
  const schemas = [...documentedSchemas(), ...errorSchemas]
  for (const schema of schemas) app.addSchema(schema)

  let made: Promise<OpenApiDocument> | undefined
  const document = (): Promise<OpenApiDocument> =>
    (made ??= import('./document.js')
      .then(({ makeDocument }) => makeDocument(seen, schemas, version))
      .catch((error: unknown) => {
        made = undefined
        throw error
      }))
  app.get(
    '/openapi.json',
    { schema: { tags: ['Site'], summary: 'This API as an OpenAPI 3.1 document', querystring: noQuery, response: replies('GET', { 200: json('the document', { type: 'object', additionalProperties: true }) }) } },
    async (_request, reply) => reply.header('cache-control', 'no-store').send(await document()),
  )
  app.get(
    '/docs',
    { schema: { tags: ['Site'], summary: 'This API as a page', querystring: noQuery, response: replies('GET', { 200: media('the reference page', 'text/html') }) }, config: { page: true } },
    async (_request, reply) => {
      const { DOCS_STYLES, docsPage } = await import('./docs-page.js')
      return reply.headers(pageHeaders(undefined, DOCS_STYLES)).send(docsPage(await document()))
    },
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
