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
})
