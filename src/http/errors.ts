import { STATUS_CODES } from 'node:http'
import type { Socket } from 'node:net'
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { isSpecApiPath, RequestError, type RequestErrorBody, SandboxError, specApiErrorBody } from '../domain/outcomes.js'
import { bodyCut } from './body.js'

const byFastifyCode: Record<string, (e: FastifyError, request: FastifyRequest) => RequestErrorBody> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: (_e, request) => ({
    ...RequestError.unsupportedMediaType,
    message: `Content-Type must be application/json (got ${request.headers['content-type'] || 'none'})`,
  }),
  FST_ERR_CTP_BODY_TOO_LARGE: () => ({ ...RequestError.payloadTooLarge, message: 'request body is larger than 1 MB' }),
  FST_ERR_CTP_EMPTY_JSON_BODY: () => ({ ...RequestError.invalidJson, message: 'request body is empty; send a JSON object' }),
  FST_ERR_CTP_INVALID_JSON_BODY: (e) => ({ ...RequestError.invalidJson, message: `request body is not valid JSON: ${e.message}` }),
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: () => ({ ...RequestError.invalidBody, message: 'Content-Length does not match the body' }),
}

/** The path of a request, without its query. */
export function pathOf(request: FastifyRequest): string {
  const q = request.url.indexOf('?')
  return q === -1 ? request.url : request.url.slice(0, q)
}

/** Sends a request error as JSON; under /api/v1 the body carries its `result` too, as the spec wants of every body. */
export function sendRequestError(request: FastifyRequest, reply: FastifyReply, body: RequestErrorBody): FastifyReply {
  request.outcome ??= {}
  request.outcome.error = body.error
  return reply
    .code(body.statusCode)
    .type('application/json; charset=utf-8')
    .send(JSON.stringify(isSpecApiPath(pathOf(request)) ? specApiErrorBody(body) : body))
}

/** Fastify's `frameworkErrors`: a URL it cannot decode (`/api/v1/request%zz`) or a parameter too long, before routing. */
export function frameworkError(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  void sendRequestError(request, reply, { ...RequestError.badRequest, statusCode: error.statusCode ?? 400, message: error.message })
}

/**
 * Fastify's `clientErrorHandler`: a request Node refuses before Fastify sees it (headers or URL over 16 KB, a
 * malformed request, one that did not arrive in time) gets the error shape, and `Connection: close`: the socket is
 * closed after it, and a keep-alive client must not send its next request on it.
 */
export function clientError(error: NodeJS.ErrnoException, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return
  const [status, message] =
    error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? [408, 'the request did not arrive in time']
      : error.code === 'HPE_HEADER_OVERFLOW'
        ? [431, 'the request line and headers are larger than 16 KB']
        : [400, 'not a valid HTTP request']
  const body = JSON.stringify({ ...RequestError.badRequest, statusCode: status, message })
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    )
  }
  socket.destroy()
}

const CONNECTION_GONE = new Set(['ECONNRESET', 'ECONNABORTED', 'EPIPE', 'ERR_STREAM_PREMATURE_CLOSE'])

/** The client left before its request was whole (Node's `aborted`), or the error is its connection's end. */
function clientWentAway(error: FastifyError, request: FastifyRequest): boolean {
  return request.raw.aborted || (request.raw.socket?.destroyed === true && CONNECTION_GONE.has(error.code))
}

/**
 * Turns every error into a JSON answer: a SandboxError or a client mistake into its 4xx body; anything
 * unexpected into a 500 without internals (the console gets the details).
 */
export function installErrorHandling(app: FastifyInstance, logError: (error: unknown) => void): void {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    let body: RequestErrorBody
    if (error instanceof SandboxError) {
      body = error.toBody()
    } else if (error.validation) {
      body = { ...RequestError.invalidBody, message: `request ${error.message}` }
    } else if (error.code && byFastifyCode[error.code]) {
      body = byFastifyCode[error.code]!(error, request)
    } else if (error instanceof SyntaxError) {
      body = { ...RequestError.invalidJson, message: `request body is not valid JSON: ${error.message}` }
    } else if (typeof error.statusCode === 'number' && error.statusCode >= 400 && error.statusCode < 500) {
      body = { ...RequestError.badRequest, statusCode: error.statusCode, message: error.message }
    } else if (clientWentAway(error, request)) {
      // An upload cut short: no one reads this answer, and it is no bug of the sandbox's.
      body = bodyCut().toBody()
    } else {
      logError(error)
      body = { ...RequestError.internalError, message: 'unexpected error; the sandbox console has details' }
    }
    return sendRequestError(request, reply, body)
  })

  app.setNotFoundHandler((request, reply) =>
    sendRequestError(request, reply, { ...RequestError.notFound, message: `no route ${request.method} ${pathOf(request)}` }),
  )
}

declare module 'fastify' {
  interface FastifyRequest {
    /** What the request log line reports. */
    outcome?: { result?: number; trackId?: string; error?: string }
    /** A fault the sandbox played on the request (src/faults), in words: `status 503`, `timeout, client gave up after 30.2 s`. */
    fault?: string
  }
  interface FastifyInstance {
    /** Logs a request a fault ended with no answer (HTTP status 0); absent when the sandbox keeps no request log. */
    logUnanswered?: (request: FastifyRequest, ms: number) => void
  }
}
