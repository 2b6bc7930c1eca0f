/**
 * Every outcome the sandbox can answer, in one table.
 *
 * Spec outcomes carry the spec's `result` code and exact `message` (or none, where the spec gives none).
 * Request errors are transport-level problems the spec defines no code for (malformed JSON, unknown route,
 * …): they are answered with an HTTP 4xx (or 5xx) and `{statusCode, error, message}`. Under /api/v1 the body
 * also carries `result`, the HTTP status (see `specApiErrorBody`).
 */

export const SpecResult = {
  success: 100,
  merchantDisabled: 103,
  invalidApiKey: 104,
  invalidAmount: 105,
  invalidCallbackUrl: 106,
  invalidReturnUrl: 107,
  descriptionTooLong: 108,
  mobileTooLong: 109,
  notCompleted: 202,
  invalidTrackIdOrNotFinal: 203,
} as const
export type SpecResultCode = (typeof SpecResult)[keyof typeof SpecResult]

/** Every `result` verify can answer. */
export const VERIFY_RESULTS = [
  SpecResult.success,
  SpecResult.merchantDisabled,
  SpecResult.invalidApiKey,
  SpecResult.notCompleted,
  SpecResult.invalidTrackIdOrNotFinal,
] as const

/** The spec's exact messages (Errors table). */
export const SpecMessage = {
  success: 'success',
  merchantDisabled: 'Merchant account is disabled',
  invalidApiKey: 'Invalid API key',
  invalidAmount: 'Amount is missing or invalid',
  invalidCallbackUrl: 'Callback URL is missing or invalid',
  invalidReturnUrl: 'Invalid return URL',
  descriptionTooLong: 'Description is too long',
  mobileTooLong: 'Mobile number is too long',
  invalidTrackId: 'Invalid track ID',
} as const

export type SpecFailure =
  | { result: 103; message: typeof SpecMessage.merchantDisabled }
  | { result: 104; message: typeof SpecMessage.invalidApiKey }
  | { result: 105; message: typeof SpecMessage.invalidAmount }
  | { result: 106; message: typeof SpecMessage.invalidCallbackUrl }
  | { result: 107; message: typeof SpecMessage.invalidReturnUrl }
  | { result: 108; message: typeof SpecMessage.descriptionTooLong }
  | { result: 109; message: typeof SpecMessage.mobileTooLong }

export const failures = {
  merchantDisabled: { result: 103, message: SpecMessage.merchantDisabled },
  invalidApiKey: { result: 104, message: SpecMessage.invalidApiKey },
  invalidAmount: { result: 105, message: SpecMessage.invalidAmount },
  invalidCallbackUrl: { result: 106, message: SpecMessage.invalidCallbackUrl },
  invalidReturnUrl: { result: 107, message: SpecMessage.invalidReturnUrl },
  descriptionTooLong: { result: 108, message: SpecMessage.descriptionTooLong },
  mobileTooLong: { result: 109, message: SpecMessage.mobileTooLong },
} as const satisfies Record<string, SpecFailure>

/** Request errors: HTTP status and a stable machine-readable code. */
export const RequestError = {
  invalidJson: { statusCode: 400, error: 'invalid_json' },
  invalidBody: { statusCode: 400, error: 'invalid_body' },
  invalidField: { statusCode: 400, error: 'invalid_field' },
  /** A malformed request Node or Fastify refuses before any route sees it (a bad URL, a cut body …). */
  badRequest: { statusCode: 400, error: 'bad_request' },
  /** Host header missing, malformed, or a name not allowed (DNS rebinding). */
  hostNotAllowed: { statusCode: 403, error: 'host_not_allowed' },
  /** Origin header of a page whose host is not allowed, or `null` (file:// pages, sandboxed frames). */
  originNotAllowed: { statusCode: 403, error: 'origin_not_allowed' },
  /** A state-changing request a browser marks as sent by a page of another origin (Sec-Fetch-Site). */
  crossSiteRequest: { statusCode: 403, error: 'cross_site_request' },
  notFound: { statusCode: 404, error: 'not_found' },
  methodNotAllowed: { statusCode: 405, error: 'method_not_allowed' },
  conflict: { statusCode: 409, error: 'conflict' },
  invalidTransition: { statusCode: 409, error: 'invalid_transition' },
  payloadTooLarge: { statusCode: 413, error: 'payload_too_large' },
  unsupportedMediaType: { statusCode: 415, error: 'unsupported_media_type' },
  storageUnavailable: { statusCode: 503, error: 'storage_unavailable' },
  /** A bug: the answer names no internals; the console has the details. */
  internalError: { statusCode: 500, error: 'internal_error' },
} as const
export type RequestErrorKind = keyof typeof RequestError

export interface RequestErrorBody {
  statusCode: number
  error: string
  message: string
}

/** Paths of the spec API: every body there carries an integer `result`. */
export function isSpecApiPath(path: string): boolean {
  return path === '/api/v1' || path.startsWith('/api/v1/')
}

/** A request error as the spec API answers it. */
export interface SpecApiErrorBody extends RequestErrorBody {
  result: number
}

/**
 * The spec says every response body carries an integer `result`, so a client may switch on it alone. A
 * request error's `result` is its HTTP status (400–599): it can never be read as one of the spec's codes (100,
 * 103–109, 202, 203), and it says what the status says.
 */
export function specApiErrorBody(body: RequestErrorBody): SpecApiErrorBody {
  return { result: body.statusCode, ...body }
}

/** A request error raised by domain or store code; the server turns it into its HTTP answer. */
export class SandboxError extends Error {
  readonly kind: RequestErrorKind
  constructor(kind: RequestErrorKind, message: string) {
    super(message)
    this.kind = kind
    this.name = 'SandboxError'
  }

  toBody(): RequestErrorBody {
    const { statusCode, error } = RequestError[this.kind]
    return { statusCode, error, message: this.message }
  }
}
