import { createServer, type Server } from 'node:http'
import { Bot, InputFile, webhookCallback } from 'grammy'
import QRCode from 'qrcode'
import { Telegraf } from 'telegraf'
import { afterAll, beforeAll, describe, expect, onTestFinished, test } from 'vitest'
import { type Sandbox, startSandbox } from '../../src/index.js'

let sb: Sandbox
let next = 0
const newToken = () => `${810200 + ++next}:${'Fr4mework_tests-abcdefghijklmnopqrs'.slice(0, 35)}`

beforeAll(async () => {
  sb = await startSandbox({ callbacks: { retries: 2, timeoutMs: 2000, scheduleMs: [100] }, telegram: { webhookRetryMs: [100] } })
})
afterAll(async () => {
  await sb?.stop()
})

/** An HTTP server on a free port, closed when the test ends. */
async function listen(handler: Parameters<typeof createServer>[1]): Promise<{ server: Server; url: string }> {
  const server = createServer(handler)
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  onTestFinished(() => new Promise<void>((r) => server.close(() => r())))
  return { server, url: `http://127.0.0.1:${(server.address() as { port: number }).port}` }
}

const texts = async (bot: string) => (await sb.client.chatMessages({ bot })).messages.map((m) => m.text ?? m.caption ?? '')

/**
 * The bot flow of the spec with telegraf: /buy creates a payment and sends its link; the callback is verified and
 * only a 100 with the order amount is confirmed in the chat.
 */
describe('telegraf', () => {
  test('long polling: /buy, pay, the verified callback confirms in the chat', async () => {
    const token = newToken()
    const bot = new Telegraf(token, { telegram: { apiRoot: `${sb.url}/telegram/` } })
    const chats = new Map<string, number>()
    const shop = await listen((req, res) => {
      let text = ''
      req.on('data', (c: Buffer) => (text += c))
      req.on('end', async () => {
        const { trackId } = JSON.parse(text) as { trackId: string }
        const verified = await sb.client.verifyPayment({ merchant: 'sandbox', trackId })
        if (verified.result === 100 && 'amount' in verified && verified.amount === 12) {
          await bot.telegram.sendMessage(chats.get(trackId)!, `Paid: ${trackId}`)
        }
        res.writeHead(200).end()
      })
    })
    bot.command('buy', async (ctx) => {
      const created = await sb.client.createPayment({ merchant: 'sandbox', amount: 12, callbackUrl: `${shop.url}/cb` })
      if (created.result !== 100) return
      chats.set(created.trackId, ctx.chat.id)
      await ctx.reply(`Pay here: ${sb.client.checkoutUrl(created.trackId)}`)
    })
    void bot.launch({ dropPendingUpdates: true })
    onTestFinished(() => bot.stop())
    await expect.poll(async () => (await sb.client.listBots()).some((b) => b.token === token)).toBe(true)

    await sb.client.chatSend({ bot: token, text: '/buy' })
    await expect.poll(() => texts(token), { timeout: 10_000 }).toContainEqual(expect.stringMatching(/^Pay here: /))
    const link = (await sb.client.chatMessages({ bot: token })).messages.at(-1)!
    expect(link.entities).toEqual([{ type: 'url', offset: 10, length: link.text!.length - 10 }])
    const trackId = link.text!.split('/pay/')[1]!
    await sb.client.simulate(trackId, { outcome: 'paid' })
    await expect.poll(() => texts(token), { timeout: 10_000 }).toContain(`Paid: ${trackId}`)
  })

  test('webhook with a secret: a callback button, answered through the webhook reply; a photo from a Buffer (multipart)', async () => {
    const token = newToken()
    const bot = new Telegraf(token, { telegram: { apiRoot: `${sb.url}/telegram/` } })
    const png = await QRCode.toBuffer('telegraf', { width: 90 })
    bot.command('qr', (ctx) =>
      ctx.replyWithPhoto({ source: png }, { caption: 'Scan me', reply_markup: { inline_keyboard: [[{ text: 'Done', callback_data: 'done' }]] } }),
    )
    bot.action('done', (ctx) => ctx.answerCbQuery('Thanks!'))
    const hook = await listen(bot.webhookCallback('/tg', { secretToken: 'tg_Secret' }))
    await bot.telegram.setWebhook(`${hook.url}/tg`, { secret_token: 'tg_Secret' })
    await sb.client.chatSend({ bot: token, text: '/qr' })
    await expect.poll(async () => (await sb.client.chatMessages({ bot: token })).messages.at(-1)?.photo?.[0]?.width, { timeout: 10_000 }).toBe(90)
    const pressed = await sb.client.chatPress({ bot: token, button: 'Done', wait: 5000 })
    expect(pressed).toMatchObject({ kind: 'callback', data: 'done', answer: { text: 'Thanks!', showAlert: false } })
  })
})

