import { readFile } from 'node:fs/promises'
import { request } from 'node:http'
import { join } from 'node:path'
import { beforeAll, describe, expect, test } from 'vitest'
import type { ExportFile } from '../../src/client/index.js'
import { AMOUNT_RULE } from '../../src/domain/payment.js'
import { type Sandbox, startSandbox } from '../../src/index.js'
import { exportMadeThroughApi, withoutExportedAt } from '../export-files.js'
import { sandbox, tempDir } from '../helpers.js'

let good: ExportFile

beforeAll(async () => {
  good = await exportMadeThroughApi()
})

/** A fresh sandbox holding `good`, with what an import must leave exactly as it is. */
async function seeded(): Promise<{ sb: Sandbox; state: () => Promise<{ exported: string; data: Buffer; journal: Buffer }> }> {
  const dir = await tempDir()
  const sb = await sandbox({ dataFile: join(dir, 'data.json') })
  await sb.client.importState(good)
  const state = async () => {
    await sb.server.service.store.flush()
    const exported = withoutExportedAt((await sb.client.raw({ method: 'GET', path: '/_sandbox/export' })).text)
    return { exported, data: await readFile(sb.dataFile), journal: await readFile(`${sb.dataFile}.journal`) }
  }
  return { sb, state }
}

type Mutate = (f: ExportFile) => void
const copy = (): ExportFile => structuredClone(good)
const edit = (mutate: Mutate) => () => {
  const f = copy()
  mutate(f)
  return JSON.stringify(f)
}
/** Text edits, for what JSON.stringify cannot make (20,000 levels) or would drop (`__proto__`). */
const raw = (change: (text: string) => string) => () => change(JSON.stringify(good))
const deep = (levels: number) => `${'['.repeat(levels)}${']'.repeat(levels)}`
/** The words of the API's amount rule, whatever it is. */
const AMOUNT = new RegExp(`must be ${AMOUNT_RULE.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`)

