/**
 * Bot API answers, as Telegram writes them: `{ok: true, result}` or `{ok: false, error_code, description}`,
 * with the HTTP status equal to `error_code`. Descriptions follow the Bot API server's wording.
 */

export interface BotApiSuccess<T = unknown> {
  ok: true
  result: T
  description?: string
}

export interface BotApiFailure {
  ok: false
  error_code: number
  description: string
  parameters?: { retry_after?: number; migrate_to_chat_id?: number }
}

export type BotApiAnswer<T = unknown> = BotApiSuccess<T> | BotApiFailure

/** A method call that Telegram would refuse; the route answers it as `{ok: false, …}`. */
export class BotApiError extends Error {
  readonly code: number
  constructor(code: number, description: string) {
    super(description)
    this.name = 'BotApiError'
    this.code = code
  }

  toAnswer(): BotApiFailure {
    return { ok: false, error_code: this.code, description: this.message }
  }
}

/** 400 "Bad Request: …": the first letter lower-cased, as the Bot API server writes its reasons. */
export function badRequest(reason: string): BotApiError {
  const text = /^[A-Z][a-z]/.test(reason) ? reason[0]!.toLowerCase() + reason.slice(1) : reason
  return new BotApiError(400, `Bad Request: ${text}`)
}

export const notFound = (): BotApiError => new BotApiError(404, 'Not Found')
export const unauthorized = (detail?: string): BotApiError =>
  new BotApiError(401, detail === undefined ? 'Unauthorized' : `Unauthorized: ${detail}`)
export const conflict = (reason: string): BotApiError => new BotApiError(409, `Conflict: ${reason}`)

export const CONFLICT_OTHER_GET_UPDATES =
  'terminated by other getUpdates request; make sure that only one bot instance is running'
export const CONFLICT_WEBHOOK_ACTIVE =
  "can't use getUpdates method while webhook is active; use deleteWebhook to delete the webhook first"
export const CONFLICT_SET_WEBHOOK = 'terminated by setWebhook request'
