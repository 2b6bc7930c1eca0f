import type { FastifyInstance } from 'fastify'
import type { CallbackDispatcher } from '../callbacks/dispatcher.js'
import type { SandboxService } from '../service/sandbox.js'
import { ChangeFeed } from './changes.js'
import { inspectorControlRoutes } from './control-routes.js'
import { inspectorPageRoutes } from './page-routes.js'
import type { SiteLinks } from './pages/parts.js'
import type { LabReaders } from './lab.js'
import type { RequestLog } from './request-log.js'
import { EventStreams } from '../http/sse.js'

export interface InspectorOptions {
  service: SandboxService
  callbacks: CallbackDispatcher
  /** Filled by the server's response hook (src/server/app.ts). */
  requests: RequestLog
  /** The sandbox's URL, once it listens. */
  url: () => string
  /** Where checkout URLs start: the public URL (`--public-url`), else the sandbox's URL. */
  checkoutBase?: () => string
  /** The verify journal and the audit, when the sandbox keeps them: the pages show them then. */
  lab?: LabReaders
}

/**
 * The inspector: its pages at `/` and under `/inspect`, the request log at `/_sandbox/requests`, and the event
 * streams the pages and `pay logs tail` follow.
 */
export function inspectorPlugin(options: InspectorOptions) {
  return async function (app: FastifyInstance): Promise<void> {
    const streams = new EventStreams()
    const changes = new ChangeFeed()
    const stops = [
      options.service.onPaymentChanged(changes),
      options.callbacks.onDeliveryChanged((delivery) => changes.deliveryChanged(delivery)),
      () => changes.close(),
      options.lab?.faults?.onChanged(() => changes.faultsChanged()) ?? (() => {}),
    ]
    // Pages that other plugins may serve are linked only when they exist.
    let links: SiteLinks = { docs: false, audit: options.lab?.audit !== undefined }
    app.addHook('onReady', async () => {
      links = { ...links, docs: app.hasRoute({ method: 'GET', url: '/docs' }) }
    })
    // Streams never go idle: each is told the sandbox is stopping and ended, so the server can finish closing.
    app.addHook('preClose', async () => streams.closeAll('shutdown', { stopping: true }))
    app.addHook('onClose', async () => stops.forEach((stop) => stop()))
    await app.register(inspectorControlRoutes(options.requests, changes, streams))
    await app.register(inspectorPageRoutes(options.service, options.requests, { url: options.url, checkoutBase: options.checkoutBase ?? options.url, links: () => (options.lab?.clock ? { ...links, clock: options.lab.clock() } : links) }, options.lab ?? {}))
  }
}
