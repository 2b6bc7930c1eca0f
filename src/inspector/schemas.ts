/** JSON schemas of the inspector's routes: its pages, the request log and the event streams. */

import type { RequestErrorKind } from '../domain/outcomes.js'
import { paymentStatuses } from '../domain/payment.js'
import { GUARD_REFUSALS, json, media, noQuery, replies, trackIdParams } from '../http/schemas.js'
import { PAYMENTS_SHOWN, SEARCH_MAX } from './payment-query.js'
import type { Agree, Answer, Check, Sent } from '../http/wire.js'
import { KEPT_BYTES, type RequestEntry } from './request-entry.js'
import { requestFilterProperties, type RequestFilter } from './request-filter.js'
import { REQUEST_LOG_LIMITS } from './request-log.js'
import { REQUESTS_SHOWN } from './pages/requests.js'

/** Pages are under Site, the request log and the event streams under the control API. */
const PAGE = { tags: ['Site'] } as const
const CONTROL = { tags: ['Control API'] } as const

const page = (description: string) => media(description, 'text/html')
/** A page answers the guard's refusals, and a query it cannot use, with a page saying why. */
const pageReplies = (kinds: readonly RequestErrorKind[] = []) => replies('GET', { 200: page('the page') }, kinds, { html: [...GUARD_REFUSALS, ...kinds] })
const redirect = (to: string) => replies('GET', { 302: { description: `to ${to}`, type: 'null' } }, [], { html: GUARD_REFUSALS })

/** Passed on to /inspect/payments as it is. */
const dashboardQuery = {
  type: 'object',
  properties: { merchant: { type: 'string' }, status: { type: 'string' }, limit: { type: 'string' } },
  additionalProperties: true,
} as const

const paymentsPageQuery = {
  type: 'object',
  properties: {
    merchant: { type: 'string', maxLength: 128 },
    status: { type: 'string', enum: ['', ...paymentStatuses] },
    q: { type: 'string', maxLength: SEARCH_MAX, description: 'part of a trackId or description, any case' },
    limit: { type: 'integer', minimum: 1, maximum: PAYMENTS_SHOWN.max, default: PAYMENTS_SHOWN.default },
  },
  additionalProperties: false,
} as const

/** The requests page takes filter fields as typed in its form: blank means any, and the page names a bad one. */
const requestsPageQuery = {
  type: 'object',
  properties: {
    path: { type: 'string', maxLength: 512 },
    method: { type: 'string', maxLength: 16 },
    status: { type: 'string', maxLength: 3 },
    result: { type: 'string', maxLength: 3 },
    trackId: { type: 'string', maxLength: 200 },
    limit: { type: 'integer', minimum: 1, maximum: REQUESTS_SHOWN.max, default: REQUESTS_SHOWN.default },
  },
  additionalProperties: false,
} as const

const requestEntrySchema = {
  type: 'object',
  properties: {
    seq: { type: 'integer', description: '1 for the first request since the sandbox started' },
    at: { type: 'string', description: 'when the answer was finished (ISO 8601)' },
    method: { type: 'string' },
    path: { type: 'string', description: `as sent, without the query; URL credentials and bot tokens masked; its first ${KEPT_BYTES.path} bytes` },
    query: { type: 'string', description: `as sent, without the \`?\`, masked the same way; its first ${KEPT_BYTES.query} bytes` },
    status: { type: 'integer', description: 'HTTP status' },
    result: { type: 'integer', description: "the spec's result code, when the answer carried one" },
    error: { type: 'string', description: 'the request error code' },
    trackId: { type: 'string', description: `its first ${KEPT_BYTES.trackId} bytes` },
    ms: { type: 'number', description: 'time to answer, in milliseconds' },
    body: { type: 'string', description: `the first ${KEPT_BYTES.body} bytes of the body (spec and control API only)` },
    bodyBytes: { type: 'integer', description: "the body's whole size" },
    bodyTruncated: { type: 'boolean', description: '`body` is only the start of the body' },
    truncated: {
      type: 'object',
      properties: { path: { type: 'integer' }, query: { type: 'integer' }, trackId: { type: 'integer' } },
      additionalProperties: false,
      description: 'the texts kept cut (only their first bytes), each with its whole size in bytes',
    },
    operator: { type: 'boolean', const: true, description: "sent with Pay-Sandbox-Operator: 1 by the sandbox's operator (the pay CLI, the inspector, a scenario checking as the operator), not by the merchant" },
  },
  required: ['seq', 'at', 'method', 'path', 'status', 'ms'],
  additionalProperties: false,
} as const
type _RequestEntry = Check<Agree<Answer<typeof requestEntrySchema>, RequestEntry>>
type _RequestFilter = Check<Agree<Sent<{ type: 'object'; properties: typeof requestFilterProperties; additionalProperties: false }>, RequestFilter>>

