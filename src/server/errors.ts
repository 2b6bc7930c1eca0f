import type { FastifyError, FastifyInstance } from 'fastify'
import { RequestError, type RequestErrorBody, SandboxError } from '../domain/outcomes.js'

const byFastifyCode: Record<string, (e: FastifyError) => RequestErrorBody> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: (e) => ({
    ...RequestError.unsupportedMediaType,
    message: `Content-Type must be application/json (got ${e.message.replace(/^Unsupported Media Type:?\s*/i, '') || 'none'})`,
  }),
  FST_ERR_CTP_BODY_TOO_LARGE: () => ({ ...RequestError.payloadTooLarge, message: 'request body is larger than 1 MB' }),
  FST_ERR_CTP_EMPTY_JSON_BODY: () => ({ ...RequestError.invalidJson, message: 'request body is empty; send a JSON object' }),
  FST_ERR_CTP_INVALID_JSON_BODY: (e) => ({ ...RequestError.invalidJson, message: `request body is not valid JSON: ${e.message}` }),
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: () => ({ ...RequestError.invalidBody, message: 'Content-Length does not match the body' }),
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
      body = byFastifyCode[error.code]!(error)
    } else if (error instanceof SyntaxError) {
      body = { ...RequestError.invalidJson, message: `request body is not valid JSON: ${error.message}` }
    } else if (typeof error.statusCode === 'number' && error.statusCode >= 400 && error.statusCode < 500) {
      body = { statusCode: error.statusCode, error: 'bad_request', message: error.message }
    } else {
      logError(error)
      body = { statusCode: 500, error: 'internal_error', message: 'unexpected error; the sandbox console has details' }
    }
    request.outcome ??= {}
    request.outcome.error = body.error
    return reply.code(body.statusCode).type('application/json; charset=utf-8').send(body)
  })

  app.setNotFoundHandler((request, reply) => {
    const body = { ...RequestError.notFound, message: `no route ${request.method} ${request.url.split('?')[0]}` }
    return reply.code(404).send(body)
  })
}

declare module 'fastify' {
  interface FastifyRequest {
    /** What the request log line reports. */
    outcome?: { result?: number; trackId?: string; error?: string }
  }
}
