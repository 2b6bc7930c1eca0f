import type { FastifyInstance } from 'fastify'
import { decodeJsonBody, judgeContentEncoding } from '../domain/json-body.js'
import { SandboxError } from '../domain/outcomes.js'

/**
 * The one JSON body parser: uncompressed UTF-8 only (src/domain/json-body.ts). A body-less POST must still say
 * application/json (the guard); outside the spec API its empty body reads as {}.
 */
export function installJsonBody(app: FastifyInstance): void {
  const { onProtoPoisoning, onConstructorPoisoning } = app.initialConfig
  const parseJson = app.getDefaultJsonParser(onProtoPoisoning ?? 'error', onConstructorPoisoning ?? 'error')
  app.removeContentTypeParser('application/json')
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, bytes, done) => {
    // Kept for the request log, which shows the body as it came, valid or not.
    request.jsonBytes = bytes as Buffer
    const decoded = judgeContentEncoding(request.headers['content-encoding']) ?? decodeJsonBody(bytes as Buffer, request.headers['content-type'])
    if ('kind' in decoded) return done(new SandboxError(decoded.kind, decoded.message), undefined)
    if (decoded.text === '' && !request.url.startsWith('/api/')) return done(null, {})
    parseJson(request, decoded.text, done)
  })
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The JSON body's bytes as received. */
    jsonBytes?: Buffer
  }
}
