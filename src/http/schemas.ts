/** JSON schemas of the routes. Spec bodies are only required to be objects: the spec's own rules answer the rest. */

import { deliveryStates, REPLAY_URL_MAX } from '../domain/callback.js'
import { CALLBACK_MODE_PATTERN, CALLBACK_MODE_RULE } from '../domain/fault.js'
import { failures, RequestError, type RequestErrorBody, type RequestErrorKind, type SpecApiErrorBody, SpecMessage, SpecResult } from '../domain/outcomes.js'
import { MAX_AMOUNT, outcomes, paymentStatuses } from '../domain/payment.js'
import { LIMITS } from '../domain/validate.js'
import type { VerifyJournal } from '../domain/types.js'
import type { Agree, Answer, Check, RecordName, Sent } from '../http/wire.js'

export const anyObject = { type: 'object' } as const

const specFailure = {
  type: 'object',
  description: 'a failure: its code and the spec\'s message',
  properties: {
    result: { type: 'integer', enum: Object.values(failures).map((f) => f.result) },
    message: { type: 'string', enum: Object.values(failures).map((f) => f.message) },
  },
  required: ['result', 'message'],
} as const

/** Amounts are answered as the double they parsed to, in its shortest round-trip form: exactly as sent. */
const exactAmount = (description: string) => ({ type: 'number', description: `${description}, exactly as sent` }) as const

export const specCreateResponse = {
  description: 'every outcome the spec defines is HTTP 200; `result` says which',
  oneOf: [
    {
      type: 'object',
      description: 'created',
      properties: { result: { type: 'integer', const: SpecResult.success }, trackId: { type: 'string', description: 'the payment; the customer pays at /pay/<trackId>' }, message: { type: 'string', const: SpecMessage.success } },
      required: ['result', 'trackId', 'message'],
    },
    specFailure,
  ],
} as const
/** What create answers, as documented; the service's own type (CreateBody) is checked against it below. */
export type CreateAnswer = Answer<typeof specCreateResponse>

export const specVerifyResponse = {
  description: 'every outcome the spec defines is HTTP 200; `result` says which',
  oneOf: [
    {
      type: 'object',
      description: 'paid',
      properties: { result: { type: 'integer', const: SpecResult.success }, amount: exactAmount('the amount paid'), refNumber: { type: 'string', description: '12 digits, the same on every verify' } },
      required: ['result', 'amount', 'refNumber'],
    },
    {
      type: 'object',
      description: 'not completed (202) or paid but not finalized (203, the amount paid)',
      properties: { result: { type: 'integer', enum: [SpecResult.notCompleted, SpecResult.invalidTrackIdOrNotFinal] }, amount: exactAmount('the order amount (202) or the amount paid (203)') },
      required: ['result', 'amount'],
    },
    {
      type: 'object',
      description: 'unknown trackId, another merchant\'s, or an unknown or disabled key',
      properties: {
        result: { type: 'integer', enum: [SpecResult.invalidTrackIdOrNotFinal, failures.invalidApiKey.result, failures.merchantDisabled.result] },
        message: { type: 'string', enum: [SpecMessage.invalidTrackId, failures.invalidApiKey.message, failures.merchantDisabled.message] },
      },
      required: ['result', 'message'],
    },
  ],
} as const
export type VerifyAnswer = Answer<typeof specVerifyResponse>

/** The create body as the document states it; the route takes any object, so the spec's own codes answer the rest. */
export const specCreateBody = {
  type: 'object',
  properties: {
    merchant: { type: 'string', description: 'the merchant\'s API key' },
    amount: { type: 'number', exclusiveMinimum: 0, maximum: MAX_AMOUNT, description: 'the order amount (USD in the sandbox), any number of decimals' },
    callbackUrl: { type: 'string', maxLength: LIMITS.callbackUrl, description: 'absolute http or https URL that gets the payment notification' },
    returnUrl: { type: ['string', 'null'], maxLength: LIMITS.returnUrl, description: 'absolute http or https URL the customer is sent to after paying' },
    description: { type: ['string', 'null'], maxLength: LIMITS.description, description: 'shown on the checkout page and in the inspector' },
    mobile: { type: ['string', 'null'], maxLength: LIMITS.mobile, description: 'the customer\'s mobile number' },
  },
  required: ['merchant', 'amount', 'callbackUrl'],
} as const
/** A create request as the document states it (the spec's own codes answer anything else). */
export type CreatePaymentInput = Sent<typeof specCreateBody>

export const specVerifyBody = {
  type: 'object',
  properties: {
    merchant: { type: 'string', description: 'the merchant\'s API key' },
    trackId: { type: 'string', description: 'from create' },
  },
  required: ['merchant', 'trackId'],
} as const
export type VerifyPaymentInput = Sent<typeof specVerifyBody>

