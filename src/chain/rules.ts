import { applyOutcome, MAX_CONFIRMATIONS } from '../domain/payment.js'

export { MAX_CONFIRMATIONS }
import type { Payment } from '../domain/types.js'

/**
 * Confirmations an unfinalized payment needs before it is paid, per sandbox asset. Real processors ask for
 * 1 to 6 on Bitcoin (BitPay and BTCPay Server: 1 at "medium speed", 6 at "low"; Cryptopay: 1, 3 or 6 by
 * amount), 2 to 12 or more on Ethereum, 1 to 6 on Litecoin, and from 1 (Cryptopay) to about 20 (exchanges, the
 * block at which Tron treats a transaction as solid) on Tron. The sandbox asks for a few, so a test mines them in
 * one command; `--confirmations <n>` sets one number for every asset.
 */
export const DEFAULT_CONFIRMATIONS: Readonly<Record<string, number>> = Object.freeze({
  BTC: 2,
  ETH: 3,
  'USDT-TRC20': 1,
  LTC: 2,
  TRX: 1,
})

/** Asset assumed when the customer named none: the checkout page's first choice. */
export const DEFAULT_CHAIN_ASSET = 'BTC'

export const MAX_BLOCKS_PER_MINE = 1000

/** Confirmations a payment made with `asset` needs: `override` for every asset, else the asset's default. */
export function requiredConfirmations(asset: string | undefined, override?: number): number {
  if (override !== undefined) return override
  return DEFAULT_CONFIRMATIONS[asset ?? DEFAULT_CHAIN_ASSET] ?? DEFAULT_CONFIRMATIONS[DEFAULT_CHAIN_ASSET]!
}

/**
 * The payment after `blocks` more blocks: one more confirmation each, and paid (by the chain) once it has the
 * confirmations it needs. Undefined for a payment that is not unfinalized: blocks change nothing else. Pure.
 */
export function applyBlocks(payment: Payment, blocks: number, input: { now: string; newRefNumber: () => string; required: number }): Payment | undefined {
  if (payment.status !== 'unfinalized' || blocks < 1) return undefined
  const required = payment.confirmationsRequired ?? input.required
  const confirmations = Math.min((payment.confirmations ?? 0) + blocks, required)
  if (confirmations < required) return { ...payment, confirmations, confirmationsRequired: required, updatedAt: input.now }
  return applyOutcome(
    { ...payment, confirmations, confirmationsRequired: required },
    { outcome: 'paid', source: 'chain', now: input.now, newRefNumber: input.newRefNumber },
  )
}
