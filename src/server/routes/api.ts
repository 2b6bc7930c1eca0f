import type { FastifyInstance } from 'fastify'
import { SandboxError } from '../../domain/outcomes.js'
import type { SandboxService } from '../../service/sandbox.js'
import { anyObject, specCreateResponse, specVerifyResponse } from '../schemas.js'

/** The spec API. Every outcome the spec defines is HTTP 200 with its `result` code. */
export function apiRoutes(service: SandboxService) {
  return async function (app: FastifyInstance): Promise<void> {
    app.post<{ Body: Record<string, unknown> }>(
      '/api/v1/request',
      { schema: { body: anyObject, response: { 200: specCreateResponse } } },
      async (request) => {
        const body = await service.create(request.body)
        request.outcome = { result: body.result, ...('trackId' in body ? { trackId: body.trackId } : {}) }
        return body
      },
    )

    app.post<{ Body: Record<string, unknown> }>(
      '/api/v1/verify',
      { schema: { body: anyObject, response: { 200: specVerifyResponse } } },
      async (request) => {
        const body = service.verify(request.body)
        const trackId = request.body.trackId
        request.outcome = { result: body.result, ...(typeof trackId === 'string' ? { trackId } : {}) }
        return body
      },
    )

    // Another method on a spec path is 405 naming the one allowed, before any body is read.
    for (const url of ['/api/v1/request', '/api/v1/verify']) {
      app.route({
        method: ['GET', 'HEAD', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'],
        url,
        exposeHeadRoute: false,
        onRequest: async (request, reply) => {
          reply.header('allow', 'POST')
          throw new SandboxError('methodNotAllowed', `${request.method} ${url}: the spec API takes POST only, with a JSON body`)
        },
        handler: async () => undefined,
      })
    }
  }
}
