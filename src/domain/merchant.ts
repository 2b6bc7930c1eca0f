import { brief } from './brief.js'

/** A merchant's API key, generated or chosen: safe in a URL path, a shell and a config file without quoting. */
export const MERCHANT_KEY = /^[A-Za-z0-9._~-]{1,128}$/
export const MERCHANT_KEY_RULE = '1 to 128 letters, digits or . _ ~ -'
export const MERCHANT_NAME_MAX = 200

export function isMerchantKey(key: unknown): key is string {
  return typeof key === 'string' && MERCHANT_KEY.test(key)
}

export function isMerchantName(name: unknown): name is string {
  return typeof name === 'string' && name.trim().length > 0 && name.length <= MERCHANT_NAME_MAX
}

/** A name as stored: what isMerchantName takes, trimmed. */
export function isStoredMerchantName(name: unknown): name is string {
  return isMerchantName(name) && name.trim() === name
}

/** Why `key` is refused, naming the rule. */
export function merchantKeyRule(key: unknown): string {
  return `merchant key must be ${MERCHANT_KEY_RULE} (got ${brief(key)})`
}

/** Why `name` is refused, naming the rule. */
export function merchantNameRule(name: unknown): string {
  return `merchant name must be text of 1 to ${MERCHANT_NAME_MAX} characters, not only spaces (got ${brief(name)})`
}
