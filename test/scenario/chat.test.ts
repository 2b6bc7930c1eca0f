import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { Bot } from 'grammy'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type Sandbox, startSandbox } from '../../src/index.js'
import { parseScenarioOrThrow } from '../../src/scenario/parse.js'
import { PatternTimeout, timedExec } from '../../src/scenario/pattern.js'
import { runScenario } from '../../src/scenario/run.js'
import { pay, tempDir } from '../helpers.js'

/*
 * Chat steps against a real sandbox and a tiny grammY shop bot polling its Bot API emulator: /buy creates a
 * payment and sends its checkout link with a "Check payment" button; the button (a callback_query) and a
 * verified paid status each answer in the chat.
 */

const TOKEN = '810777:Scenario_chat_steps-abcdefghijklmno'
let sb: Sandbox
let bot: Bot
const pressed: string[] = []

beforeAll(async () => {
  sb = await startSandbox({ callbacks: { retries: 2, timeoutMs: 2000, scheduleMs: [100] } })
  await sb.client.addBot({ token: TOKEN, username: 'scenario_shop_bot' })
  bot = new Bot(TOKEN, { client: { apiRoot: `${sb.url}/telegram` } })
  bot.command('buy', async (ctx) => {
    const created = await sb.client.createPayment({ merchant: 'sandbox', amount: 12, callbackUrl: 'https://shop.example/cb' })
    if (created.result !== 100) return
    await ctx.reply(`Pay here: ${sb.client.checkoutUrl(created.trackId)}`, { reply_markup: { inline_keyboard: [[{ text: 'Check payment', callback_data: `check:${created.trackId}` }]] } })
  })
  bot.callbackQuery(/^check:(.+)$/, async (ctx) => {
    const trackId = ctx.match[1]!
    pressed.push(trackId)
    await ctx.answerCallbackQuery('Checking…')
    const verified = await sb.client.verifyPayment({ merchant: 'sandbox', trackId })
    await ctx.reply(verified.result === 100 && 'amount' in verified && verified.amount === 12 ? `✅ Payment received for ${trackId}` : `Not paid yet (${verified.result})`)
  })
  bot.command('long', (ctx) => ctx.reply(`${'a'.repeat(40)}!`))
  // Updates sent before the bot dropped its pending ones would be lost: the tests start once it polls.
  await new Promise<void>((started) => void bot.start({ drop_pending_updates: true, onStart: () => started() }))
}, 30_000)

afterAll(async () => {
  await bot?.stop()
  await sb?.stop()
})

function scenario(name: string, steps: unknown[]) {
  return parseScenarioOrThrow(JSON.stringify({ version: 1, name, steps }), `${name}.json`)
}

const buyAndPay = (confirmation: string) => [
  { chat: { send: '/buy', bot: '@scenario_shop_bot' } },
  { chat: { expect: 'Pay here: \\S+/pay/', as: 'link' } },
  { simulate: { trackId: '${link.trackId}', outcome: 'paid' } },
  { chat: { press: 'Check payment', message: '${link.messageId}', as: 'check' } },
  { chat: { expect: confirmation, within: '3s', as: 'done' } },
]

