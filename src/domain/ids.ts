import { randomBytes, randomInt } from 'node:crypto'

/**
 * 128 random bits, base64url: unguessable, URL-safe, 22 characters. It never starts with `-`, so a trackId can
 * be passed to any command line as an argument without being taken for a flag.
 */
export function newTrackId(): string {
  let id = randomBytes(16).toString('base64url')
  while (id.startsWith('-')) id = randomBytes(16).toString('base64url')
  return id
}

/**
 * A trackId as the sandbox makes them. Ones made before trackIds stopped starting with `-` are still
 * accepted (an export from then imports): URL-safe all the same.
 */
export function isTrackId(value: string): boolean {
  return /^[A-Za-z0-9_-]{22}$/.test(value)
}

/** 12 digits, first one non-zero; uniqueness is checked by the caller. */
export function newRefNumber(): string {
  return String(randomInt(1, 10)) + String(randomInt(0, 1e11)).padStart(11, '0')
}

export function isRefNumber(value: string): boolean {
  return /^[1-9]\d{11}$/.test(value)
}

export function newMerchantKey(): string {
  return `sandbox_${randomBytes(12).toString('base64url')}`
}

export function newDeliveryId(): string {
  return `dlv_${randomBytes(9).toString('base64url')}`
}

export function isDeliveryId(value: string): boolean {
  return /^dlv_[A-Za-z0-9_-]{12}$/.test(value)
}
