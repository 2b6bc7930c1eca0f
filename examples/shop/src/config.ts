/**
 * The mistakes the shop can be told to make, each one a merchant makes in real life, so that a scenario can show
 * it catches them:
 * - `ignore-amount`: delivers on result 100 without comparing the amount paid with the order's;
 * - `trust-callback`: takes the notification's body as proof and never calls verify (so it never reconciles);
 * - `cancel-on-503`: takes a verify that fails (a 503, an outage) as "not paid" and cancels the order.
 */
export const MISTAKES = ['ignore-amount', 'trust-callback', 'cancel-on-503'] as const
export type Mistake = (typeof MISTAKES)[number]

/** Everything the shop needs comes from the environment (and --mistake), so the same build runs anywhere. */
export interface Config {
  /** The payment service: the sandbox (http://127.0.0.1:8787) or production. */
  payBaseUrl: string
  merchantKey: string
  host: string
  /** 0 picks a free port. */
  port: number
  /** Where the payment service and customers reach this shop; default http://HOST:PORT. */
  publicUrl: string | undefined
  /** How often pending orders are verified, in milliseconds. */
  reconcileMs: number
  mistake: Mistake | undefined
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env, argv: readonly string[] = process.argv.slice(2)): Config {
  const missing = (name: string): never => {
    throw new Error(`${name} is not set; see examples/shop/README.md for the configuration`)
  }
  const port = Number(env.PORT ?? 3000)
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`PORT must be a port number (got ${env.PORT})`)
  const reconcileMs = Number(env.RECONCILE_MS ?? 2000)
  if (!Number.isInteger(reconcileMs) || reconcileMs < 100 || reconcileMs > 3_600_000) throw new Error(`RECONCILE_MS must be milliseconds from 100 to 3600000 (got ${env.RECONCILE_MS})`)
  const flag = argv.indexOf('--mistake')
  const named = flag === -1 ? env.SHOP_MISTAKE || undefined : argv[flag + 1]
  if (named !== undefined && !(MISTAKES as readonly string[]).includes(named)) throw new Error(`--mistake (or SHOP_MISTAKE) must be one of ${MISTAKES.join(', ')} (got ${named})`)
  const base = env.PAY_BASE_URL ?? env.PAY_SANDBOX_URL ?? missing('PAY_BASE_URL')
  return {
    payBaseUrl: base.replace(/\/+$/, ''),
    merchantKey: env.PAY_MERCHANT_KEY ?? missing('PAY_MERCHANT_KEY'),
    host: env.HOST ?? '127.0.0.1',
    port,
    publicUrl: env.PUBLIC_URL?.replace(/\/+$/, '') || undefined,
    reconcileMs,
    mistake: named as Mistake | undefined,
  }
}
