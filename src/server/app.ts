import Fastify, { type FastifyInstance } from 'fastify'
import type { AllowedHosts } from '../domain/request-guard.js'
import type { SandboxService } from '../service/sandbox.js'
import { installJsonBody } from './body.js'
import { frameworkError, installErrorHandling } from './errors.js'
import { installGuard } from './guard.js'
import type { ClockView } from '../clock/sandbox-clock.js'
import type { SandboxInfo } from './info.js'
import type { CheckoutContext } from './routes/checkout.js'
import { apiRoutes } from './routes/api.js'
import { checkoutRoutes } from './routes/checkout.js'
import { lifecycleRoutes } from './routes/lifecycle.js'
import { sandboxRoutes } from './routes/sandbox.js'
import { siteRoutes } from './routes/site.js'

export const BODY_LIMIT = 1024 * 1024

/** How long a client may take to send a request's headers, and the whole request (headers and body). */
export interface RequestTimeouts {
  headersMs: number
  requestMs: number
}

/** Local clients send a request at once; a connection that trickles is closed with 408. */
export const DEFAULT_TIMEOUTS: RequestTimeouts = { headersMs: 10_000, requestMs: 30_000 }

export interface AppOptions {
  service: SandboxService
  info: () => SandboxInfo
  /** The sandbox clock, for health and the pages (default: real time). */
  clock?: () => ClockView
  /** What the checkout pages show beyond the payment: the clock, confirmations, expiry. */
  checkout?: CheckoutContext
  /** One line per request; omit for silence. */
  log?: (line: string) => void
  logError?: (error: unknown) => void
  /** Called after `POST /_sandbox/shutdown` is answered; should stop the sandbox as SIGTERM would. */
  onShutdownRequest?: () => void
  /** Host names answered besides IP literals and localhost (default none); `all` answers any Host. */
  allowedHosts?: AllowedHosts
  timeouts?: RequestTimeouts
  /** Extra route plugins (checkout pages, callbacks control). */
  plugins?: Array<(app: FastifyInstance) => Promise<void>>
}

function checkingInterval({ headersMs, requestMs }: RequestTimeouts): number {
  const shortest = Math.min(...[headersMs, requestMs].filter((ms) => ms > 0))
  return Number.isFinite(shortest) ? Math.max(20, Math.min(1000, Math.floor(shortest / 5))) : 30_000
}

/** Quiet paths: polled often, not worth a console line each. */
const QUIET = /^\/(_sandbox\/health|_sandbox\/chat\/events|pay\/[^/]+\/(status|events)|assets\/|favicon\.ico$)/

/** Builds the Fastify app without listening. */
export async function buildApp(options: AppOptions): Promise<FastifyInstance> {
  const timeouts = options.timeouts ?? DEFAULT_TIMEOUTS
  const app = Fastify({
    logger: false,
    requestTimeout: timeouts.requestMs,
    http: {
      headersTimeout: timeouts.headersMs,
      requestTimeout: timeouts.requestMs,
      // Node looks for expired requests this often (its default, 30 s, would double the time allowed).
      connectionsCheckingInterval: checkingInterval(timeouts),
    },
    bodyLimit: BODY_LIMIT,
    forceCloseConnections: 'idle',
    return503OnClosing: false,
    routerOptions: { ignoreTrailingSlash: true },
    // Prototype keys are dropped, not refused: the body is then judged by the spec's rules like any other.
    onProtoPoisoning: 'remove',
    onConstructorPoisoning: 'remove',
    frameworkErrors: frameworkError,
  })
  // JSON only: without this, text/plain bodies would be parsed as strings.
  app.removeContentTypeParser('text/plain')
  installErrorHandling(app, options.logError ?? (() => {}))
  installGuard(app, options.allowedHosts ?? [])
  installJsonBody(app)

  const log = options.log
  if (log) {
    app.addHook('onResponse', async (request, reply) => {
      // A bot's token is its password: the log names the bot by its id only.
      const path = (request.url.split('?')[0] ?? request.url).replace(/^\/telegram\/(file\/)?bot(\d*):[^/]*/, '/telegram/$1bot$2:***')
      if (QUIET.test(path.slice(0))) return
      const o = request.outcome
      const parts = [new Date().toISOString().slice(11, 23), request.method, path, String(reply.statusCode)]
      if (o?.result !== undefined) parts.push(`result=${o.result}`)
      if (o?.error !== undefined) parts.push(`error=${o.error}`)
      if (o?.trackId !== undefined) parts.push(`trackId=${o.trackId}`)
      parts.push(`${reply.elapsedTime.toFixed(1)}ms`)
      log(parts.join(' '))
    })
  }

  await app.register(apiRoutes(options.service))
  await app.register(sandboxRoutes(options.service, options.info, options.clock))
  await app.register(checkoutRoutes(options.service, options.checkout))
  await app.register(siteRoutes())
  await app.register(lifecycleRoutes(options.service, options.info, options.onShutdownRequest ?? (() => {})))
  for (const plugin of options.plugins ?? []) await app.register(plugin)
  return app
}