export const requestsQuery = {
  type: 'object',
  properties: {
    ...requestFilterProperties,
    after: { type: 'integer', minimum: 0, description: 'only entries with a higher seq' },
    limit: { type: 'integer', minimum: 1, maximum: REQUEST_LOG_LIMITS.capacity, description: 'only the newest N' },
  },
  additionalProperties: false,
} as const
/** Which entries of the request log to list: a filter, and where to start. */
export type RequestLogQuery = Sent<typeof requestsQuery>

const requestLogPage = {
  type: 'object',
  properties: {
    requests: { type: 'array', items: requestEntrySchema, description: 'oldest first' },
    capacity: { type: 'integer', description: 'how many requests the log keeps at most (in memory only)' },
    maxBytes: { type: 'integer', description: 'how many bytes (as JSON) the entries kept take at most; the oldest are let go first' },
    oldestSeq: { type: 'integer' },
    latestSeq: { type: 'integer' },
  },
  required: ['requests', 'capacity', 'maxBytes', 'oldestSeq', 'latestSeq'],
  additionalProperties: false,
} as const
/** A page of the request log: entries oldest first, and where the log stands. */
export type RequestLogPage = Answer<typeof requestLogPage>

export const requestEventsQuery = {
  type: 'object',
  properties: {
    ...requestFilterProperties,
    after: { type: 'integer', minimum: 0, description: 'first send the entries kept with a higher seq' },
  },
  additionalProperties: false,
} as const
export type RequestEventsQuery = Sent<typeof requestEventsQuery>

const changeEventsQuery = {
  type: 'object',
  properties: {
    trackId: { type: 'string', minLength: 1, maxLength: 200, description: "only this payment's changes (and its requests)" },
    requests: { type: 'boolean', description: 'also every request answered' },
  },
  additionalProperties: false,
} as const

const eventStream = (description: string) => replies('GET', { 200: media(`server-sent events: ${description}`, 'text/event-stream') }, ['invalidBody'])

/** Every inspector route's schema, by route. */
export const routeSchemas = {
  home: { ...PAGE, summary: 'The inspector: where to point an integration, counts, the latest payments and requests, live', querystring: noQuery, response: pageReplies() },
  dashboard: { ...PAGE, summary: 'The old dashboard: leads to the payments list, with its query', querystring: dashboardQuery, response: redirect('/inspect/payments') },
  inspect: { ...PAGE, summary: 'Leads to the inspector', querystring: noQuery, response: redirect('/') },
  payments: { ...PAGE, summary: 'Payments newest first, filtered and searched, live', querystring: paymentsPageQuery, response: pageReplies(['invalidBody']) },
  payment: {
    ...PAGE,
    summary: 'One payment: history, callbacks with every attempt, the requests about it, sandbox controls; live',
    params: trackIdParams,
    querystring: noQuery,
    response: pageReplies(['invalidBody', 'notFound']),
  },
  requests: { ...PAGE, summary: 'The request log, newest first, filtered, live', querystring: requestsPageQuery, response: pageReplies(['invalidBody']) },
  merchants: { ...PAGE, summary: 'Merchants: create one, disable or enable it', querystring: noQuery, response: pageReplies() },
  audit: { ...PAGE, summary: "The audit's verdict on the integration the sandbox observed, live", querystring: noQuery, response: pageReplies() },
  requestLog: {
    ...CONTROL,
    summary: 'The request log: the last requests answered, kept in memory only, oldest first',
    querystring: requestsQuery,
    response: replies('GET', { 200: json('the entries kept that match', requestLogPage) }, ['invalidBody']),
  },
  requestEvents: {
    ...CONTROL,
    summary: 'The request log as it grows',
    querystring: requestEventsQuery,
    response: eventStream(
      '`request` (an entry; its seq is the event id), first those kept after `after`; `gap` ({from, to}) for entries let go before they could be sent; `shutdown` when the sandbox stops, then the stream ends. Paced by the reader: one that falls behind is not dropped, it gets a `gap` for what the log let go meanwhile',
    ),
  },
  changeEvents: {
    ...CONTROL,
    summary: 'Durable changes as they happen, for the inspector\'s pages and scripts',
    querystring: changeEventsQuery,
    response: eventStream(
      'each sent once the change is on disk: `payment` ({created, payment}), `delivery` ({delivery}), `merchant`, `reset` (a reset or an import), `fault` (an API fault rule added or removed, or faults played); with requests=true also `request`; `shutdown` when the sandbox stops',
    ),
  },
} as const
