import { createHash } from 'node:crypto'
import { formatAmount, formatUnits, SHOWN_DECIMALS, shownUnits, toUnits } from '../domain/amount.js'
import { ASSET_CODES, type AssetCode } from '../domain/assets.js'

/**
 * The sandbox's cryptocurrencies and their fixed conversion rates.
 *
 * The sandbox treats a payment's `amount` as US dollars (the spec leaves its currency open); the checkout
 * page converts it into each asset at these rates, rounding up to the asset's smallest shown unit so the
 * customer never sends less than the order is worth.
 */
export interface SandboxAsset {
  code: AssetCode
  name: string
  network: string
  /** Unit written after amounts (USDT-TRC20 amounts are in USDT). */
  unit: string
  /** US dollars per one unit of the asset, as an exact decimal. */
  usdRate: string
  /** Decimal places shown and sent. */
  decimals: number
  /** The payment URI a wallet would open, for the QR code. */
  paymentUri: (address: string, amount: string) => string
}

export { ASSET_CODES, type AssetCode }

export const ASSETS: readonly SandboxAsset[] = [
  { code: 'BTC', name: 'Bitcoin', network: 'Bitcoin', unit: 'BTC', usdRate: '100000', decimals: 8, paymentUri: (a, x) => `bitcoin:${a}?amount=${x}` },
  // EIP-681 takes the value in wei; scientific notation keeps it exact without 18-digit integers.
  { code: 'ETH', name: 'Ether', network: 'Ethereum', unit: 'ETH', usdRate: '4000', decimals: 8, paymentUri: (a, x) => `ethereum:${a}?value=${x}e18` },
  {
    code: 'USDT-TRC20',
    name: 'Tether USD on Tron',
    network: 'Tron (TRC-20)',
    unit: 'USDT',
    usdRate: '1',
    decimals: 6,
    paymentUri: (a, x) => `tron:${a}?amount=${x}&token=USDT`,
  },
  { code: 'LTC', name: 'Litecoin', network: 'Litecoin', unit: 'LTC', usdRate: '100', decimals: 8, paymentUri: (a, x) => `litecoin:${a}?amount=${x}` },
  { code: 'TRX', name: 'Tronix', network: 'Tron', unit: 'TRX', usdRate: '0.25', decimals: 6, paymentUri: (a, x) => `tron:${a}?amount=${x}` },
]

export const DEFAULT_ASSET: AssetCode = 'BTC'

export function findAsset(code: string | undefined): SandboxAsset | undefined {
  return ASSETS.find((a) => a.code === code)
}

/**
 * The amount to send in `asset` for `usd` dollars, as an exact decimal string without trailing zeros: the
 * dollars as shown (8 decimals), converted and rounded up to the asset's smallest unit. Never 0: an order worth
 * less than that unit asks for the unit (see `belowSmallestUnit`).
 */
export function assetAmount(usd: number, asset: SandboxAsset): string {
  const rate = toUnits(asset.usdRate, SHOWN_DECIMALS)
  const units = (shownUnits(usd) * 10n ** BigInt(asset.decimals) + rate - 1n) / rate
  return formatUnits(units > 0n ? units : 1n, asset.decimals, 0)
}

/** Whether `usd` dollars are worth less than the smallest unit of `asset`, which the page then asks for. */
export function belowSmallestUnit(usd: number, asset: SandboxAsset): boolean {
  return shownUnits(usd) * 10n ** BigInt(asset.decimals) < toUnits(asset.usdRate, SHOWN_DECIMALS)
}

/** The smallest amount of `asset` the page asks for, e.g. 0.00000001 */
export function smallestUnit(asset: SandboxAsset): string {
  return formatUnits(1n, asset.decimals, 0)
}

/** Dollars with two to eight decimals and thousands separators: 1,234.50 */
export function formatUsd(usd: number): string {
  return formatAmount(usd, { minDecimals: 2, separators: true })
}

/**
 * A deposit address made from the trackId and the asset, so it is the same on every visit. It is not valid
 * on any real network (no real address format allows the `sandbox-` prefix), so no wallet will send to it.
 */
export function sandboxAddress(trackId: string, asset: SandboxAsset): string {
  const digest = createHash('sha256').update(`${asset.code}\u0000${trackId}`).digest()
  return `sandbox-${asset.code.toLowerCase()}-${base32(digest).slice(0, 32)}`
}

const BASE32 = 'abcdefghijklmnopqrstuvwxyz234567'

function base32(bytes: Uint8Array): string {
  let out = ''
  let buffer = 0
  let bits = 0
  for (const byte of bytes) {
    buffer = (buffer << 8) | byte
    bits += 8
    while (bits >= 5) {
      out += BASE32[(buffer >>> (bits - 5)) & 31]
      bits -= 5
    }
    buffer &= (1 << bits) - 1
  }
  return out
}
