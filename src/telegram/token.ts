/**
 * Bot tokens: `<bot id>:<secret>`. The emulator knows a bot by its id; any token of this form for a new id
 * registers that bot, and afterwards only the same token is accepted for it, as Telegram does after a token is
 * revoked. Telegram's own rule for the secret (35 characters from BotFather) cannot be checked offline, so test
 * tokens such as `123456:TEST-token` work.
 */

export interface ParsedToken {
  id: number
  secret: string
}

/** The rule, as refusals state it. */
export const TOKEN_RULE =
  '<bot id>:<secret>, the bot id a positive whole number (no leading 0) and the secret 1 to 100 letters, digits, "_" or "-" (e.g. 123456:TEST-token)'

const TOKEN = /^([1-9]\d{0,15}):([A-Za-z0-9_-]{1,100})$/

/** A token the emulator accepts, or undefined. */
export function parseToken(token: string): ParsedToken | undefined {
  const match = TOKEN.exec(token)
  if (!match) return undefined
  const id = Number(match[1])
  return Number.isSafeInteger(id) ? { id, secret: match[2]! } : undefined
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
