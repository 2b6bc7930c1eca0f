import { createServer, type IncomingMessage, type Server } from 'node:http'
import { realpathSync } from 'node:fs'
import { pathToFileURL } from 'node:url'
import { Bot, GrammyError, InlineKeyboard, webhookCallback } from 'grammy'
import { type Config, loadConfig } from './config.js'
import { type Order, type OrderState, Orders } from './orders.js'
import { PaymentService } from './payments.js'

const CALLBACK_PATH = '/pay/callback'
const WEBHOOK_PATH = '/telegram'
const MAX_BODY_BYTES = 64 * 1024

/**
 * Telegram opens inline-button links itself and refuses ones it cannot reach: loopback addresses and names
 * without a dot (`inline keyboard button URL '…' is invalid: Wrong HTTP URL`).
 */
function isRefusedButtonUrl(error: unknown): boolean {
  return error instanceof GrammyError && error.error_code === 400 && /button URL .* is invalid|BUTTON_URL_INVALID/.test(error.description)
}

const MESSAGES: Record<Exclude<OrderState, 'awaiting_payment'>, (o: Order) => string> = {
  confirming: (o) => `⏳ Payment for order ${o.trackId} seen — waiting for confirmations. I'll write again once it is final.`,
  not_completed: (o) => `❌ Payment for order ${o.trackId} was not completed. Send /buy to try again.`,
  amount_mismatch: (o) => `⚠️ The amount paid for order ${o.trackId} does not match the order (${o.amount}). Nothing was delivered; please contact support.`,
  delivered: (o) => `✅ Payment received (ref ${o.refNumber ?? '—'}). Your order ${o.trackId} is delivered: here is your download code ${o.trackId.slice(0, 8).toUpperCase()}.`,
}

export interface Shop {
  bot: Bot
  server: Server
  /** Listening address of the bot's HTTP endpoint (callbacks, and updates in webhook mode). */
  url: string
  stop(): Promise<void>
}

