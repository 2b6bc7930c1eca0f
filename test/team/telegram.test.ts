/**
 * The Bot API emulator of a team sandbox: one long poll per bot across instances (a newer getUpdates through any
 * instance ends the waiting one with 409, as Telegram does), and an update queued through one instance answers
 * the poll waiting on another.
 */
import { describe, expect, test } from 'vitest'
import type { Sandbox } from '../../src/index.js'
import { sandbox } from '../helpers.js'
import { freshDatabase } from './postgres.js'

const token = '700901:Tok3n_secret-0123456789abcdefghijk'

async function api(sb: Sandbox, method: string, params: Record<string, unknown> = {}) {
  const res = await sb.client.raw({ method: 'POST', path: `/telegram/bot${token}/${method}`, body: params })
  return { status: res.status, body: res.json as { ok: boolean; result?: Array<{ update_id: number; message?: { text: string } }>; description?: string } }
}

describe('the Bot API emulator of a team sandbox', () => {
  test('a long poll through B ends the one waiting on A with 409; a message sent through A answers the poll on B', async () => {
    const url = await freshDatabase()
    const a = await sandbox({ store: url })
    const b = await sandbox({ store: url })
    expect((await api(a, 'getMe')).body.ok).toBe(true)
    const first = api(a, 'getUpdates', { timeout: 20 })
    // The first poll is waiting (its claim announced) before the second comes.
    await new Promise((r) => setTimeout(r, 300))
    const startedAt = performance.now()
    const second = api(b, 'getUpdates', { timeout: 20 })
    const ended = await first
    expect(ended).toEqual({ status: 409, body: { ok: false, error_code: 409, description: 'Conflict: terminated by other getUpdates request; make sure that only one bot instance is running' } })
    expect(performance.now() - startedAt).toBeLessThan(5_000)
    await a.client.chatSend({ bot: token.split(':')[0]!, text: 'hello from A' })
    const got = await second
    expect(got.status).toBe(200)
    expect(got.body.result?.map((u) => u.message?.text)).toEqual(['hello from A'])
  })

  test('a button pressed through A, answered by the bot through B: the press waiting on A gets the answer', async () => {
    const url = await freshDatabase()
    const a = await sandbox({ store: url })
    const b = await sandbox({ store: url })
    await api(a, 'getMe')
    await a.client.chatSend({ bot: token.split(':')[0]!, text: '/start' })
    const first = await api(b, 'getUpdates', { timeout: 5 })
    const chatId = (first.body.result?.[0] as unknown as { message: { chat: { id: number } } }).message.chat.id
    const offset = first.body.result![0]!.update_id + 1
    await api(b, 'sendMessage', { chat_id: chatId, text: 'Ready?', reply_markup: { inline_keyboard: [[{ text: 'Done', callback_data: 'done' }]] } })
    const pressing = a.client.chatPress({ bot: token.split(':')[0]!, button: 'Done', wait: 8000 })
    const update = await api(b, 'getUpdates', { offset, timeout: 5 })
    const query = (update.body.result?.[0] as unknown as { callback_query: { id: string; data: string } }).callback_query
    expect(query.data).toBe('done')
    expect((await api(b, 'answerCallbackQuery', { callback_query_id: query.id, text: 'Thanks!' })).body).toEqual({ ok: true, result: true })
    expect(await pressing).toMatchObject({ kind: 'callback', data: 'done', answer: { text: 'Thanks!', showAlert: false } })
    // Answered once: a second answer, through either instance, is refused as Telegram refuses it.
    expect((await api(a, 'answerCallbackQuery', { callback_query_id: query.id })).status).toBe(400)
  })
})
