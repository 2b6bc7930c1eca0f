import { failures, SandboxError, SpecMessage, type SpecFailure } from './outcomes.js'
import { isValidAmount } from './payment.js'
import type { Merchant, Payment } from './types.js'

export const LIMITS = {
  callbackUrl: 512,
  returnUrl: 512,
  description: 1000,
  mobile: 50,
} as const

/** Length in characters (Unicode code points), so an emoji counts once. */
export function charLength(text: string): number {
  let n = 0
  for (const _ of text) n++
  return n
}

/** Absolute http(s) URL with a host, no surrounding or embedded white space. */
export function isValidUrl(value: unknown, maxLength: number): value is string {
  if (typeof value !== 'string' || value.length === 0 || charLength(value) > maxLength) return false
  if (/[\s\u0000-\u001f\u007f]/.test(value)) return false
  let url: URL
  try {
    url = new URL(value)
  } catch {
    return false
  }
  return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname.length > 0
}

/** A time as the sandbox writes every one: `Date.prototype.toISOString`, e.g. 2026-01-31T12:00:00.000Z. */
export function isTimestamp(value: unknown): value is string {
  if (typeof value !== 'string' || !/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/.test(value)) return false
  // Checked by hand rather than by a Date round trip (an import, and every start, checks over a million of them),
  // and without a closure per call (the bundle names each one it makes).
  const year = twoDigits(value, 0) * 100 + twoDigits(value, 2)
  const month = twoDigits(value, 5)
  const day = twoDigits(value, 8)
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0)
  const days = month === 2 ? (leap ? 29 : 28) : month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31
  return month >= 1 && month <= 12 && day >= 1 && day <= days && twoDigits(value, 11) <= 23 && twoDigits(value, 14) <= 59 && twoDigits(value, 17) <= 59
}

function twoDigits(text: string, at: number): number {
  return (text.charCodeAt(at) - 48) * 10 + text.charCodeAt(at + 1) - 48
}

/** An HTTP header name: an RFC 9110 token. */
export function isHeaderName(value: string): boolean {
  return /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(value)
}

/** Safe in an HTTP header value: visible ASCII, space and tab; no CR, LF or other control characters. */
export function isHeaderValue(value: string): boolean {
  return /^[\t\x20-\x7e]*$/.test(value)
}

export interface CreateFields {
  merchant: string
  amount: number
  callbackUrl: string
  returnUrl?: string
  description?: string
  mobile?: string
}

export type CreateCheck = { ok: true; fields: CreateFields } | { ok: false; failure: SpecFailure }

/**
 * Checks a create request in the sandbox's documented order: the key (104, then 103), then the fields in
 * the spec's table order (amount 105, callbackUrl 106, returnUrl 107, description 108, mobile 109).
 * A description or mobile that is not a string is a request error, since the spec has no code for it.
 */
export function checkCreate(body: Record<string, unknown>, findMerchant: (key: string) => Merchant | undefined): CreateCheck {
  const merchant = checkMerchant(body.merchant, findMerchant)
  if ('failure' in merchant) return { ok: false, failure: merchant.failure }
  const { amount, callbackUrl, returnUrl, description, mobile } = body
  if (!isValidAmount(amount)) return { ok: false, failure: failures.invalidAmount }
  if (!isValidUrl(callbackUrl, LIMITS.callbackUrl)) return { ok: false, failure: failures.invalidCallbackUrl }
  if (isGiven(returnUrl) && !isValidUrl(returnUrl, LIMITS.returnUrl)) return { ok: false, failure: failures.invalidReturnUrl }
  if (isGiven(description)) {
    requireString('description', description)
    if (charLength(description) > LIMITS.description) return { ok: false, failure: failures.descriptionTooLong }
  }
  if (isGiven(mobile)) {
    requireString('mobile', mobile)
    if (charLength(mobile) > LIMITS.mobile) return { ok: false, failure: failures.mobileTooLong }
  }
  const fields: CreateFields = { merchant: merchant.merchant.key, amount, callbackUrl }
  if (isGiven(returnUrl)) fields.returnUrl = returnUrl as string
  if (isGiven(description)) fields.description = description as string
  if (isGiven(mobile)) fields.mobile = mobile as string
  return { ok: true, fields }
}

/** The failures a merchant key alone can give: unknown (104) or disabled (103). */
export type MerchantFailure = (typeof failures)['invalidApiKey' | 'merchantDisabled']

export function checkMerchant(
  key: unknown,
  findMerchant: (key: string) => Merchant | undefined,
): { merchant: Merchant } | { failure: MerchantFailure } {
  const merchant = typeof key === 'string' && key.length > 0 ? findMerchant(key) : undefined
  if (!merchant) return { failure: failures.invalidApiKey }
  if (!merchant.enabled) return { failure: failures.merchantDisabled }
  return { merchant }
}

/** Optional fields: absent and null both mean "not given". */
function isGiven(value: unknown): boolean {
  return value !== undefined && value !== null
}

function requireString(field: string, value: unknown): asserts value is string {
  if (typeof value !== 'string') {
    throw new SandboxError('invalidField', `${field} must be a string (got ${describeType(value)})`)
  }
}

export function describeType(value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'an array'
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`
}

export type VerifyBody =
  | { result: 100; amount: number; refNumber: string }
  | { result: 202; amount: number }
  | { result: 203; amount: number }
  | { result: 203; message: typeof SpecMessage.invalidTrackId }
  | MerchantFailure

/**
 * The verify answer for a merchant and the payment found under the trackId (undefined when there is none).
 * Another merchant's payment is answered exactly like an unknown trackId.
 */
export function verifyOutcome(
  body: Record<string, unknown>,
  findMerchant: (key: string) => Merchant | undefined,
  findPayment: (trackId: string) => Payment | undefined,
): VerifyBody {
  const merchant = checkMerchant(body.merchant, findMerchant)
  if ('failure' in merchant) return merchant.failure
  const trackId = body.trackId
  const payment = typeof trackId === 'string' && trackId.length > 0 ? findPayment(trackId) : undefined
  if (!payment || payment.merchant !== merchant.merchant.key) return { result: 203, message: SpecMessage.invalidTrackId }
  switch (payment.status) {
    case 'paid':
      return { result: 100, amount: payment.paidAmount ?? payment.amount, refNumber: payment.refNumber ?? '' }
    case 'unfinalized':
      return { result: 203, amount: payment.paidAmount ?? payment.amount }
    case 'pending':
    case 'failed':
    case 'expired':
      return { result: 202, amount: payment.amount }
  }
}
