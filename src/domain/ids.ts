import { randomFillSync, randomInt } from 'node:crypto'

/**
 * Random bytes are drawn from the system's CSPRNG a pool at a time: one call per id costs more than the rest of a
 * create. Each byte is handed out once.
 */
const pool = Buffer.alloc(4096)
let used = pool.length

/** `n` random bytes as base64url (n ≤ the pool's size). */
function randomText(n: number): string {
  if (used + n > pool.length) {
    randomFillSync(pool)
    used = 0
  }
  const text = pool.toString('base64url', used, used + n)
  used += n
  return text
}

/**
 * 128 random bits, base64url: unguessable, URL-safe, 22 characters. It never starts with `-`, so a trackId can
 * be passed to any command line as an argument without being taken for a flag.
 */
export function newTrackId(): string {
  let id = randomText(16)
  while (id.startsWith('-')) id = randomText(16)
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
  return `sandbox_${randomText(12)}`
}

export function newDeliveryId(): string {
  return `dlv_${randomText(9)}`
}

export function isDeliveryId(value: string): boolean {
  return /^dlv_[A-Za-z0-9_-]{12}$/.test(value)
}

/** An API fault rule's id: `flt_` and 12 characters of base64url. */
export function newFaultId(): string {
  return `flt_${randomText(9)}`
}