describe('chat steps', () => {
  it('sends /buy, finds the checkout link, pays it by trackId and sees the bot confirm after a button press', async () => {
    const report = await runScenario(scenario('bot flow', [...buyAndPay('/payment received for ${link.trackId}/i'), { verify: { trackId: '${link.trackId}', merchant: 'sandbox' }, expect: { result: 100, amount: 12 } }]), { client: sb.client })
    expect(report.steps.map((s) => [s.title, s.outcome, s.message])).toEqual([
      ['chat send "/buy" (bot "@scenario_shop_bot")', 'passed', undefined],
      ['chat expect /Pay here: \\S+/pay// within 10s', 'passed', undefined],
      ['simulate trackId ${link.trackId} paid', 'passed', undefined],
      ['chat press "Check payment" of message ${link.messageId}', 'passed', undefined],
      ['chat expect /payment received for ${link.trackId}/i within 3s', 'passed', undefined],
      ['verify trackId → 100', 'passed', undefined],
    ])
    const [payment] = await sb.client.listPayments({ limit: 1 })
    expect(payment!.status).toBe('paid')
    expect(pressed).toContain(payment!.trackId)
    expect(report.steps[1]!.detail).toBe(`#${Number(/#(\d+)/.exec(report.steps[0]!.detail!)![1]) + 1} "Pay here: ${sb.client.checkoutUrl(payment!.trackId)}"`)
    expect(report.steps[3]!.detail).toBe(`callback_data "check:${payment!.trackId}" sent to the bot`)
    expect(report.steps[4]!.detail).toMatch(new RegExp(`^#\\d+ "✅ Payment received for ${payment!.trackId}"$`))
  })

  it('fails an expectation the bot does not meet, naming the pattern and the messages that did arrive', async () => {
    const report = await runScenario(scenario('wrong expectation', buyAndPay('Payment refunded')), { client: sb.client })
    expect(report.ok).toBe(false)
    const failed = report.steps.find((s) => s.outcome === 'failed')!
    expect(failed.number).toBe(5)
    expect(failed.error).toBeUndefined()
    expect(failed.message).toMatch(/^no message from @scenario_shop_bot in chat 1000001 matching \/Payment refunded\/ within 3s; the bot sent: #\d+ "✅ Payment received for \S+"$/)
  })

  it('does not match a message that came before the last send: an expect waits for new ones', async () => {
    const report = await runScenario(
      scenario('old messages', [{ chat: { send: '/buy' } }, { chat: { expect: 'Pay here' } }, { chat: { send: 'hello' } }, { chat: { expect: 'Pay here', within: '300ms' } }]),
      { client: sb.client },
    )
    expect(report.steps.map((s) => s.outcome)).toEqual(['passed', 'passed', 'passed', 'failed'])
    expect(report.steps[3]!.message).toMatch(/^no message from @scenario_shop_bot in chat 1000001 matching \/Pay here\/ within 300ms; the bot sent nothing after message #\d+$/)
  })

  it('stops a pattern that backtracks without end, failing the step', async () => {
    const report = await runScenario(scenario('slow pattern', [{ chat: { send: '/long' } }, { chat: { expect: '^(a+)+$', within: '2s' } }]), { client: sb.client })
    expect(report.steps[1]).toMatchObject({ outcome: 'failed', message: 'the pattern /^(a+)+$/ took more than 200 ms on a message of 41 characters; write one that does not backtrack so much' })
  })

  it('gives a pattern its 200 ms of CPU: a match the machine was too busy to run in time is run again, not failed', () => {
    // Waits 300 ms (without running) on its first call, as a descheduled process would; then matches at once.
    let calls = 0
    const stalls = {
      lastIndex: 0,
      exec: (text: string) => {
        if (calls++ === 0) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 300)
        return [text]
      },
    } as unknown as RegExp
    expect(timedExec(stalls, 'Payment received')).toEqual(['Payment received'])
    expect(calls).toBe(2)
    expect(() => timedExec(/^(a+)+$/, `${'a'.repeat(40)}!`, 'a message')).toThrow(PatternTimeout)
    expect(() => timedExec(/^(a+)+$/, `${'a'.repeat(40)}!`, 'a message')).toThrow('on a message of 41 characters')
  })

  it('runs from the CLI: exit 0 for the flow, exit 6 naming the pattern, exit 2 with line:col for a bot the sandbox does not know', async () => {
    const dir = await tempDir()
    const file = (name: string, steps: unknown[]) => {
      const path = join(dir, name)
      return writeFile(path, JSON.stringify({ version: 1, name, steps }, null, 2)).then(() => path)
    }
    const good = await file('flow.json', buyAndPay('Payment received'))
    const wrong = await file('wrong.json', buyAndPay('Payment refunded'))
    const unknown = await file('unknown.json', [{ chat: { send: '/buy', bot: '@no_such_bot' } }, { chat: { expect: 'x', bot: '999:secretsecret' } }])
    const passed = await pay(['scenario', 'run', good, '--url', sb.url])
    expect(passed.code, passed.stderr).toBe(0)
    expect(passed.stdout).toMatch(/✔ 2\. chat expect \/Pay here: \\S\+\/pay\/\/ within 10s \d+ ms\n {6}#\d+ "Pay here: http:\/\/127\.0\.0\.1:\d+\/pay\/\S+"/)
    const json = await pay(['scenario', 'run', good, '--url', sb.url, '--json'])
    expect(JSON.parse(json.stdout).scenarios[0].steps[3]).toMatchObject({ kind: 'chat', outcome: 'passed', detail: expect.stringMatching(/^callback_data "check:\S+" sent to the bot$/) })
    const failed = await pay(['scenario', 'run', wrong, '--url', sb.url])
    expect(failed.code).toBe(6)
    expect(failed.stdout).toContain('no message from @scenario_shop_bot in chat 1000001 matching /Payment refunded/ within 3s; the bot sent: #')
    const refused = await pay(['scenario', 'run', unknown, '--url', sb.url])
    expect(refused.code).toBe(2)
    expect(refused.stderr).toContain(`${unknown}:8:16: step 1 (chat) › chat.bot: the sandbox knows no bot "@no_such_bot"; bots: @scenario_shop_bot`)
    expect(refused.stderr).toContain(`${unknown}:14:16: step 2 (chat) › chat.bot: the sandbox knows no bot 999:***; bots: @scenario_shop_bot`)
    expect(refused.stderr).not.toContain('secretsecret')
  }, 60_000)
})
