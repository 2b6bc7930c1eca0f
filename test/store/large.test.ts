import { createWriteStream } from 'node:fs'
import { readFile, stat } from 'node:fs/promises'
import { join } from 'node:path'
import { once } from 'node:events'
import { expect, test } from 'vitest'
import { openFileStore } from '../../src/store/open.js'
import { tempDir } from '../helpers.js'

/** Past V8's longest string (about 512 MB): a file this size can only be read back piece by piece. */
const BEYOND_ONE_STRING = 560 * 1024 * 1024

async function writeLines(path: string, head: string, line: (i: number) => string, tail: string, bytes: number): Promise<number> {
  const out = createWriteStream(path)
  out.write(head)
  let written = head.length
  let i = 0
  let chunk = ''
  while (written < bytes) {
    const text = line(i++)
    written += text.length
    chunk += text
    if (chunk.length > 4 * 1024 * 1024) {
      if (!out.write(chunk)) await once(out, 'drain')
      chunk = ''
    }
  }
  out.end(chunk + tail)
  await once(out, 'finish')
  return i
}

const at = '2026-01-01T00:00:00.000Z'
const description = 'a long order description, as some shops send them. '.repeat(19)

function paymentJson(i: number): string {
  return JSON.stringify({
    trackId: `T${String(i).padStart(21, '0')}`,
    merchant: 'sandbox',
    amount: 1 + (i % 1000),
    callbackUrl: `https://shop.example/callbacks/payments/${i}?token=${'t'.repeat(200)}`,
    returnUrl: `https://shop.example/thanks/${i}?${'q'.repeat(300)}`,
    description,
    status: 'pending',
    createdAt: at,
    updatedAt: at,
    history: [{ status: 'pending', at, source: 'api' }],
  })
}

test('a data file larger than one string can hold is read back whole', async () => {
  const file = join(await tempDir(), 'data.json')
  const head = `{\n"format": "pay-sandbox/1",\n"seq": 1,\n"store": "large",\n"merchants": [\n${JSON.stringify({ key: 'sandbox', name: 'Sandbox merchant', enabled: true, createdAt: at, updatedAt: at })}\n],\n"payments": [\n`
  // One payment's JSON with its trackId swapped per line: distinct records, cheap to make.
  const template = paymentJson(0)
  const count = await writeLines(
    file,
    head,
    (i) => `${i === 0 ? '' : ',\n'}${template.replace('T000000000000000000000', `T${String(i).padStart(21, '0')}`)}`,
    '\n],\n"deliveries": [\n]\n}\n',
    BEYOND_ONE_STRING,
  )
  expect((await stat(file)).size).toBeGreaterThan(BEYOND_ONE_STRING)
  const { store, report } = await openFileStore({ file })
  expect(report.created).toBe(false)
  expect(store.counts()).toEqual({ merchants: 1, payments: count, deliveries: 0 })
  expect(store.getPayment(`T${String(count - 1).padStart(21, '0')}`)?.description).toBe(description)
  // Let go of the journal and the lock without writing the file again.
  await store.release()
}, 180_000)

test('a journal larger than one string can hold is replayed', async () => {
  const dir = await tempDir()
  const file = join(dir, 'data.json')
  const { store: created } = await openFileStore({ file })
  await created.close()
  const payments = Array.from({ length: 1000 }, (_, i) => paymentJson(i))
  const id = (JSON.parse(await readFile(file, 'utf8')) as { store: string }).store
  const records = await writeLines(
    `${file}.journal`,
    `${JSON.stringify({ journal: 'pay-sandbox/1', store: id, after: 0 })}\n`,
    (i) => `{"s":${i + 1},"k":"payment","v":${payments[i % 1000]}}\n`,
    '',
    BEYOND_ONE_STRING,
  )
  const { store, report } = await openFileStore({ file })
  expect(report.replayed).toBe(records)
  expect(store.counts().payments).toBe(Math.min(records, 1000))
  await store.close()
}, 180_000)
