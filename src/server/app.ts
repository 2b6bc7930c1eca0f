import { createRequire } from 'node:module'
import type { BuildCompilerFromPool } from '@fastify/ajv-compiler'
import Fastify, { type FastifyInstance, type FastifyRequest } from 'fastify'
import type { AllowedHosts } from '../domain/request-guard.js'
import { type AnsweredRequest, consoleLine, describeLine, isQuiet, type RequestLog } from '../inspector/request-log.js'
import { isOperatorMark, OPERATOR_HEADER } from '../domain/operator.js'
import type { SandboxService } from '../service/sandbox.js'
import { installJsonBody } from '../http/body.js'
import { closeQuietConnections } from './connections.js'
import { clientError, frameworkError, installErrorHandling } from '../http/errors.js'
import { installGuard } from './guard.js'
import { installOpenapi } from '../openapi/install.js'
import type { ClockView } from '../clock/sandbox-clock.js'
import type { SandboxInfo } from '../http/info.js'
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
  /** Keeps the answered requests for the inspector and `pay logs tail`. */
  requests?: RequestLog
  logError?: (error: unknown) => void
  /** Called after `POST /_sandbox/shutdown` is answered; should stop the sandbox as SIGTERM would. */
  onShutdownRequest?: () => void
  /** Host names answered besides IP literals and localhost (default none); `all` answers any Host. */
  allowedHosts?: AllowedHosts
  timeouts?: RequestTimeouts
  /** Extra route plugins (checkout pages, callbacks control). */
  plugins?: Array<(app: FastifyInstance) => Promise<void>>
  /** Plugins whose hooks reach the routes (API faults), registered before them. */
  wrappers?: Array<(app: FastifyInstance) => Promise<void>>
  /**
   * Waits until the store holds every change acknowledged before a request was sent, by any instance; run before
   * each request. Absent when nothing but this instance writes (the data file): then requests wait for nothing.
   */
  sync?: () => Promise<void>
}

function checkingInterval({ headersMs, requestMs }: RequestTimeouts): number {
  const shortest = Math.min(...[headersMs, requestMs].filter((ms) => ms > 0))
  return Number.isFinite(shortest) ? Math.max(20, Math.min(1000, Math.floor(shortest / 5))) : 30_000
}

/** Defined (true) in the CLI's bundle only (scripts/bundle.mjs). */
declare const PAY_BUNDLE: true | undefined

/**
 * @fastify/ajv-compiler, loaded when a route first validates. The CLI's bundle carries its own copy (the literal
 * `require` is what the bundler follows); compiled modules run as ES modules, where only createRequire finds it
 * (a global `require`, as `node -e` has, would look from the caller's folder).
 */
function loadAjvCompiler(): () => BuildCompilerFromPool {
  return (typeof PAY_BUNDLE !== 'undefined' ? require('@fastify/ajv-compiler') : createRequire(import.meta.url)('@fastify/ajv-compiler')) as () => BuildCompilerFromPool
}

type Validate = ((data: unknown) => unknown) & { errors?: unknown }

/**
 * Fastify's own validators (Ajv, as by default), built for each route on its first request rather than all at
 * start: compiling every route's schema, and loading Ajv, was a sixth of the server's start-up.
 */
function lazyValidators(...pool: Parameters<BuildCompilerFromPool>): (routeSchema: { httpPart?: string }) => Validate {
  const compilers = new Map<boolean, (routeSchema: unknown) => Validate>()
  const compilerFor = (body: boolean) => {
    let compiler = compilers.get(body)
    if (!compiler) {
      const factory = loadAjvCompiler()
      const [external, options] = pool as unknown as [unknown, { customOptions?: object } | undefined]
      const customOptions = {
        ...options?.customOptions,
        // Our schemas are checked against the meta-schema by the API document's test; compiling the meta-schema
        // here cost the first request ~50 ms.
        validateSchema: false,
        // A JSON body is taken as sent: `"3"` is not 3, and an unknown field is refused rather than dropped, so a
        // client's mistake gets an answer. Query strings and path parameters are text, read as their types.
        ...(body ? { coerceTypes: false, removeAdditional: false } : {}),
      }
      compiler = (factory() as unknown as (...args: unknown[]) => (routeSchema: unknown) => Validate)(external, { ...options, customOptions })
      compilers.set(body, compiler)
    }
    return compiler
  }
  return (routeSchema) => {
    if (isNoQuery(routeSchema)) return dropQuery(() => compilerFor(false)(routeSchema))
    let compiled: Validate | undefined
    const validate: Validate = (data) => {
      if (!compiled) compiled = compilerFor(routeSchema.httpPart === 'body')(routeSchema)
      const result = compiled(data)
      // Fastify reads a failed validation's errors from the function it was given.
      validate.errors = compiled.errors
      return result
    }
    return validate
  }
}

