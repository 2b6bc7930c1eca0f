import type { FastifyInstance } from 'fastify'
import { Readable } from 'node:stream'
import { type ExportImage, exportFileChunks } from '../../domain/transfer.js'
import type { SandboxService } from '../../service/sandbox.js'
import type { WireProvider } from '../../http/type-provider.js'
import { exportSandbox, importSandbox, resetSandbox } from '../../service/transfer.js'
import { readImportBody } from '../import-body.js'
import type { SandboxInfo } from '../../http/info.js'
import { anyObject, emptyBody, importResponse, json, noQuery, record, replies, resetResponse, shutdownResponse } from '../../http/schemas.js'

const tags = ['Control API']

/** Hands out each piece in its own turn of the event loop: a fast reader would otherwise drain all in one. */
async function* oneTurnEach<T>(pieces: Iterable<T>): AsyncGenerator<T> {
  for (const piece of pieces) {
    yield piece
    await new Promise((resolve) => setImmediate(resolve))
  }
}

/**
 * Lifecycle of the sandbox under /_sandbox: shutdown, reset, export, import.
 * `onShutdownRequest` runs once the shutdown answer is sent; it runs the same stop path as SIGTERM.
 */
export function lifecycleRoutes(service: SandboxService, info: () => SandboxInfo, onShutdownRequest: () => void) {
  return async function (fastify: FastifyInstance): Promise<void> {
    const app = fastify.withTypeProvider<WireProvider>()
    let shuttingDown = false
    const shutdownSchema = {
      tags,
      summary: 'Stop gracefully, as SIGTERM: finish requests, save the data file, exit',
      body: emptyBody,
      response: replies('POST', { 202: json('stopping', shutdownResponse) }, ['invalidBody']),
    }
    app.post('/_sandbox/shutdown', { schema: shutdownSchema }, async (_request, reply) => {
      const first = !shuttingDown
      shuttingDown = true
      if (first) reply.raw.once('finish', () => setImmediate(onShutdownRequest))
      return reply.code(202).send({ ok: true, stopping: true, pid: info().pid, url: info().url })
    })

    const resetSchema = {
      tags,
      summary: 'Delete all payments and deliveries (and the emulator\'s chats); merchants and bots stay',
      body: emptyBody,
      response: replies('POST', { 200: json('what was cleared', resetResponse) }, ['invalidBody', 'storageUnavailable']),
    }
    app.post('/_sandbox/reset', { schema: resetSchema }, async () => resetSandbox(service))

    // Sent as it is written, a few hundred records at a time: a large state never stalls other requests.
    const exportSchema = {
      tags,
      summary: 'The whole state as an export file (merchants, payments, deliveries), streamed',
      querystring: noQuery,
      response: replies('GET', { 200: json('the export file; URLs keep their passwords and tokens', record('ExportFile')) }),
    }
    // The file's text is streamed, so this one answer is not typed by its schema.
    fastify.get('/_sandbox/export', { schema: exportSchema }, async (_request, reply) =>
      reply.type('application/json; charset=utf-8').send(Readable.from(oneTurnEach(exportFileChunks(exportSandbox(service, info().version, new Date()))))),
    )

    // Its own JSON parser reads and checks the file as it arrives; the body the handler gets is checked.
    await app.register(async (scope) => {
      scope.removeAllContentTypeParsers()
      scope.addContentTypeParser('application/json', readImportBody)
      const importSchema = {
        tags,
        summary: 'Replace the whole state with an export file, all or nothing; checked record by record first',
        body: anyObject,
        response: replies('POST', { 200: json('what was loaded and replaced', importResponse) }, ['invalidBody', 'storageUnavailable']),
      }
      // The reader checks the file as it arrives; the document states the file's schema.
      scope.post('/_sandbox/import', { schema: importSchema, config: { documentedBody: record('ExportFile') } }, async (request) =>
        importSandbox(service, request.body as ExportImage),
      )
    })
  }
}
