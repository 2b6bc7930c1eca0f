import { brief } from './brief.js'

/** The sandbox's cryptocurrencies, by code. Names, networks and rates are the checkout page's (src/checkout/assets.ts). */
export const ASSET_CODES = ['BTC', 'ETH', 'USDT-TRC20', 'LTC', 'TRX'] as const
export type AssetCode = (typeof ASSET_CODES)[number]

export function isAssetCode(asset: unknown): asset is AssetCode {
  return (ASSET_CODES as readonly unknown[]).includes(asset)
}

/** Why `asset` is refused, naming the assets there are. */
export function assetRule(asset: unknown): string {
  return `asset must be one of ${ASSET_CODES.join(', ')} (got ${brief(asset)})`
}