/** A query string schema that takes no parameters (`noQuery`): most GET routes', the health check's among them. */
function isNoQuery(routeSchema: { httpPart?: string; schema?: unknown }): boolean {
  const schema = routeSchema.schema as Record<string, unknown> | undefined
  if (routeSchema.httpPart !== 'querystring' || typeof schema !== 'object' || schema === null) return false
  const keys = Object.keys(schema)
  const properties = schema.properties as object | undefined
  return (
    keys.length === 3 &&
    schema.type === 'object' &&
    schema.additionalProperties === false &&
    typeof properties === 'object' &&
    properties !== null &&
    Object.keys(properties).length === 0
  )
}

/**
 * What Ajv does with `noQuery` under Fastify's options for a query string (`removeAdditional`): every parameter is
 * dropped and the query passes. Done here without Ajv, so that a start's first requests (the health check) need no
 * compiler; anything but an object (never a parsed query) is still Ajv's to judge.
 */
function dropQuery(ajv: () => Validate): Validate {
  let compiled: Validate | undefined
  const validate: Validate = (data) => {
    if (typeof data === 'object' && data !== null && !Array.isArray(data)) {
      for (const key in data) delete (data as Record<string, unknown>)[key]
      validate.errors = null
      return true
    }
    compiled ??= ajv()
    const result = compiled(data)
    validate.errors = compiled.errors
    return result
  }
  return validate
}

/** Answers are JSON.stringify'd: response schemas document the API; they never reshape an answer. */
const plainSerializers = () => () => (data: unknown) => JSON.stringify(data)

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
    clientErrorHandler: clientError,
    // Fastify only calls a validator and reads its `errors`; the type asks for all of an Ajv function.
    schemaController: { compilersFactory: { buildValidator: lazyValidators as unknown as BuildCompilerFromPool, buildSerializer: plainSerializers } },
  })
  // JSON only: without this, text/plain bodies would be parsed as strings.
  app.removeContentTypeParser('text/plain')
  // Response schemas document the API; they never reshape an answer (drop a field, coerce an amount).
  app.setSerializerCompiler(() => (data) => JSON.stringify(data))
  installErrorHandling(app, options.logError ?? (() => {}))
  installGuard(app, options.allowedHosts ?? [])
  const { sync } = options
  if (sync) {
    // After the guard, so a refused request waits for nothing; a store that cannot be reached answers 503.
    app.addHook('onRequest', (_request, _reply, done) => {
      sync().then(() => done(), done)
    })
  }
  installJsonBody(app)
  await installOpenapi(app, options.info().version)
  closeQuietConnections(app)

  const { log, requests } = options
  if (log || requests) {
    // The one place requests are seen answered: the console line and the request log come from one record. The log
    // keeps it as it is and describes it when read; the console line needs only its start (not the query or body).
    const operatorHeader = OPERATOR_HEADER.toLowerCase()
    const record = (request: FastifyRequest, status: number, ms: number): void => {
      if (isQuiet(request.url)) return
      const answered: AnsweredRequest = { method: request.method, url: request.url, status, ms, at: new Date() }
      if (request.outcome) answered.outcome = request.outcome
      if (request.jsonBody) answered.body = request.jsonBody
      if (request.fault !== undefined) answered.fault = request.fault
      if (isOperatorMark(request.headers[operatorHeader])) answered.operator = true
      if (log) log(consoleLine(describeLine(answered)!))
      requests?.add(answered)
    }
    app.addHook('onResponse', function logAnswered(request, reply, done) {
      record(request, reply.statusCode, reply.elapsedTime)
      done()
    })
    // A request a fault ended with no answer never reaches onResponse: its entry has status 0.
    app.decorate('logUnanswered', (request: FastifyRequest, ms: number) => record(request, 0, ms))
  }

  for (const plugin of options.wrappers ?? []) await app.register(plugin)
  await app.register(apiRoutes(options.service))
  await app.register(sandboxRoutes(options.service, options.info, options.clock))
  await app.register(checkoutRoutes(options.service, options.checkout))
  await app.register(siteRoutes())
  await app.register(lifecycleRoutes(options.service, options.info, options.onShutdownRequest ?? (() => {})))
  for (const plugin of options.plugins ?? []) await app.register(plugin)
  return app
}
