import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { expect, test } from 'vitest'
import { ExportFileError, readDeliveryExport, replayExport } from '../../src/callbacks/export.js'
import { tempDir } from '../helpers.js'
import { receiver } from './receiver.js'

const one = { id: 'dlv_1', trackId: 'T1', url: 'https://shop.example/cb', event: 'payment.status_changed', body: { trackId: 'T1', status: 'paid' } }

test.each([
  ['list --json output', { deliveries: [one] }],
  ['show --json output', { delivery: one }],
  ['a bare array', [one]],
  ['a bare delivery', one],
  ['a sandbox export', { format: 'pay-sandbox-export', merchants: [], payments: [], deliveries: [one] }],
])('reads %s', async (_name, data) => {
  const file = join(await tempDir(), 'export.json')
  await writeFile(file, JSON.stringify(data))
  expect(await readDeliveryExport(file)).toEqual([one])
})

test.each([
  ['missing', undefined, /missing\.json: no such file/],
  ['folder', 'DIR', /folder\.json: is a folder, not a file/],
  ['not JSON', '{"deliveries": [', /notjson\.json: not valid JSON \(.+\); expected the output of pay callback list --json/],
  ['wrong shape', '{"payments": []}', /shape\.json: expected \{"deliveries": \[\.\.\.\]\} as written by pay callback list --json/],
  ['a number', '42', /number\.json: expected \{"deliveries"/],
  ['no deliveries', '{"deliveries": []}', /empty\.json: holds no deliveries/],
  ['an item not an object', '{"deliveries": [1]}', /item\.json: deliveries\[0\] must be an object/],
  ['missing fields', '{"deliveries": [{"body": []}]}', /fields\.json: deliveries\[0\]\.id must be a non-empty string; deliveries\[0\]\.trackId must be a non-empty string; deliveries\[0\]\.body must be a JSON object/],
  ['a bad url', '{"deliveries": [{"id": "d", "trackId": "t", "body": {}, "url": 5}]}', /url\.json: deliveries\[0\]\.url must be a string/],
  [
    'many problems',
    JSON.stringify({ deliveries: Array.from({ length: 8 }, () => 0) }),
    /many\.json: (deliveries\[\d\] must be an object; ){4}deliveries\[4\] must be an object; and 3 more$/,
  ],
])('refuses a file that is %s, naming it and the problem', async (name, text, message) => {
  const dir = await tempDir()
  const file = join(
    dir,
    {
      missing: 'missing.json',
      folder: 'folder.json',
      'not JSON': 'notjson.json',
      'wrong shape': 'shape.json',
      'a number': 'number.json',
      'no deliveries': 'empty.json',
      'an item not an object': 'item.json',
      'missing fields': 'fields.json',
      'a bad url': 'url.json',
      'many problems': 'many.json',
    }[name]!,
  )
  if (text === 'DIR') await mkdir(file)
  else if (text !== undefined) await writeFile(file, text)
  const error = await readDeliveryExport(file).catch((e: unknown) => e)
  expect(error).toBeInstanceOf(ExportFileError)
  expect((error as Error).message).toMatch(message)
})

test('replayExport sends each body once, in order, and reports each as a delivery', async () => {
  const rx = await receiver((n) => (n === 1 ? { status: 200, body: 'fine' } : { status: 410, body: 'gone' }))
  const second = { ...one, id: 'dlv_2', body: { trackId: 'T1', status: 'failed' } }
  const seen: string[] = []
  const out = await replayExport([one, second], { to: rx.url, timeoutMs: 2000, onResult: (d) => seen.push(d.id) })
  expect(out.map((d) => [d.replayOf, d.state, d.url, d.attempts[0]?.status])).toEqual([
    ['dlv_1', 'delivered', rx.url, 200],
    ['dlv_2', 'failed', rx.url, 410],
  ])
  expect(seen).toEqual(out.map((d) => d.id))
  expect(rx.received.map((r) => r.text)).toEqual([JSON.stringify(one.body), JSON.stringify(second.body)])
  expect(rx.received[1]!.headers['x-pay-sandbox-replay-of']).toBe('dlv_2')
})
