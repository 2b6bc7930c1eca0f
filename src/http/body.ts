import type { Readable } from 'node:stream'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { decodeJsonBody, judgeContentEncoding } from '../domain/json-body.js'
import { SandboxError } from '../domain/outcomes.js'
import { type BoundedBody, readBoundedBody, sizeText } from './bounded-body.js'

/**
 * A JSON body as received, as the request log keeps it: its text and size when its bytes were UTF-8 (the parser
 * decoded them anyway; the text holds no more than the body, where the bytes may be a slice of a larger buffer),
 * else its bytes.
 */
export type ReceivedBody = Buffer | { text: string; bytes: number }

/**
 * The one JSON body parser: uncompressed UTF-8 only (src/domain/json-body.ts). A body-less POST must still say
 * application/json (the guard); outside the spec API its empty body reads as {}. A body over the route's limit
 * is read and dropped before the 413 (src/http/bounded-body.ts).
 */
export function installJsonBody(app: FastifyInstance): void {
  const { onProtoPoisoning, onConstructorPoisoning } = app.initialConfig
  const parseJson = app.getDefaultJsonParser(onProtoPoisoning ?? 'error', onConstructorPoisoning ?? 'error')
  app.removeContentTypeParser('application/json')
  app.addContentTypeParser('application/json', (request, payload, done) => {
    readRouteBody(request, payload, (error, bytes) => {
      if (error) return done(error, undefined)
      // Kept for the request log, which shows the body as it came, valid or not.
      request.jsonBody = bytes
      const decoded = judgeContentEncoding(request.headers['content-encoding']) ?? decodeJsonBody(bytes!, request.headers['content-type'])
      if ('kind' in decoded) return done(new SandboxError(decoded.kind, decoded.message), undefined)
      request.jsonBody = { text: decoded.text, bytes: bytes!.length }
      if (decoded.text === '' && !request.url.startsWith('/api/')) return done(null, {})
      parseJson(request, decoded.text, done)
    })
  })
}

/**
 * A request's body within its route's `bodyLimit`, for body parsers. Fastify answers a parser's error with
 * `Connection: close`, so a 413 closes the connection after the client has read it.
 */
export function readRouteBody(
  request: FastifyRequest,
  payload: Readable,
  done: (error: Error | null, bytes?: Buffer) => void,
  tooLarge: (limit: number) => Error = (limit) => new SandboxError('payloadTooLarge', `request body is larger than ${sizeText(limit)}`),
): void {
  const limit = request.routeOptions.bodyLimit
  readBoundedBody(payload, request.headers['content-length'], limit, (body: BoundedBody) => {
    if (body.kind === 'body') return done(null, body.bytes)
    if (body.kind === 'tooLarge') return done(tooLarge(limit))
    done(bodyCut())
  })
}

/** A client gone mid-body: nobody reads the answer, and it is no bug of the sandbox's. */
export function bodyCut(): SandboxError {
  return new SandboxError('invalidBody', 'the request body was cut short (the client went away)')
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The JSON body as received. */
    jsonBody?: ReceivedBody
  }
}