export const trackIdParams = {
  type: 'object',
  properties: { trackId: { type: 'string', minLength: 1, maxLength: 200 } },
  required: ['trackId'],
} as const

export const keyParams = {
  type: 'object',
  properties: { key: { type: 'string', minLength: 1, maxLength: 200 } },
  required: ['key'],
} as const

export const idParams = {
  type: 'object',
  properties: { id: { type: 'string', minLength: 1, maxLength: 200 } },
  required: ['id'],
} as const

/** What to do with the notification of a change: a callback mode (src/domain/fault.ts). */
export const callbackModeSchema = {
  type: 'string',
  maxLength: 40,
  pattern: CALLBACK_MODE_PATTERN,
  description: `What the sandbox does with this change's notification: ${CALLBACK_MODE_RULE}.`,
} as const

export const simulateBody = {
  type: 'object',
  properties: {
    outcome: { type: 'string', enum: outcomes },
    amount: { type: 'number' },
    // Checked by the service, whose message names the sandbox's assets.
    asset: { type: 'string' },
    callback: callbackModeSchema,
  },
  required: ['outcome'],
  additionalProperties: false,
} as const
export type SimulateInput = Sent<typeof simulateBody>

export const createMerchantBody = {
  type: 'object',
  properties: {
    key: { type: 'string' },
    name: { type: 'string' },
  },
  additionalProperties: false,
} as const
export type CreateMerchantInput = Sent<typeof createMerchantBody>

export const paymentListQuery = {
  type: 'object',
  properties: {
    status: { type: 'string', enum: paymentStatuses },
    merchant: { type: 'string' },
    limit: { type: 'integer', minimum: 1, maximum: 100000 },
  },
  additionalProperties: false,
} as const
export type PaymentListQuery = Sent<typeof paymentListQuery>

export const deliveryListQuery = {
  type: 'object',
  properties: {
    trackId: { type: 'string', minLength: 1, maxLength: 200 },
    state: { type: 'string', enum: deliveryStates },
    limit: { type: 'integer', minimum: 1, maximum: 100000 },
  },
  additionalProperties: false,
} as const
export type DeliveryListQuery = Sent<typeof deliveryListQuery>

export const refParams = {
  type: 'object',
  properties: { ref: { type: 'string', minLength: 1, maxLength: 200 } },
  required: ['ref'],
} as const

export const replayBody = {
  type: 'object',
  properties: { to: { type: 'string', minLength: 1, maxLength: REPLAY_URL_MAX } },
  additionalProperties: false,
} as const
export type ReplayInput = Sent<typeof replayBody>

// ── Responses. They document; they never reshape an answer (app.ts serializes every body with JSON.stringify). ──

/** A record of the export file's schema (src/domain/export-schema.ts), shared under its name. */
/** A payment's verify journal: the latest verify calls, oldest first, and how many there were in all. */
export const verifyJournal = {
  type: 'object',
  description: 'the verify calls of this payment, as the sandbox observed them: the merchant\'s, and the operator\'s (marked)',
  properties: {
    trackId: { type: 'string' },
    count: { type: 'integer', description: 'verify calls in all' },
    entries: {
      type: 'array',
      description: 'the latest 50, oldest first',
      items: {
        type: 'object',
        properties: {
          trackId: { type: 'string' },
          at: { type: 'string', description: 'sandbox time' },
          key: { type: 'string', description: 'the key sent, when it is a merchant key of this sandbox' },
          keyHint: { type: 'string', description: 'the start of a key this sandbox does not know, and its length' },
          owner: { type: 'boolean', description: 'the key is the payment\'s merchant\'s' },
          result: { type: 'integer' },
          amount: { type: 'number' },
          status: { type: 'string', enum: paymentStatuses, description: 'the payment\'s status when it was verified' },
          operator: { type: 'boolean', const: true, description: 'made by the sandbox\'s operator (the pay CLI, the inspector, a scenario checking as the operator: the Pay-Sandbox-Operator header), not by the merchant; audits leave it out' },
        },
        required: ['trackId', 'at', 'owner', 'result', 'status'],
      },
    },
  },
  required: ['trackId', 'count', 'entries'],
} as const
type _VerifyJournal = Check<Agree<Answer<typeof verifyJournal>, VerifyJournal>>

export const record = <N extends RecordName>(name: N) => ({ $ref: `${name}#` }) as { readonly $ref: `${N}#` }

/** `{name: <record>}` */
export const one = <F extends string, N extends Exclude<RecordName, 'ExportFile'>>(field: F, name: N) =>
  ({ type: 'object', properties: { [field]: record(name) }, required: [field] }) as unknown as {
    readonly type: 'object'
    readonly properties: { readonly [K in F]: ReturnType<typeof record<N>> }
    readonly required: readonly [F]
  }

