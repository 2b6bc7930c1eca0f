import { describe, expect, test } from 'vitest'
import { pay, sandbox } from '../helpers.js'

const TOKEN = '6660001:Cl1_bot_token-abcdefghijklmnopqrstu'

describe('pay chat', () => {
  test('bot add, send, a bot answering with a button, press, messages --follow --until, bots', async () => {
    const sb = await sandbox()
    const url = ['--url', sb.url]
    const added = await pay(['chat', 'bot', 'add', TOKEN, '--username', 'cli_shop_bot', ...url, '--json'])
    expect(added.code).toBe(0)
    expect(JSON.parse(added.stdout).bot).toMatchObject({ id: 6660001, username: 'cli_shop_bot' })

    const sent = await pay(['chat', 'send', '/start', ...url])
    expect(sent.code).toBe(0)
    expect(sent.stdout).toMatch(/#1 +you .*\n +\/start/)

    // The bot, by hand: it answers with a callback button and a control character in its text.
    const api = (method: string, body: unknown) => sb.client.raw({ method: 'POST', path: `/telegram/bot${TOKEN}/${method}`, body })
    await api('sendMessage', { chat_id: 1000001, text: 'Hello\u001b[2J there', reply_markup: { inline_keyboard: [[{ text: 'Check', callback_data: 'check' }]] } })
    const shown = await pay(['chat', 'messages', ...url])
    expect(shown.stdout).toContain('Hello\\x1b[2J there')
    expect(shown.stdout).toContain('[Check]')

    const press = pay(['chat', 'press', 'Check', '--wait', '5s', ...url, '--json'])
    let updateId = 0
    await expect
      .poll(async () => {
        const updates = (await api('getUpdates', {})).json as { result: Array<{ update_id: number; callback_query?: { id: string } }> }
        const query = updates.result.find((u) => u.callback_query)
        if (query) {
          updateId = query.update_id
          await api('answerCallbackQuery', { callback_query_id: query.callback_query!.id, text: 'Not paid yet' })
        }
        return updateId
      }, { timeout: 10_000, interval: 100 })
      .toBeGreaterThan(0)
    const pressed = await press
    expect(pressed.code).toBe(0)
    expect(JSON.parse(pressed.stdout)).toMatchObject({ kind: 'callback', data: 'check', answer: { text: 'Not paid yet' } })

    const follow = pay(['chat', 'messages', '--follow', '--until', 'Payment received', '--timeout', '10s', ...url, '--json'])
    await new Promise((r) => setTimeout(r, 500))
    await api('sendMessage', { chat_id: 1000001, text: 'Payment received, thanks' })
    const followed = await follow
    expect(followed.code).toBe(0)
    expect(JSON.parse(followed.stdout).matched).toMatchObject({ from: 'bot', text: 'Payment received, thanks' })

    const missed = await pay(['chat', 'messages', '--follow', '--until', 'never', '--timeout', '300ms', ...url])
    expect(missed.code).toBe(6)
    expect(missed.stderr).toContain('no bot message matching /never/ within 300ms')

    const bots = await pay(['chat', 'bots', ...url])
    expect(bots.stdout).toContain('6660001:***')
    expect(bots.stdout).not.toContain(TOKEN)
  })

  test('refusals: an unknown bot (exit 5), a bad token (exit 5), a missing argument (exit 2)', async () => {
    const sb = await sandbox()
    const url = ['--url', sb.url]
    const unknown = await pay(['chat', 'send', 'hi', '--bot', '@nobody_bot', ...url])
    expect(unknown.code).toBe(5)
    expect(unknown.stderr).toContain('no bot "@nobody_bot"')
    const bad = await pay(['chat', 'bot', 'add', '123:not.a.secret', ...url, '--json'])
    expect(bad.code).toBe(2)
    expect(JSON.parse(bad.stdout).error.message).toMatch(/^token must be <bot id>:<secret>, the bot id a positive whole number .* \(got "123:\*\*\*"\)$/)
    const test = await pay(['chat', 'bot', 'add', '123:TEST-token', ...url, '--json'])
    expect(test.code).toBe(0)
    expect(JSON.parse(test.stdout).bot).toMatchObject({ id: 123, username: 'sandbox_123_bot' })
    expect((await pay(['chat', 'send', ...url])).code).toBe(2)
  })
})
