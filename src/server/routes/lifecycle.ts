import type { FastifyInstance } from 'fastify'
import type { SandboxService } from '../../service/sandbox.js'
import { exportSandbox, importSandbox, resetSandbox } from '../../service/transfer.js'
import type { SandboxInfo } from '../info.js'
import { anyObject } from '../schemas.js'

/** Largest import body: an export of a busy sandbox is far above the API's 1 MB. */
export const IMPORT_BODY_LIMIT = 256 * 1024 * 1024

/** Body-less POSTs send `{}` (src/server/guard.ts reads an empty JSON body as {}). */
const emptyBody = { type: 'object', additionalProperties: false } as const

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

    app.get('/_sandbox/export', async () => exportSandbox(service, info().version, new Date()))

    app.post('/_sandbox/import', { bodyLimit: IMPORT_BODY_LIMIT, schema: { body: anyObject } }, async (request) =>
      importSandbox(service, request.body),
    )
  }
}
