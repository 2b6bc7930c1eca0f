/**
 * Bot tokens: `<bot id>:<secret>`. The emulator knows a bot by its id; any well-formed token of a new id
 * registers that bot, and afterwards only the same token is accepted for it, as Telegram does after a token is
 * revoked.
 */

export interface ParsedToken {
  id: number
  secret: string
}

/** The Bot API server's own check: `Unauthorized: invalid token specified` when it fails. */
export function tokenShape(token: string): { ok: true; id: number } | { ok: false } {
  const colon = token.indexOf(':')
  if (token === '' || token.startsWith('0') || token.length > 80 || token.includes('/') || colon < 0) return { ok: false }
  const head = token.slice(0, colon)
  if (!/^\d{1,16}$/.test(head)) return { ok: false }
  const id = Number(head)
  if (!Number.isSafeInteger(id) || id <= 0 || id >= 2 ** 53) return { ok: false }
  return { ok: true, id }
}

/** Secrets as BotFather issues them: 35 characters of A–Z, a–z, 0–9, `_` and `-`. Others are unknown tokens. */
export const SECRET = /^[A-Za-z0-9_-]{35}$/

/** A token the emulator accepts: the server's shape plus a BotFather-style secret. */
export function parseToken(token: string): ParsedToken | undefined {
  const shape = tokenShape(token)
  if (!shape.ok) return undefined
  const secret = token.slice(token.indexOf(':') + 1)
  return SECRET.test(secret) ? { id: shape.id, secret } : undefined
}

/** `123456:AAE…` → `123456:***`, for tables and logs. */
export function maskToken(token: string): string {
  const colon = token.indexOf(':')
  return colon < 0 ? '***' : `${token.slice(0, colon)}:***`
}

/** A username derived from the bot id, for bots nobody named: `sandbox_123456_bot`. */
export function defaultUsername(id: number): string {
  return `sandbox_${id}_bot`
}

/** Telegram bot usernames: 5–32 characters of letters, digits and `_`, starting with a letter and ending in `bot`. */
export const USERNAME = /^[A-Za-z][A-Za-z0-9_]{1,28}bot$/i