/** `{name: [<record>…]}` */
export const many = <F extends string, N extends Exclude<RecordName, 'ExportFile'>>(field: F, name: N) =>
  ({ type: 'object', properties: { [field]: { type: 'array', items: record(name) } }, required: [field] }) as unknown as {
    readonly type: 'object'
    readonly properties: { readonly [K in F]: { readonly type: 'array'; readonly items: ReturnType<typeof record<N>> } }
    readonly required: readonly [F]
  }

/** A payment with its callback deliveries and its verify journal. */
export const paymentDetail = {
  type: 'object',
  properties: { payment: record('Payment'), deliveries: { type: 'array', items: record('Delivery') }, verifies: verifyJournal },
  required: ['payment', 'deliveries', 'verifies'],
} as const
export type PaymentDetail = Answer<typeof paymentDetail>

/** Body-less POSTs send `{}` (src/http/body.ts reads an empty JSON body as {}). */
export const emptyBody = { type: 'object', additionalProperties: false, description: 'send `{}` (or nothing, with `Content-Type: application/json`)' } as const

export const healthResponse = {
  type: 'object',
  properties: {
    ok: { type: 'boolean', const: true },
    name: { type: 'string', const: 'pay-sandbox' },
    version: { type: 'string' },
    url: { type: 'string' },
    dataFile: { type: 'string' },
    pid: { type: 'integer' },
    startedAt: { type: 'string' },
    clock: { type: 'object', additionalProperties: true, description: 'the sandbox clock, as GET /_sandbox/clock answers it' },
    store: {
      type: 'object',
      description: 'where the state is kept: the data file, or a PostgreSQL database (its URL with the password masked) that `instances` sandboxes share',
      properties: {
        engine: { type: 'string', enum: ['file', 'postgres'] },
        location: { type: 'string' },
        instances: { type: 'integer', description: 'sandboxes live on this store, this one included' },
        leading: { type: 'boolean', description: 'whether this one sends callbacks, expires payments and mines blocks for all of them' },
      },
      required: ['engine', 'location', 'instances', 'leading'],
    },
    settings: {
      type: 'object',
      additionalProperties: true,
      description: 'what the sandbox runs with: its start options once defaults are filled in (host, port, dataFile, durability, allowedHosts, callbacks, callbackFaults, paymentTtlMs, chain, quiet, files, publicUrl: where checkout URLs start, telegram.allowLocalUrls)',
    },
    counts: {
      type: 'object',
      properties: { merchants: { type: 'integer' }, payments: { type: 'integer' }, deliveries: { type: 'integer' } },
      required: ['merchants', 'payments', 'deliveries'],
      additionalProperties: true,
    },
  },
  required: ['ok', 'name', 'version', 'url', 'dataFile', 'pid', 'startedAt', 'counts'],
  additionalProperties: true,
} as const
/** The health answer; its `clock` is GET /_sandbox/clock's answer (the client names it). */
export type HealthAnswer = Answer<typeof healthResponse>

const counts = {
  type: 'object',
  properties: { merchants: { type: 'integer' }, payments: { type: 'integer' }, deliveries: { type: 'integer' } },
  required: ['merchants', 'payments', 'deliveries'],
} as const

export const resetResponse = {
  type: 'object',
  properties: {
    cleared: {
      type: 'object',
      description: 'payments, deliveries and API fault rules removed',
      properties: { payments: { type: 'integer' }, deliveries: { type: 'integer' }, faults: { type: 'integer', description: 'API fault rules removed' } },
      required: ['payments', 'deliveries', 'faults'],
    },
    kept: { type: 'object', description: 'merchants stay, with their keys', properties: { merchants: { type: 'integer' } }, required: ['merchants'] },
  },
  required: ['cleared', 'kept'],
} as const
export type ResetResult = Answer<typeof resetResponse>

export const importResponse = { type: 'object', properties: { loaded: counts, replaced: counts }, required: ['loaded', 'replaced'] } as const
export type ImportResult = Answer<typeof importResponse>

export const shutdownResponse = {
  type: 'object',
  properties: { ok: { type: 'boolean', const: true }, stopping: { type: 'boolean', const: true }, pid: { type: 'integer' }, url: { type: 'string' } },
  required: ['ok', 'stopping', 'pid', 'url'],
} as const
export type ShutdownAnswer = Answer<typeof shutdownResponse>

const requestErrorBody = {
  type: 'object',
  properties: {
    statusCode: { type: 'integer', description: 'the HTTP status' },
    error: { type: 'string', description: 'a stable code, such as not_found' },
    message: { type: 'string', description: 'what is wrong, in words' },
  },
  required: ['statusCode', 'error', 'message'],
} as const

