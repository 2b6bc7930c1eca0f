import { join } from 'node:path'
import { Bot, GrammyError, InlineKeyboard } from 'grammy'
import { describe, expect, test } from 'vitest'
import { SandboxClient } from '../../src/client/index.js'
import { pay, spawnSandbox, tempDir } from '../helpers.js'
import { runReferenceBot } from './reference-bot.js'

let next = 0
const newToken = () => `${820300 + ++next}:L0cal_urls-abcdefghijklmnopqrstuvw`

/** `pay sandbox start` as a process, and a client of it (not the operator's: it plays the bot's shop). */
async function started(args: string[]): Promise<{ url: string; client: SandboxClient }> {
  const sb = await spawnSandbox([...args, '--data', join(await tempDir(), 'data.json')])
  return { url: sb.url, client: new SandboxClient(sb.url) }
}

/** A grammY bot that answers /buy with an inline URL button to a checkout page of the sandbox on this machine. */
async function buttonBot(url: string, client: SandboxClient): Promise<{ token: string; sent: Promise<string> }> {
  const token = newToken()
  const bot = new Bot(token, { client: { apiRoot: `${url}/telegram` } })
  const created = await client.createPayment({ merchant: 'sandbox', amount: 12, callbackUrl: 'http://127.0.0.1:9/cb' })
  if (created.result !== 100) throw new Error(created.message)
  const checkout = await client.checkoutUrlOf(created.trackId)
  expect(checkout).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/pay\//)
  await bot.init()
  // The customer writes first: a bot may write only to a chat whose customer did.
  await client.chatSend({ bot: token, text: '/buy' })
  const sent = bot.api.sendMessage(1000001, 'Your order', { reply_markup: new InlineKeyboard().url('Pay 12 USD', checkout) }).then(
    () => 'sent',
    (error: unknown) => (error instanceof GrammyError ? `${error.error_code} ${error.description}` : String(error)),
  )
  return { token, sent }
}

describe('URL buttons to a local checkout page: refused as on Telegram, taken with --telegram-allow-local-urls', () => {
  test('off (the default): a grammY bot\'s button to 127.0.0.1 is refused with Telegram\'s 400', async () => {
    const { url, client } = await started([])
    expect((await client.health()).settings?.telegram).toBeUndefined()
    const { token, sent } = await buttonBot(url, client)
    expect(await sent).toMatch(/^400 Bad Request: inline keyboard button URL 'http:\/\/127\.0\.0\.1:\d+\/pay\/[\w-]+' is invalid: Wrong HTTP URL$/)
    expect((await client.chatMessages({ bot: token })).messages.filter((m) => m.from === 'bot')).toEqual([])
  })

  test('on: the button is taken, and pressing it gives the checkout URL, which pays', async () => {
    const { url, client } = await started(['--telegram-allow-local-urls'])
    expect((await client.health()).settings?.telegram).toEqual({ allowLocalUrls: true })
    const { token, sent } = await buttonBot(url, client)
    expect(await sent).toBe('sent')
    const press = await pay(['chat', 'press', 'Pay 12 USD', '--bot', token, '--url', url])
    expect(press.code, press.stderr).toBe(0)
    const link = /http:\/\/127\.0\.0\.1:\d+\/pay\/[\w-]+/.exec(press.stdout)?.[0]
    expect(link).toBeDefined()
    const paid = await pay(['payment', 'simulate', link!, '--outcome', 'paid', '--url', url])
    expect(paid.code, paid.stderr).toBe(0)
  })

  test('the reference bot sends its Pay button with the switch on, and the link as text with it off', async () => {
    for (const [args, expected] of [
      [['--telegram-allow-local-urls'], 'button'],
      [[], 'text'],
    ] as const) {
      const { url, client } = await started([...args])
      const token = newToken()
      await runReferenceBot(url, token)
      await client.chatSend({ bot: token, text: '/buy' })
      await expect.poll(async () => (await client.chatMessages({ bot: token })).messages.filter((m) => m.from === 'bot').length, { timeout: 10_000 }).toBe(1)
      const [message] = (await client.chatMessages({ bot: token })).messages.filter((m) => m.from === 'bot')
      const buttons = message!.replyMarkup && 'inline_keyboard' in message!.replyMarkup ? message!.replyMarkup.inline_keyboard.flat() : []
      if (expected === 'button') {
        expect(buttons).toEqual([{ text: 'Pay 25 USD', url: expect.stringMatching(new RegExp(`^${url}/pay/[\\w-]+$`)) }])
        expect(message!.text).not.toContain('/pay/')
      } else {
        expect(buttons).toEqual([])
        expect(message!.text).toMatch(new RegExp(`\\nPay here: ${url}/pay/[\\w-]+$`))
      }
    }
  })
})
