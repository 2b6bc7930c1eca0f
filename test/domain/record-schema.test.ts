import { expect, test } from 'vitest'
import { exportAjv } from '../../src/domain/export-schema.js'
import { journalRecordProblem, recordsSchema, storedRecordProblem } from '../../src/domain/record-schema.js'

const at = '2026-01-01T00:00:00.000Z'
const trackId = 'f2avKzt3eJNBWRpfXoOW_g'
const payment = { trackId, merchant: 'sandbox', amount: 10, callbackUrl: 'http://127.0.0.1:9/cb', status: 'pending', createdAt: at, updatedAt: at, history: [{ status: 'pending', at, source: 'api' }] }
const verify = { trackId, at, key: 'sandbox', owner: true, result: 202, amount: 10, status: 'pending' }
const bot = { id: 123456, token: '123456:TEST-token', username: 'shop_bot', firstName: 'Shop', createdAt: at, lastUpdateId: 0 }

test('the records schema is a valid JSON Schema', () => {
  const ajv = exportAjv()
  expect(ajv.validateSchema(recordsSchema), JSON.stringify(ajv.errors)).toBe(true)
})

test('journal records: each kind is held to its rules, and what is wrong is named by the kind and field', () => {
  const rows: Array<[unknown, string | undefined]> = [
    [{ s: 1, k: 'payment', v: payment }, undefined],
    [{ s: 1, k: 'payment', v: { ...payment, amount: 'ten' } }, 'payment.amount must be a number (got "ten")'],
    [{ s: 1, k: 'payment', v: { ...payment, createdAt: '+010000-01-01T00:00:00.000Z' } }, 'payment.createdAt must be a time as the sandbox writes it, such as 2026-01-31T12:00:00.000Z (got "+010000-01-01T00:00:00.000Z")'],
    [{ s: 1, k: 'payment', v: { ...payment, status: 'paid' } }, 'payment.status is paid but its last history entry is pending'],
    [{ s: 1, k: 'payment', v: { ...payment, note: 1 } }, 'payment has an unknown field "note"'],
    [{ s: 1, k: 'payment' }, 'record.v is missing'],
    [{ s: 1, k: 'payment', v: payment, x: 1 }, 'record has an unknown field "x"'],
    [{ s: 1.5, k: 'reset' }, 'record.s must be a whole number (got 1.5)'],
    [{ s: 1, k: 'reset' }, undefined],
    [{ s: 1, k: 'clock', v: { offsetMs: 0, holdUntil: '9999-01-01T00:00:00.000Z' } }, undefined],
    [{ s: 1, k: 'clock', v: { offsetMs: -1 } }, 'clock.offsetMs must be an offset from 0 to 253370764800000 ms: the sandbox clock goes no later than 9999-01-01T00:00:00.000Z (got -1)'],
    [{ s: 1, k: 'clock', v: { offsetMs: 0, holdUntil: '9999-01-01T00:00:00.001Z' } }, 'clock.holdUntil must be a time as the sandbox writes it, no later than 9999-01-01T00:00:00.000Z (got "9999-01-01T00:00:00.001Z")'],
    [{ s: 1, k: 'verify', v: verify }, undefined],
    [{ s: 1, k: 'verify', v: { ...verify, status: 'lost' } }, 'verify.status must be one of pending, unfinalized, paid, failed, expired (got "lost")'],
    [{ s: 1, k: 'tg', v: { t: 'bot', v: bot } }, undefined],
    [{ s: 1, k: 'tg', v: { t: 'bot', v: { ...bot, lastUpdateId: -1 } } }, 'tg bot.lastUpdateId must be at least 0 (got -1)'],
    [{ s: 1, k: 'tg', v: { t: 'confirm', botId: 123456, below: 3 } }, undefined],
    [{ s: 1, k: 'tg', v: { t: 'unfile' } }, 'tg unfile.fileId is missing'],
    [{ s: 1, k: 'tg', v: { t: 'wipe' } }, 'not a journal record: v.t of a tg record must be one of bot, chat, message, update, file, confirm, drop, unfile (got "wipe")'],
    [{ s: 1, k: 'drop table' }, 'not a journal record: k must be one of merchant, payment, delivery, clock, verify, reset, tg, fault (got "drop table")'],
    [[1, 2], 'not a journal record: not a JSON object'],
  ]
  for (const [record, problem] of rows) expect(journalRecordProblem(record), JSON.stringify(record)).toBe(problem)
})

test('data file records: named by their list and index', () => {
  expect(storedRecordProblem('payments', payment, 0)).toBeUndefined()
  expect(storedRecordProblem('payments', { ...payment, amount: 0 }, 3)).toBe('payments[3].amount must be a number greater than 0 and at most 1e12 (got 0)')
  expect(storedRecordProblem('payments', { ...payment, refNumber: '100000000001' }, 4)).toBe('payments[4].refNumber is set but the payment is pending: only a paid payment has one')
  expect(storedRecordProblem('verifies', { trackId, count: 1, entries: [verify] }, 0)).toBeUndefined()
  expect(storedRecordProblem('verifies', { trackId, count: 1, entries: Array(51).fill(verify) }, 0)).toBe('verifies[0].entries must hold at most 50 entries (got 51)')
  expect(storedRecordProblem('tgBots', bot, 0)).toBeUndefined()
  expect(storedRecordProblem('clock', { offsetMs: 8.64e15 })).toMatch(/^clock\.offsetMs must be an offset from 0/)
})
