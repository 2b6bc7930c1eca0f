/**
 * How amounts are shown. The sandbox stores and answers an amount exactly as the merchant sent it (see
 * `isValidAmount`); pages and CLI tables show it rounded to 8 decimals, so float noise such as
 * 1.1400000000000001 reads 1.14 there. Exact decimal arithmetic on the number's shortest text, no float maths.
 */

/** Decimal places shown on pages and in tables. */
export const SHOWN_DECIMALS = 8

/**
 * Parses a non-negative decimal ("12.5", "1e-7") into integer units of 10^-decimals; digits beyond them are
 * dropped, or rounded half up.
 */
export function toUnits(text: string, decimals: number, rounding: 'down' | 'halfUp' = 'down'): bigint {
  const m = /^(\d+)(?:\.(\d*))?(?:e([+-]?\d+))?$/i.exec(text)
  if (!m) throw new RangeError(`not a non-negative decimal: ${text}`)
  const whole = m[1]!
  const fraction = m[2] ?? ''
  const digits = whole + fraction
  const shift = decimals + whole.length + Number(m[3] ?? 0) - digits.length
  if (shift >= 0) return BigInt(digits) * 10n ** BigInt(shift)
  const divisor = 10n ** BigInt(-shift)
  const units = BigInt(digits) / divisor
  return rounding === 'halfUp' && (BigInt(digits) % divisor) * 2n >= divisor ? units + 1n : units
}

/** Integer units back to a decimal string, trailing zeros trimmed down to `minDecimals`. */
export function formatUnits(units: bigint, decimals: number, minDecimals: number): string {
  const text = units.toString().padStart(decimals + 1, '0')
  const whole = text.slice(0, text.length - decimals)
  let fraction = text.slice(text.length - decimals)
  while (fraction.length > minDecimals && fraction.endsWith('0')) fraction = fraction.slice(0, -1)
  return fraction.length > 0 ? `${whole}.${fraction}` : whole
}

/** An amount in units of 10^-8, rounded half up: the value pages and tables show. */
export function shownUnits(amount: number): bigint {
  return toUnits(String(amount), SHOWN_DECIMALS, 'halfUp')
}

/**
 * An amount as pages and tables show it: rounded to 8 decimals, at least `minDecimals` of them, optionally with
 * thousands separators. A positive amount below 0.000000005 reads `< 0.00000001`, never 0.
 */
export function formatAmount(amount: number, options: { minDecimals?: number; separators?: boolean } = {}): string {
  const units = shownUnits(amount)
  const minDecimals = options.minDecimals ?? 0
  if (units === 0n && amount > 0) return `< ${formatUnits(1n, SHOWN_DECIMALS, minDecimals)}`
  const text = formatUnits(units, SHOWN_DECIMALS, minDecimals)
  if (!options.separators) return text
  const [whole = '0', fraction] = text.split('.')
  return `${whole.replace(/\B(?=(\d{3})+(?!\d))/g, ',')}${fraction !== undefined ? `.${fraction}` : ''}`
}

/** Whether showing an amount rounds it: the exact number is then worth showing beside it. */
export function isRoundedForDisplay(amount: number): boolean {
  return Number(formatUnits(shownUnits(amount), SHOWN_DECIMALS, 0)) !== amount
}