describe('grammY', () => {
  test('webhook mode and an InputFile upload (grammY writes multipart its own way)', async () => {
    const token = newToken()
    const bot = new Bot(token, { client: { apiRoot: `${sb.url}/telegram` } })
    const png = await QRCode.toBuffer('grammy', { width: 70 })
    bot.command('qr', (ctx) => ctx.replyWithPhoto(new InputFile(png, 'qr code.png'), { caption: '<i>QR</i>', parse_mode: 'HTML' }))
    bot.command('menu', (ctx) => ctx.reply('Choose', { reply_markup: { keyboard: [[{ text: 'Red' }, { text: 'Blue' }]], one_time_keyboard: true } }))
    bot.hears('Blue', (ctx) => ctx.reply('Blue it is', { reply_markup: { remove_keyboard: true } }))
    const hook = await listen(webhookCallback(bot, 'http', { secretToken: 'gr_Secret' }))
    await bot.api.setWebhook(`${hook.url}/`, { secret_token: 'gr_Secret' })
    await sb.client.chatSend({ bot: token, text: '/qr' })
    await expect.poll(async () => (await sb.client.chatMessages({ bot: token })).messages.at(-1), { timeout: 10_000 }).toMatchObject({
      photo: [{ width: 70, height: 70 }],
      caption: 'QR',
      captionEntities: [{ type: 'italic', offset: 0, length: 2 }],
    })
    await sb.client.chatSend({ bot: token, text: '/menu' })
    await expect.poll(() => texts(token), { timeout: 10_000 }).toContain('Choose')
    expect(await sb.client.chatPress({ bot: token, button: 'Blue' })).toMatchObject({ kind: 'text', message: { text: 'Blue' } })
    await expect.poll(() => texts(token), { timeout: 10_000 }).toContain('Blue it is')
    await expect(sb.client.chatPress({ bot: token, button: 'Red' })).rejects.toThrow('no button "Red"')
  })

  test('two bot instances polling one token: the second makes the first fail with 409', async () => {
    const token = newToken()
    const first = new Bot(token, { client: { apiRoot: `${sb.url}/telegram` } })
    const second = new Bot(token, { client: { apiRoot: `${sb.url}/telegram` } })
    let polling: () => void = () => {}
    const started = new Promise<void>((r) => (polling = r))
    const failed = first.start({ drop_pending_updates: true, onStart: () => polling() }).then(
      () => 'stopped',
      (e: Error) => e.message,
    )
    // Once the first polls (its getUpdates goes out as it starts), the second starts with its own set-up calls.
    await started
    void second.start()
    onTestFinished(async () => {
      await second.stop()
      await first.stop().catch(() => {})
    })
    expect(await failed).toMatch(/409.*terminated by other getUpdates request/)
  })
})

describe('test tokens: any <bot id>:<secret> works, and a refusal says what the sandbox expects', () => {
  test('a grammY bot with 123456:TEST-token gets getMe and answers a message; telegraf with 42:abc too', async () => {
    const grammy = new Bot('123456:TEST-token', { client: { apiRoot: `${sb.url}/telegram` } })
    await grammy.init()
    expect(grammy.botInfo).toMatchObject({ id: 123456, is_bot: true, username: 'sandbox_123456_bot' })
    grammy.on('message:text', (ctx) => ctx.reply(`echo: ${ctx.message.text}`))
    void grammy.start({ drop_pending_updates: true })
    onTestFinished(() => grammy.stop())
    await sb.client.chatSend({ bot: '123456', text: 'hi' })
    await expect.poll(() => texts('123456'), { timeout: 10_000 }).toContain('echo: hi')

    const telegraf = new Telegraf('42:abc', { telegram: { apiRoot: `${sb.url}/telegram/` } })
    expect(await telegraf.telegram.getMe()).toMatchObject({ id: 42, username: 'sandbox_42_bot' })
  })

  test('refusals are 401 Unauthorized to grammY and telegraf, with the reason', async () => {
    await new Bot('777001:first-secret', { client: { apiRoot: `${sb.url}/telegram` } }).init()
    const grammyError = await new Bot('777001:other-secret', { client: { apiRoot: `${sb.url}/telegram` } }).init().catch((e: unknown) => e)
    expect(grammyError).toMatchObject({
      error_code: 401,
      description: 'Unauthorized: bot 777001 is known to the sandbox by another token (the first one it was used with); use that token, or another bot id',
    })
    const telegrafError = await new Telegraf('0777:abc', { telegram: { apiRoot: `${sb.url}/telegram/` } }).telegram.getMe().catch((e: unknown) => e)
    expect(telegrafError).toMatchObject({ code: 401, description: expect.stringMatching(/^Unauthorized: invalid token specified; the sandbox takes any token of the form <bot id>:<secret>/) })
  })
})
