import multipart from '@fastify/multipart'
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { SandboxError } from '../domain/outcomes.js'
import { readRouteBody } from '../http/body.js'
import { type BotApiAnswer, BotApiError, notFound } from './errors.js'
import { MAX_PHOTO_BYTES } from './files.js'
import { Params, type UploadedFile } from './params.js'
import type { TelegramService } from './service.js'

/** Where the Bot API is served: a bot's API root is `<sandbox URL>/telegram`. */
export const BOT_API_PREFIX = '/telegram'

const FORM_BODY_LIMIT = 1024 * 1024
const MULTIPART_LIMITS = { fileSize: MAX_PHOTO_BYTES, files: 10, fields: 100, fieldSize: 1024 * 1024, parts: 110 }

const tooLarge = (): BotApiError => new BotApiError(413, 'Request Entity Too Large')

function send(reply: FastifyReply, answer: BotApiAnswer): FastifyReply {
  const status = answer.ok ? 200 : answer.error_code
  return reply.code(status).header('cache-control', 'no-store').type('application/json').send(answer)
}

/** Any failure as Telegram shapes it. */
function toAnswer(error: unknown): BotApiAnswer {
  if (error instanceof BotApiError) return error.toAnswer()
  if (error instanceof SandboxError) {
    const { statusCode } = error.toBody()
    if (error.kind === 'storageUnavailable') return { ok: false, error_code: 503, description: `Service Unavailable: ${error.message}` }
    if (statusCode === 413) return tooLarge().toAnswer()
    if (error.kind === 'invalidJson') return { ok: false, error_code: 400, description: "Bad Request: can't parse JSON object" }
    if (statusCode < 500) return { ok: false, error_code: 400, description: `Bad Request: ${error.message}` }
  }
  const e = error as FastifyError
  if (e.code === 'FST_REQ_FILE_TOO_LARGE' || e.code === 'FST_ERR_CTP_BODY_TOO_LARGE' || e.statusCode === 413) return tooLarge().toAnswer()
  if (e.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
    return { ok: false, error_code: 400, description: 'Bad Request: unsupported Content-Type; send JSON, a form or multipart/form-data' }
  }
  if (e instanceof SyntaxError || e.code === 'FST_ERR_CTP_INVALID_JSON_BODY' || e.code === 'FST_ERR_CTP_EMPTY_JSON_BODY') {
    return { ok: false, error_code: 400, description: "Bad Request: can't parse JSON object" }
  }
  if (typeof e.statusCode === 'number' && e.statusCode >= 400 && e.statusCode < 500) {
    return { ok: false, error_code: 400, description: `Bad Request: ${e.message}` }
  }
  return { ok: false, error_code: 500, description: 'Internal Server Error' }
}

/** The request's parameters, from the query string and a JSON, form or multipart body (the body wins). */
async function readParams(request: FastifyRequest): Promise<Params> {
  const query = Object.entries((request.query ?? {}) as Record<string, unknown>).flatMap(([k, v]) =>
    typeof v === 'string' ? [[k, v] as [string, string]] : Array.isArray(v) && typeof v[0] === 'string' ? [[k, v[0]] as [string, string]] : [],
  )
  if (request.isMultipart()) {
    const values = new Map(query)
    const files = new Map<string, UploadedFile>()
    for await (const part of request.parts({ limits: MULTIPART_LIMITS })) {
      if (part.type === 'file') {
        files.set(part.fieldname, { filename: part.filename, mimeType: part.mimetype, data: await part.toBuffer() })
      } else if (typeof part.value === 'string') {
        values.set(part.fieldname, part.value)
      }
    }
    return new Params(values, files)
  }
  const body = request.body
  if (body === undefined || body === null) return new Params(new Map(query))
  if (typeof body !== 'object' || Array.isArray(body)) throw new BotApiError(400, "Bad Request: can't parse JSON object")
  return Params.fromJson(body as Record<string, unknown>, query)
}

/**
 * `/telegram/bot<token>/<method>` as on api.telegram.org (GET or POST, method names in any case), and
 * `/telegram/file/bot<token>/<file_path>` for files. Its own body parsers and error answers live in this scope.
 */
export function botApiRoutes(service: TelegramService) {
  return async function (app: FastifyInstance): Promise<void> {
    app.addContentTypeParser('application/x-www-form-urlencoded', (request, payload, done) => {
      readRouteBody(request, payload, (error, bytes) => done(error, error ? undefined : Object.fromEntries(new URLSearchParams(bytes!.toString('utf8')))), tooLarge)
    })
    await app.register(multipart, { limits: MULTIPART_LIMITS, throwFileSizeLimit: true })
    app.setErrorHandler((error, request, reply) => {
      const answer = toAnswer(error)
      if (!answer.ok) request.outcome = { error: `telegram_${answer.error_code}` }
      return send(reply, answer)
    })

    const handle = async (request: FastifyRequest, reply: FastifyReply) => {
      const path = (request.params as { '*': string })['*']
      const file = /^file\/bot([^/]*)\/(.+)$/.exec(path)
      if (file) return sendFile(request, reply, file[1]!, file[2]!)
      const call = /^bot([^/]*)\/(?:test\/)?([^/]*)$/.exec(path)
      if (!call) return send(reply, notFound().toAnswer())
      const token = call[1]!
      const params = await readParams(request)
      const method = call[2] || params.string('method')
      const gone = new AbortController()
      reply.raw.once('close', () => {
        if (!reply.raw.writableFinished) gone.abort()
      })
      const { result, description } = await service.call(token, method, params, gone.signal)
      return send(reply, { ok: true, result, ...(description !== undefined ? { description } : {}) })
    }

    const sendFile = async (_request: FastifyRequest, reply: FastifyReply, token: string, filePath: string) => {
      const bot = await service.authorize(token)
      const found = service.fileByPath(bot.id, filePath)
      if (!found) return send(reply, notFound().toAnswer())
      return reply
        .header('content-type', found.mimeType)
        .header('x-content-type-options', 'nosniff')
        .header('cache-control', 'no-store')
        .send(Buffer.from(found.data, 'base64'))
    }

    // Telegram's own API, documented by Telegram: left out of the sandbox's OpenAPI document.
    const config = { undocumented: "Telegram's Bot API, documented by Telegram" }
    app.route({ method: ['GET', 'POST'], url: `${BOT_API_PREFIX}/*`, bodyLimit: FORM_BODY_LIMIT, config, handler: handle })
    app.route({ method: ['GET', 'POST'], url: BOT_API_PREFIX, config, handler: async (_r, reply) => send(reply, notFound().toAnswer()) })
    // telegraf resolves `./bot<token>/<method>` against its apiRoot, which drops `/telegram` unless it ends in a slash.
    app.route({
      method: ['GET', 'POST'],
      url: '/bot*',
      config,
      handler: async (_r, reply) =>
        send(reply, new BotApiError(404, `Not Found: the Bot API is served under ${BOT_API_PREFIX}/; an apiRoot must end in /telegram (grammY) or /telegram/ (telegraf)`).toAnswer()),
    })
  }
}
