import type { FastifyInstance } from 'fastify'
import { refusedPage } from '../checkout/checkout-page.js'
import { pageHeaders } from '../pages/layout.js'
import { RequestError, type RequestErrorBody } from '../domain/outcomes.js'
import { type AllowedHosts, judgeRequest } from '../domain/request-guard.js'
import { sendRequestError } from '../http/errors.js'

/**
 * Refuses, before any route runs, requests a web page could have made: a Host or Origin that is not allowed,
 * a state-changing request another origin sent, or one that does not say `application/json` (see
 * src/domain/request-guard.ts). Page routes (`config: { page: true }`) are refused with an HTML page.
 */
export function installGuard(app: FastifyInstance, allowed: AllowedHosts): void {
  app.addHook('onRequest', (request, reply, done) => {
    const headers = request.headers
    const refusal = judgeRequest(
      {
        method: request.method,
        host: headers.host,
        origin: headers.origin,
        secFetchSite: headers['sec-fetch-site'] as string | undefined,
        contentType: headers['content-type'],
        // The spec API answers 415 itself; an unknown route changes nothing and is better answered 404.
        // The Bot API emulator takes what Telegram takes: query strings, forms, multipart and JSON.
        wantsJson: !request.is404 && !request.url.startsWith('/api/') && !isBotApi(request.url),
        getChanges: isBotApi(request.url),
      },
      allowed,
    )
    if (refusal === undefined) return done()
    const body: RequestErrorBody = { ...RequestError[refusal.kind], message: refusal.message }
    if (request.routeOptions.config.page && (request.method === 'GET' || request.method === 'HEAD')) {
      request.outcome = { error: body.error }
      reply.code(body.statusCode).headers(pageHeaders(undefined)).send(refusedPage(refusal.message))
    } else {
      sendRequestError(request, reply, body)
    }
  })
}

const isBotApi = (url: string): boolean => url === '/telegram' || url.startsWith('/telegram/') || url.startsWith('/telegram?')

declare module 'fastify' {
  interface FastifyContextConfig {
    /** An HTML page route: refusals are answered with a page rather than JSON. */
    page?: boolean
  }
}