/** The shop bot: /buy creates a payment and sends its checkout link; the payment's callback delivers the order. */
export async function startShop(config: Config, log: (line: string) => void = console.log): Promise<Shop> {
  const orders = await Orders.open(config.ordersFile)
  const pay = new PaymentService(config.payBaseUrl, config.merchantKey)
  const bot = new Bot(config.botToken, config.telegramApiRoot ? { client: { apiRoot: config.telegramApiRoot } } : {})

  bot.command('start', (ctx) => ctx.reply(`Welcome! One sandbox T-shirt costs ${config.price} USD. Send /buy to order it.`))

  bot.command('buy', async (ctx) => {
    const created = await pay.create({
      amount: config.price,
      callbackUrl: `${config.publicUrl}${CALLBACK_PATH}`,
      description: `T-shirt for Telegram chat ${ctx.chat.id}`,
    })
    if (created.result !== 100 || !('trackId' in created)) {
      log(`create failed: ${created.result} ${created.message}`)
      return ctx.reply('Sorry, payments are unavailable right now. Please try again later.')
    }
    const at = new Date().toISOString()
    // Saved before the customer sees the link: a callback can never arrive for an order we do not know.
    await orders.put({ trackId: created.trackId, chatId: ctx.chat.id, amount: config.price, state: 'awaiting_payment', createdAt: at, updatedAt: at })
    const url = pay.checkoutUrl(created.trackId)
    const text = `Order ${created.trackId}: one T-shirt, ${config.price} USD.`
    try {
      return await ctx.reply(text, { reply_markup: new InlineKeyboard().url(`Pay ${config.price} USD`, url) })
    } catch (error) {
      // A checkout URL Telegram cannot open (a sandbox on this machine): the link goes in the text instead.
      if (!isRefusedButtonUrl(error)) throw error
      return ctx.reply(`${text}\nPay here: ${url}`)
    }
  })

  bot.catch((error) => log(`update failed: ${error.message}`))

  /** A notification is only a hint: the verify answer decides, and each order is told each outcome once. */
  const settle = (trackId: string) =>
    orders.exclusive(trackId, async () => {
      const order = orders.get(trackId)
      if (!order) return 'unknown order'
      if (order.state === 'delivered') return 'already delivered'
      const verified = await pay.verify(trackId)
      let next: OrderState | undefined
      if (verified.result === 100) next = verified.amount === order.amount ? 'delivered' : 'amount_mismatch'
      else if (verified.result === 203 && verified.message === undefined) next = 'confirming'
      else if (verified.result === 202) next = 'not_completed'
      else throw new Error(`verify answered ${verified.result} ${verified.message ?? ''}`)
      if (next === order.state || (next === 'confirming' && order.state !== 'awaiting_payment')) return `still ${order.state}`
      const updated: Order = {
        ...order,
        state: next,
        updatedAt: new Date().toISOString(),
        ...(next === 'delivered' && verified.refNumber ? { refNumber: verified.refNumber } : {}),
      }
      await orders.put(updated)
      await bot.api.sendMessage(order.chatId, MESSAGES[next](updated)).catch((e: Error) => log(`could not tell chat ${order.chatId}: ${e.message}`))
      return next
    })

  const onWebhook = config.mode === 'webhook' ? webhookCallback(bot, 'http', config.webhookSecret ? { secretToken: config.webhookSecret } : {}) : undefined

  const server = createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0]
    if (req.method === 'POST' && path === WEBHOOK_PATH && onWebhook) return void onWebhook(req, res)
    if (req.method !== 'POST' || path !== CALLBACK_PATH) return void res.writeHead(404).end()
    readJson(req)
      .then(async (body) => {
        const trackId = typeof body?.trackId === 'string' ? body.trackId : undefined
        if (!trackId) return void res.writeHead(400, { 'content-type': 'text/plain' }).end('trackId missing')
        const outcome = await settle(trackId)
        log(`callback ${trackId}: ${outcome}`)
        res.writeHead(200, { 'content-type': 'text/plain' }).end('ok')
      })
      .catch((error: Error) => {
        // Not handled: an answer other than 2xx makes the payment service send it again.
        log(`callback failed: ${error.message}`)
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' }).end('try again')
      })
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(config.port, config.host, () => resolve())
  })
  const address = server.address()
  const port = typeof address === 'object' && address ? address.port : config.port
  const url = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`

  await bot.init()
  let polling: Promise<void> | undefined
  if (config.mode === 'webhook') {
    await bot.api.setWebhook(`${config.publicUrl}${WEBHOOK_PATH}`, config.webhookSecret ? { secret_token: config.webhookSecret } : {})
  } else {
    polling = bot.start({ onStart: () => {} })
  }
  log(`@${bot.botInfo.username} is running (${config.mode}); payment callbacks at ${config.publicUrl}${CALLBACK_PATH}`)

  return {
    bot,
    server,
    url,
    async stop() {
      if (polling) {
        await bot.stop()
        await polling
      }
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}

function readJson(req: IncomingMessage): Promise<Record<string, unknown> | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    let size = 0
    req.on('data', (c: Buffer) => {
      size += c.length
      if (size > MAX_BODY_BYTES) {
        req.destroy()
        reject(new Error('body too large'))
      } else {
        chunks.push(c)
      }
    })
    req.on('error', reject)
    req.on('end', () => {
      try {
        const value: unknown = JSON.parse(Buffer.concat(chunks).toString('utf8'))
        resolve(typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined)
      } catch {
        resolve(undefined)
      }
    })
  })
}

// Started as a program (also through a symlinked folder, whose path Node resolves for import.meta.url).
if (process.argv[1] && import.meta.url === pathToFileURL(realpathSync(process.argv[1])).href) {
  let config: Config
  try {
    config = loadConfig()
  } catch (error) {
    console.error((error as Error).message)
    process.exit(2)
  }
  const shop = await startShop(config)
  const stop = () => void shop.stop().then(() => process.exit(0))
  process.once('SIGINT', stop)
  process.once('SIGTERM', stop)
}
