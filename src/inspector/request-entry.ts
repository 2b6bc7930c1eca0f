/** The request log's entry: its shape and how much of each text it keeps. The log and its filters both read it. */

/**
 * Bytes kept of each text a client chooses (UTF-8, cut on a character boundary): the body (spec and control API
 * only), the path, the query and the trackId. A longer one is kept cut and marked so.
 */
export const KEPT_BYTES = { body: 2048, path: 1024, query: 1024, trackId: 256 } as const

/** Texts that are cut to KEPT_BYTES and then named in `truncated` (the body has its own two fields). */
export type CutField = 'path' | 'query' | 'trackId'

/** One answered request as the request log keeps it. */
export interface RequestEntry {
  /** 1 for the first request the sandbox answered since it started; never reused. */
  seq: number
  /** When the answer was finished. */
  at: string
  method: string
  /** As sent, without the query; URL credentials and bot tokens masked. */
  path: string
  /** The query as sent (without `?`), masked the same way; never for the Bot API. */
  query?: string
  /** The HTTP status answered; 0 when a fault closed the connection with no answer. */
  status: number
  /** The spec's `result` (spec API), when the answer carried one. */
  result?: number
  /** The request error's code (`invalid_json`, `not_found` …). */
  error?: string
  trackId?: string
  /** Time to answer (or, with no answer, until the connection closed), to 0.1 ms. */
  ms: number
  /** A fault the sandbox played on the request, in words: `status 503`, `timeout, client gave up after 30.2 s`. */
  fault?: string
  /** The body's first KEPT_BYTES.body bytes as UTF-8 (spec and control API only), masked the same way. */
  body?: string
  /** The body's whole size. */
  bodyBytes?: number
  /** `body` is only the start of the body. */
  bodyTruncated?: boolean
  /** The texts kept cut (only their first KEPT_BYTES), each with its whole size in bytes: `{ trackId: 1022976 }`. */
  truncated?: Partial<Record<CutField, number>>
  /** Sent by the sandbox's operator (the pay CLI, the inspector, a scenario checking as the operator), not the merchant. */
  operator?: true
}
