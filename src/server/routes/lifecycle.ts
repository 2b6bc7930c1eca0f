import type { FastifyInstance } from 'fastify'
import { Readable } from 'node:stream'
import { type ExportImage, exportFileChunks } from '../../domain/transfer.js'
import type { SandboxService } from '../../service/sandbox.js'
import { exportSandbox, importSandbox, resetSandbox } from '../../service/transfer.js'
import { readImportBody } from '../import-body.js'
import type { SandboxInfo } from '../info.js'
import { anyObject, emptyBody } from '../schemas.js'

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
  return async function (app: FastifyInstance): Promise<void> {
    let shuttingDown = false
    app.post('/_sandbox/shutdown', { schema: { body: emptyBody } }, async (_request, reply) => {
      const first = !shuttingDown
      shuttingDown = true
      if (first) reply.raw.once('finish', () => setImmediate(onShutdownRequest))
      return reply.code(202).send({ ok: true, stopping: true, pid: info().pid, url: info().url })
    })

    app.post('/_sandbox/reset', { schema: { body: emptyBody } }, async () => resetSandbox(service))

    // Sent as it is written, a few hundred records at a time: a large state never stalls other requests.
    app.get('/_sandbox/export', async (_request, reply) =>
      reply.type('application/json; charset=utf-8').send(Readable.from(oneTurnEach(exportFileChunks(exportSandbox(service, info().version, new Date()))))),
    )

    // Its own JSON parser reads and checks the file as it arrives; the body the handler gets is checked.
    await app.register(async (scope) => {
      scope.removeAllContentTypeParsers()
      scope.addContentTypeParser('application/json', readImportBody)
      scope.post('/_sandbox/import', { schema: { body: anyObject } }, async (request) => importSandbox(service, request.body as ExportImage))
    })
  }
}