describe('import refuses what the API never makes, naming the record and field, and changes nothing', () => {
  test.each<[string, () => string, RegExp]>([
    // amounts: the API's own bound and precision
    ['an amount of 1.79e308', edit((f) => (f.payments[0]!.amount = 1.79e308)), new RegExp(`payments\\[0\\]\\.amount ${AMOUNT.source} \\(got 1\\.79e\\+308\\)`)],
    ['a zero amount', edit((f) => (f.payments[1]!.amount = 0)), new RegExp(`payments\\[1\\]\\.amount ${AMOUNT.source} \\(got 0\\)`)],
    ['a negative paidAmount', edit((f) => (f.payments[0]!.paidAmount = -5)), new RegExp(`payments\\[0\\]\\.paidAmount ${AMOUNT.source} \\(got -5\\)`)],
    ['a NaN-like amount', edit((f) => ((f.payments[0] as unknown as Record<string, unknown>).amount = 'NaN')), /payments\[0\]\.amount must be a number \(got "NaN"\)/],
    ['a history amount beyond the bound', edit((f) => (f.payments[0]!.history[1]!.paidAmount = 1e13)), new RegExp(`payments\\[0\\]\\.history\\[1\\]\\.paidAmount ${AMOUNT.source} \\(got 10000000000000\\)`)],
    ['a body amount beyond the bound', edit((f) => (f.deliveries[0]!.body.amount = 1e300)), new RegExp(`deliveries\\[0\\]\\.body\\.amount ${AMOUNT.source} \\(got 1e\\+300\\)`)],
    // identifiers
    ['a trackId with a path in it', edit((f) => (f.payments[1]!.trackId = '../../etc')), /payments\[1\]\.trackId must be a trackId: 22 letters, digits, - or _ \(got "\.\.\/\.\.\/etc"\)/],
    ['a trackId with ESC', edit((f) => (f.payments[1]!.trackId = 'AAAAAAAAAAAAAAAAAAAA\u001b[')), /payments\[1\]\.trackId must be a trackId.*\(got "AAAAAAAAAAAAAAAAAAAA\\u001b\["\)/],
    ['a 200-character trackId', edit((f) => (f.payments[1]!.trackId = 'A'.repeat(200))), /payments\[1\]\.trackId must be a trackId/],
    ['a 100-character refNumber', edit((f) => (f.payments[0]!.refNumber = '1'.repeat(100))), /payments\[0\]\.refNumber must be a refNumber: 12 digits, the first not 0/],
    ['a refNumber on a pending payment', edit((f) => (f.payments[1]!.refNumber = '123456789012')), /payments\[1\]\.refNumber is set but the payment is pending/],
    ['a delivery id with a path', edit((f) => (f.deliveries[0]!.id = 'dlv_../../etc')), /deliveries\[0\]\.id must be a delivery id: dlv_ and 12 letters, digits, - or _/],
    ['a replay of an unknown delivery', edit((f) => (f.deliveries[2]!.replayOf = 'dlv_AAAAAAAAAAAA')), /deliveries\[2\]\.replayOf "dlv_AAAAAAAAAAAA" is not one of the file's deliveries/],
    ['a merchant name with blanks around it', edit((f) => (f.merchants[1]!.name = ' Shop ')), /merchants\[1\]\.name must be a merchant name: not empty, no white space at either end/],
    // what ends up in an HTTP header
    ['CR LF in a delivery event', edit((f) => (f.deliveries[0]!.event = 'payment.status_changed\r\nX-Injected: 1')), /deliveries\[0\]\.event must be "payment\.status_changed" \(got "payment\.status_changed\\r\\nX-Injected: 1"\)/],
    ['a delivery event above U+00FF', edit((f) => (f.deliveries[0]!.event = 'payment.ſtatus')), /deliveries\[0\]\.event must be "payment\.status_changed"/],
    ['CR LF in a header value', edit((f) => (f.deliveries[1]!.headers['X-Pay-Sandbox-Event'] = 'a\r\nb')), /deliveries\[1\]\.headers\.X-Pay-Sandbox-Event must be safe in an HTTP header: visible ASCII, spaces and tabs only \(got "a\\r\\nb"\)/],
    ['a header value beyond ASCII', edit((f) => (f.deliveries[1]!.headers['User-Agent'] = 'pay-sandbox/ſ')), /deliveries\[1\]\.headers\.User-Agent must be safe in an HTTP header/],
    ['a header name with a space', edit((f) => (f.deliveries[1]!.headers['Bad Name'] = 'x')), /deliveries\[1\]\.headers has a name "Bad Name" that is not an HTTP header name/],
    // the notification body: the fields notificationOf makes and nothing else
    ['an unknown field in a body', edit((f) => (f.deliveries[0]!.body.result = 100)), /deliveries\[0\]\.body has an unknown field "result"/],
    ['a body of another payment', edit((f) => (f.deliveries[0]!.body.trackId = f.payments[1]!.trackId)), /deliveries\[0\]\.body\.trackId ".*" is not the delivery's trackId/],
    ['a body nested 20,000 levels deep', raw((t) => t.replace('"sandbox":true}', `"sandbox":true,"x":${deep(20_000)}}`)), /deliveries\[0\]\.body\.x\[0\]\[0\] nests deeper than 4 levels/],
    ['a payment field nested 20,000 levels deep', raw((t) => t.replace('"mobile":', `"note":${deep(20_000)},"mobile":`)), /payments\[0\]\.note\[0\]\[0\]\[0\] nests deeper than 4 levels/],
    ['a __proto__ field', raw((t) => t.replace('"merchant":"shop_1"', '"merchant":"shop_1","__proto__":{"polluted":1}')), /payments\[1\] has an unknown field "__proto__"/],
    ['an unknown top-level field', edit((f) => Object.assign(f, { extra: 1 })), /the file has an unknown field "extra"/],
    // spec limits and URLs
    ['a 1001-character description', edit((f) => (f.payments[0]!.description = '☕'.repeat(1001))), /payments\[0\]\.description must be at most 1000 characters \(got 1001\)/],
    ['a 51-character mobile', edit((f) => (f.payments[0]!.mobile = '1'.repeat(51))), /payments\[0\]\.mobile must be at most 50 characters \(got 51\)/],
    ['a javascript: callbackUrl', edit((f) => (f.payments[1]!.callbackUrl = 'javascript:alert(1)')), /payments\[1\]\.callbackUrl must be an absolute http or https URL without white space, at most 512 characters/],
    ['a returnUrl with a tab', edit((f) => (f.payments[0]!.returnUrl = 'https://shop.example/\treturn')), /payments\[0\]\.returnUrl must be an absolute http or https URL/],
    ['a 5 MB description', edit((f) => (f.payments[0]!.description = 'x'.repeat(5_000_000))), /payments\[0\] is larger than 64 KB, more than any the sandbox writes/],
    // statuses, states, times, history
    ['an unknown status', edit((f) => ((f.payments[0] as unknown as Record<string, unknown>).status = 'refunded')), /payments\[0\]\.status must be one of pending, unfinalized, paid, failed, expired \(got "refunded"\)/],
    ['an unknown delivery state', edit((f) => ((f.deliveries[0] as unknown as Record<string, unknown>).state = 'sending')), /deliveries\[0\]\.state must be one of pending, delivered, failed, dropped \(got "sending"\)/],
    ['the 30th of February', edit((f) => (f.payments[0]!.createdAt = '2026-02-30T00:00:00.000Z')), /payments\[0\]\.createdAt must be a time as the sandbox writes it, such as 2026-01-31T12:00:00\.000Z \(got "2026-02-30T00:00:00\.000Z"\)/],
    ['hour 24', edit((f) => (f.deliveries[0]!.attempts[0]!.at = '2026-01-01T24:00:00.000Z')), /deliveries\[0\]\.attempts\[0\]\.at must be a time as the sandbox writes it/],
    ['a history no payment could live', edit((f) => f.payments[0]!.history.reverse()), /payments\[0\]\.history\[0\]\.status must be pending: every payment starts pending \(got "paid"\)/],
    ['a history longer than the statuses', edit((f) => f.payments[0]!.history.push(...f.payments[0]!.history)), /payments\[0\]\.history must hold at most 5 entries \(got 6\)/],
    // attempts
    ['a 2049-character response excerpt', edit((f) => (f.deliveries[0]!.attempts[0]!.responseExcerpt = 'x'.repeat(2049))), /deliveries\[0\]\.attempts\[0\]\.responseExcerpt must be at most 2048 characters \(got 2049\)/],
    ['a 5000-character attempt error', edit((f) => (f.deliveries[0]!.attempts[0]!.error = 'e'.repeat(5000))), /deliveries\[0\]\.attempts\[0\]\.error must be at most 4096 characters \(got 5000\)/],
    ['121 attempts', edit((f) => (f.deliveries[0]!.attempts = Array.from({ length: 121 }, (_, j) => ({ ...f.deliveries[0]!.attempts[0]!, attempt: j + 1 })))), /deliveries\[0\]\.attempts must hold at most 120 entries \(got 121\)/],
    ['more attempts than maxRetries allows', edit((f) => {
      f.deliveries[0]!.maxRetries = 0
      f.deliveries[0]!.attempts.push({ ...f.deliveries[0]!.attempts[0]!, attempt: 2 })
    }), /deliveries\[0\]\.attempts holds 2 attempts, more than maxRetries 0 allows \(1\)/],
    ['an attempts array of 200,000 entries', edit((f) => (f.deliveries[0]!.attempts = Array.from({ length: 200_000 }, () => f.deliveries[0]!.attempts[0]!))), /deliveries\[0\] holds more than 2048 values, more than any record the sandbox writes \(the next is in deliveries\[0\]\.attempts\[\d+\]\)/],
    ['a record with 100,000 fields', raw((t) => t.replace('"merchant":"shop_1"', `"merchant":"shop_1",${Array.from({ length: 100_000 }, (_, i) => `"f${i}":0`).join(',')}`)), /payments\[1\] holds more than 256 values, more than any record the sandbox writes \(the next is in payments\[1\]\)/],
    ['a huge maxRetries', edit((f) => (f.deliveries[0]!.maxRetries = 1e9)), /deliveries\[0\]\.maxRetries must be at most 100 \(got 1000000000\)/],
    // the file itself
    ['data after the object', raw((t) => `${t} {}`), /the file is not valid JSON: unexpected data after the end of the JSON object at byte \d+/],
  ])('%s', async (_name, body, message) => {
    const { sb, state } = await seeded()
    const before = await state()
    const res = await sb.client.raw({ method: 'POST', path: '/_sandbox/import', body: body() })
    expect(res.status).toBe(400)
    expect(res.json).toMatchObject({ statusCode: 400, error: 'invalid_body', message: expect.stringMatching(message) })
    expect((res.json as { message: string }).message).toMatch(/^not a valid export file: /)
    const after = await state()
    expect(after.exported).toBe(before.exported)
    expect(after.data.equals(before.data)).toBe(true)
    expect(after.journal.equals(before.journal)).toBe(true)
  })
})

test('an imported amount is refused exactly when the API refuses it at create', async () => {
  const sb = await sandbox()
  const callbackUrl = 'http://127.0.0.1:9/cb'
  for (const amount of [1.79e308, 5e-324, 1e-9, 0.00000001, 1.123456789, 12.5, 1e12, 1e12 + 0.5, 0, -1]) {
    const created = await sb.client.createPayment({ merchant: 'sandbox', amount, callbackUrl })
    const file = copy()
    file.payments[1]!.amount = amount
    const imported = await sb.client.raw({ method: 'POST', path: '/_sandbox/import', body: file })
    expect({ amount, api: created.result === 100, import: imported.status === 200 }).toEqual({ amount, api: created.result === 100, import: created.result === 100 })
    if (imported.status !== 200) expect((imported.json as { message: string }).message).toMatch(new RegExp(`payments\\[1\\]\\.amount ${AMOUNT.source}`))
  }
})

test('a field nested 20,000 levels deep is refused before anything is swapped: the state survives a restart', async () => {
  const dir = await tempDir()
  const dataFile = join(dir, 'data.json')
  const first = await startSandbox({ dataFile })
  await first.client.importState(good)
  const before = withoutExportedAt((await first.client.raw({ method: 'GET', path: '/_sandbox/export' })).text)
  const hostile = JSON.stringify(good).replace('"sandbox":true}', `"sandbox":true,"x":${deep(20_000)}}`)
  const res = await first.client.raw({ method: 'POST', path: '/_sandbox/import', body: hostile })
  expect(res.status).toBe(400)
  expect((await first.client.raw({ method: 'GET', path: '/_sandbox/payments' })).status).toBe(200)
  await first.stop()
  const second = await sandbox({ dataFile })
  expect(withoutExportedAt((await second.client.raw({ method: 'GET', path: '/_sandbox/export' })).text)).toBe(before)
  for (const p of (await second.client.exportState()).payments) {
    expect((await second.client.listMerchants()).map((m) => m.key)).toContain(p.merchant)
  }
})

test('a body declared larger than 256 MB is refused at once with 413, naming the limit', async () => {
  const sb = await sandbox()
  const url = new URL(sb.url)
  const answer = await new Promise<{ status: number; text: string }>((resolve, reject) => {
    const req = request(
      { host: url.hostname, port: url.port, path: '/_sandbox/import', method: 'POST', headers: { 'content-type': 'application/json', 'content-length': String(300 * 1024 * 1024) } },
      (res) => {
        let text = ''
        res.on('data', (c: Buffer) => (text += c.toString()))
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }))
      },
    )
    req.on('error', reject)
    req.write('{"format":"pay-sandbox-export",')
  })
  expect(answer.status).toBe(413)
  expect(JSON.parse(answer.text)).toEqual({
    statusCode: 413,
    error: 'payload_too_large',
    message: 'the import body is larger than 256 MB, the most an import takes',
  })
  expect((await sb.client.health()).counts).toEqual({ merchants: 1, payments: 0, deliveries: 0 })
})
