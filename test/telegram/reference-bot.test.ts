import { readFile } from 'node:fs/promises'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { type Sandbox, startSandbox } from '../../src/index.js'
import { runReferenceBot } from './reference-bot.js'

let sb: Sandbox
beforeAll(async () => {
  sb = await startSandbox({ callbacks: { retries: 2, timeoutMs: 2000, scheduleMs: [100] }, telegram: { webhookRetryMs: [100] } })
})
afterAll(async () => {
  await sb?.stop()
})

const botTexts = async (bot: string, chat: number) =>
  (await sb.client.chatMessages({ bot, chat })).messages.filter((m) => m.from === 'bot').map((m) => m.text ?? '')

/** /buy in a chat; resolves with the trackId of the checkout link the bot sent. */
async function buy(bot: string, chat: number): Promise<string> {
  await sb.client.chatSend({ bot, chat, text: '/buy' })
  let trackId = ''
  await expect
    .poll(async () => {
      const link = (await botTexts(bot, chat)).find((t) => t.includes('/pay/'))
      trackId = link?.split('/pay/')[1] ?? ''
      return trackId
    }, { timeout: 10_000 })
    .toMatch(/^[A-Za-z0-9_-]{22}$/)
  return trackId
}

test('reference bot in webhook mode: one delivery under duplicate and out-of-order notifications; 203, 202 and a wrong amount each told once', async () => {
  const token = '5550003:Webh00k_reference-bot-abcdefghijklm'
  const bot = await runReferenceBot(sb.url, token, { BOT_MODE: 'webhook', WEBHOOK_SECRET: 'ref_secret' })
  const [info] = await sb.client.listBots()
  expect(info).toMatchObject({ mode: 'webhook', webhook: { secretToken: true } })

  // Paid after confirming; then the first (unfinalized) notification is sent again, and the paid one twice.
  const paid = await buy(token, 101)
  await sb.client.simulate(paid, { outcome: 'unfinalized' })
  await expect.poll(() => botTexts(token, 101), { timeout: 10_000 }).toContainEqual(expect.stringMatching(/waiting for confirmations/))
  await sb.client.simulate(paid, { outcome: 'paid' })
  await expect.poll(() => botTexts(token, 101), { timeout: 10_000 }).toContainEqual(expect.stringMatching(/^✅ Payment received/))
  const deliveries = await sb.client.listDeliveries({ trackId: paid })
  for (const d of [deliveries[0]!, deliveries[1]!, deliveries[1]!]) expect((await sb.client.replayDelivery(d.id)).state).toBe('delivered')
  await new Promise((r) => setTimeout(r, 300))
  const texts = await botTexts(token, 101)
  expect(texts.filter((t) => t.startsWith('✅'))).toHaveLength(1)
  expect(texts.filter((t) => t.includes('waiting for confirmations'))).toHaveLength(1)

  // Not completed.
  const failed = await buy(token, 102)
  await sb.client.simulate(failed, { outcome: 'failed' })
  await expect.poll(() => botTexts(token, 102), { timeout: 10_000 }).toContainEqual(expect.stringMatching(/^❌ Payment for order .* was not completed/))

  // Paid, but not the order amount: nothing delivered.
  const short = await buy(token, 103)
  await sb.client.simulate(short, { outcome: 'paid', amount: 5 })
  await expect.poll(() => botTexts(token, 103), { timeout: 10_000 }).toContainEqual(expect.stringMatching(/^⚠️ The amount paid/))

  const orders = JSON.parse(await readFile(bot.ordersFile, 'utf8')) as Array<{ trackId: string; state: string }>
  expect(Object.fromEntries(orders.map((o) => [o.trackId, o.state]))).toEqual({ [paid]: 'delivered', [failed]: 'not_completed', [short]: 'amount_mismatch' })
})
