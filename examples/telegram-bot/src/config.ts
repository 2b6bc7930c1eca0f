/** Everything the bot needs comes from the environment, so the same build runs against the sandbox or production. */
export interface Config {
  botToken: string
  /** Telegram Bot API root; undefined = real Telegram. The sandbox's is `<sandbox URL>/telegram`. */
  telegramApiRoot: string | undefined
  /** The payment service: the sandbox (http://127.0.0.1:8787) or production. */
  payBaseUrl: string
  merchantKey: string
  /** Where the payment service (and Telegram, in webhook mode) reach this bot. */
  publicUrl: string
  host: string
  port: number
  /** `polling` (getUpdates) or `webhook` (Telegram POSTs updates to PUBLIC_URL/telegram). */
  mode: 'polling' | 'webhook'
  /** Random secret Telegram sends with every webhook request. */
  webhookSecret: string | undefined
  ordersFile: string
  /** The price of the one product, in the payment service's currency. */
  price: number
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const missing = (name: string): never => {
    throw new Error(`${name} is not set; see the README for the configuration`)
  }
  const port = Number(env.PORT ?? 3000)
  const price = Number(env.PRICE ?? 25)
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`PORT must be a port number (got ${env.PORT})`)
  if (!Number.isFinite(price) || price <= 0) throw new Error(`PRICE must be a number greater than 0 (got ${env.PRICE})`)
  const mode = env.BOT_MODE ?? 'polling'
  if (mode !== 'polling' && mode !== 'webhook') throw new Error(`BOT_MODE must be polling or webhook (got ${mode})`)
  const host = env.HOST ?? '127.0.0.1'
  return {
    botToken: env.BOT_TOKEN ?? missing('BOT_TOKEN'),
    telegramApiRoot: env.TELEGRAM_API_ROOT?.replace(/\/+$/, '') || undefined,
    payBaseUrl: (env.PAY_BASE_URL ?? missing('PAY_BASE_URL')).replace(/\/+$/, ''),
    merchantKey: env.PAY_MERCHANT_KEY ?? missing('PAY_MERCHANT_KEY'),
    publicUrl: (env.PUBLIC_URL ?? `http://${host}:${port}`).replace(/\/+$/, ''),
    host,
    port,
    mode,
    webhookSecret: env.WEBHOOK_SECRET || undefined,
    ordersFile: env.ORDERS_FILE ?? 'orders.json',
    price,
  }
}
