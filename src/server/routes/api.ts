import type { FastifyInstance } from 'fastify'
import { isOperatorMark, OPERATOR_HEADER } from '../../domain/operator.js'
import { SandboxError } from '../../domain/outcomes.js'
import type { SandboxService } from '../../service/sandbox.js'
import type { WireProvider } from '../../http/type-provider.js'
import { createRulesText, verifyRulesText } from '../../openapi/rules.js'
import { anyObject, replies, specCreateBody, specCreateResponse, specVerifyBody, specVerifyResponse } from '../../http/schemas.js'

const SPEC_ERRORS = ['invalidBody', 'invalidField', 'notFound', 'methodNotAllowed', 'storageUnavailable'] as const

/** The spec API. Every outcome the spec defines is HTTP 200 with its `result` code. */
export function apiRoutes(service: SandboxService) {
  return async function (fastify: FastifyInstance): Promise<void> {
    const app = fastify.withTypeProvider<WireProvider>()
    app.post(
      '/api/v1/request',
      {
        schema: {
          tags: ['Spec API'],
          summary: 'Create a payment',
          description: createRulesText(),
          body: anyObject,
          response: replies('POST', { 200: specCreateResponse }, SPEC_ERRORS, { spec: true }),
        },
        // Any object is taken: the spec answers a bad field with its own code, never a schema's 400.
        config: { documentedBody: specCreateBody },
      },
      async (request) => {
        const body = await service.create(request.body)
        request.outcome = { result: body.result, ...('trackId' in body ? { trackId: body.trackId } : {}) }
        return body
      },
    )

    app.post(
      '/api/v1/verify',
      {
        schema: {
          tags: ['Spec API'],
          summary: 'Verify a payment',
          description: verifyRulesText(),
          body: anyObject,
          response: replies('POST', { 200: specVerifyResponse }, SPEC_ERRORS, { spec: true }),
        },
        config: { documentedBody: specVerifyBody },
      },
      async (request) => {
        const body = service.verify(request.body, { operator: isOperatorMark(request.headers[OPERATOR_HEADER.toLowerCase()]) })
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
        config: { undocumented: 'it refuses every method but POST with 405; the POST operation says so' },
        onRequest: async (request, reply) => {
          reply.header('allow', 'POST')
          throw new SandboxError('methodNotAllowed', `${request.method} ${url}: the spec API takes POST only, with a JSON body`)
        },
        handler: async () => undefined,
      })
    }
  }
}