/** Under /api/v1 every body carries an integer `result`; a request error's is its HTTP status. */
const specErrorBody = {
  ...requestErrorBody,
  properties: { result: { type: 'integer', description: 'the HTTP status, 400–599: never one of the spec\'s codes' }, ...requestErrorBody.properties },
  required: ['result', ...requestErrorBody.required],
} as const

type _RequestError = Check<Agree<Answer<typeof requestErrorBody>, RequestErrorBody>>
type _SpecRequestError = Check<Agree<Answer<typeof specErrorBody>, SpecApiErrorBody>>

/** The error shapes, shared under their names. */
export const errorSchemas = [
  { $id: 'RequestError', description: 'a request the spec has no code for, refused', ...requestErrorBody },
  { $id: 'SpecRequestError', description: 'a request error under /api/v1: the same with `result`, the HTTP status', ...specErrorBody },
]

type Schema = object
type Method = 'GET' | 'POST' | 'DELETE'

const CHANGE = ['invalidJson', 'hostNotAllowed', 'originNotAllowed', 'crossSiteRequest', 'payloadTooLarge', 'unsupportedMediaType', 'internalError'] as const

/** Refusals every route can give, by method: the guard's, the body parser's, and a bug's. */
const COMMON = {
  GET: ['hostNotAllowed', 'originNotAllowed', 'internalError'],
  POST: CHANGE,
  DELETE: CHANGE,
} as const satisfies Record<Method, readonly RequestErrorKind[]>

/** The guard's refusals, which a page route answers with a page. */
export const GUARD_REFUSALS = ['hostNotAllowed', 'originNotAllowed'] as const satisfies readonly RequestErrorKind[]

/** An answer that is not JSON: a page, an event stream, a picture. */
export const media = <T extends string>(description: string, type: T) =>
  ({ description, content: { [type]: { schema: { type: 'string' } } } }) as { description: string; content: { [K in T]: { schema: { type: 'string' } } } }

type StatusOf<K extends RequestErrorKind> = (typeof RequestError)[K]['statusCode']
type PageReply = ReturnType<typeof media<'text/html'>>
type ErrorReply<Spec extends boolean> = { description: string; $ref: Spec extends true ? 'SpecRequestError#' : 'RequestError#' }
/** One entry per status of the kinds: a page where a kind of that status is answered with one. */
type ErrorReplies<Kinds extends RequestErrorKind, Html extends RequestErrorKind, Spec extends boolean> = {
  [S in StatusOf<Kinds>]: S extends StatusOf<Extract<Kinds, Html>> ? PageReply : ErrorReply<Spec>
}

/**
 * The responses of a route: its successes, and the request errors it can answer (the common ones of its method
 * and `kinds`), one entry per HTTP status naming each `error` code. `spec`: the /api/v1 shape, with `result`.
 * `html`: kinds a page route answers with an HTML page rather than JSON. Typed as written, so a handler's
 * answer is checked against its success schemas.
 */
export function replies<M extends Method, S extends Record<number, Schema>, K extends RequestErrorKind = never, H extends RequestErrorKind = never, Spec extends boolean = false>(
  method: M,
  success: S,
  kinds: readonly K[] = [],
  options: { spec?: Spec; html?: readonly H[] } = {},
): S & ErrorReplies<(typeof COMMON)[M][number] | K, H, Spec> {
  const byStatus = new Map<number, { codes: string[]; page: boolean }>()
  for (const kind of [...COMMON[method], ...kinds]) {
    const { statusCode, error } = RequestError[kind]
    const entry = byStatus.get(statusCode) ?? { codes: [], page: false }
    if (!entry.codes.includes(error)) entry.codes.push(error)
    if ((options.html as readonly RequestErrorKind[] | undefined)?.includes(kind)) entry.page = true
    byStatus.set(statusCode, entry)
  }
  const errors = [...byStatus].sort(([a], [b]) => a - b).map(([status, { codes, page }]) => {
    const said = codes.map((c) => `\`${c}\``).join(', ')
    return [status, page ? media(`${said}: a page saying why`, 'text/html') : { description: said, $ref: options.spec ? 'SpecRequestError#' : 'RequestError#' }]
  })
  return { ...success, ...Object.fromEntries(errors) }
}

/** A JSON success answer with its description (typed as its schema, so its type is the one read from the schema elsewhere). */
export const json = <S extends Schema>(description: string, schema: S): S => ({ description, ...schema })

/** For GET routes that take no query: documents that, and drops what is sent. */
export const noQuery = { type: 'object', properties: {}, additionalProperties: false } as const
