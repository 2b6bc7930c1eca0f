import { readFileSync } from 'node:fs'
import { readFile, writeFile } from 'node:fs/promises'
import { request } from 'node:http'
import { join } from 'node:path'
import { expect, test } from 'vitest'
import { exportParts, exportText, withoutExportedAt } from '../export-files.js'
import { pay, tempDir } from '../helpers.js'
import { type SandboxProcess, startRunning } from './proc.js'

/**
 * How long a health request may wait while an import is being read. Today's import reads ~115 MB in a few
 * seconds of CPU, but never more than one socket chunk (64 KB, a few ms) per turn of the event loop; what is
 * left is garbage collection and, on the first import, compiling the schema (~100 ms). Reading the same file in
 * one JSON.parse held the loop for seconds: most of the time the import took.
 *
 * On a loaded machine everything, the import and the waits between two turns of the sandbox's loop alike, takes
 * longer, so the bound grows with the import: the longest wait is under a quarter of the whole import's time (a
 * loop held for most of it fails on any machine), and never need be under HEALTH_BOUND_MS.
 */
const HEALTH_BOUND_MS = 1000

function healthBound(elapsedMs: number): number {
  return Math.max(HEALTH_BOUND_MS, elapsedMs / 4)
}

function get(url: string, path: string): Promise<{ status: number; text: string; ms: number }> {
  const started = performance.now()
  return new Promise((resolve, reject) => {
    const req = request(new URL(path, url), { agent: false }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (c: Buffer) => chunks.push(c))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8'), ms: performance.now() - started }))
    })
    req.on('error', reject)
    req.end()
  })
}

/** POSTs an import body given as pieces, honouring back-pressure, with its Content-Length. */
function postImport(url: string, pieces: Iterable<Buffer>, length: number): Promise<{ status: number; json: { error?: string; message?: string } }> {
  return new Promise((resolve, reject) => {
    const req = request(
      new URL('/_sandbox/import', url),
      { method: 'POST', agent: false, headers: { 'content-type': 'application/json', 'content-length': String(length) } },
      (res) => {
        const chunks: Buffer[] = []
        res.on('data', (c: Buffer) => chunks.push(c))
        res.on('end', () => resolve({ status: res.statusCode ?? 0, json: JSON.parse(Buffer.concat(chunks).toString('utf8')) }))
      },
    )
    req.on('error', reject)
    const it = pieces[Symbol.iterator]()
    const pump = () => {
      for (let next = it.next(); !next.done; next = it.next()) if (!req.write(next.value)) return void req.once('drain', pump)
      req.end()
    }
    pump()
  })
}

/** Health requests one after another until stopped; the slowest answer, and how long it watched. */
function watchHealth(url: string): { stop: () => Promise<{ maxMs: number; count: number; elapsedMs: number }> } {
  const started = performance.now()
  let running = true
  let maxMs = 0
  let count = 0
  const loop = (async () => {
    while (running) {
      const res = await get(url, '/_sandbox/health')
      expect(res.status).toBe(200)
      maxMs = Math.max(maxMs, res.ms)
      count++
      await new Promise((r) => setTimeout(r, 10))
    }
  })()
  return {
    stop: async () => {
      running = false
      await loop
      return { maxMs, count, elapsedMs: performance.now() - started }
    },
  }
}

function rssMb(pid: number): number {
  return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024
}

async function started(): Promise<{ sb: SandboxProcess; dataFile: string; state: () => Promise<string> }> {
  const dataFile = join(await tempDir(), 'data.json')
  const sb = await startRunning(['--data', dataFile])
  const state = async () =>
    `${withoutExportedAt((await get(sb.url, '/_sandbox/export')).text)}|${await readFile(dataFile, 'utf8')}|${await readFile(`${dataFile}.journal`, 'utf8')}`
  return { sb, dataFile, state }
}

test('a 250 MB bogus import is refused at its first record: the event loop stays free and memory stays low', async () => {
  const { sb, state } = await started()
  const before = await state()
  const head = Buffer.from('{"format":"pay-sandbox-export","version":1,"merchants":[],"payments":[')
  const unit = Buffer.from('{"trackId":"x","amount":[1,2,3,4,5,6,7,8,9]},'.repeat(20_000))
  const tail = Buffer.from('{}],"deliveries":[]}')
  const units = Math.ceil((250 * 1024 * 1024) / unit.length)
  const pieces = function* () {
    yield head
    for (let i = 0; i < units; i++) yield unit
    yield tail
  }
  const health = watchHealth(sb.url)
  const answer = await postImport(sb.url, pieces(), head.length + units * unit.length + tail.length)
  const { maxMs, count, elapsedMs } = await health.stop()
  expect(count).toBeGreaterThan(5)
  expect(maxMs).toBeLessThan(healthBound(elapsedMs))
  // Nothing of the body was kept: an idle sandbox is under 150 MB.
  expect(rssMb(sb.pid)).toBeLessThan(400)
  expect(answer.status).toBe(400)
  expect(answer.json.message).toMatch(/^not a valid export file: payments\[0\]\.merchant is missing; .*payments\[0\]\.trackId must be a trackId/)
  expect(await state()).toBe(before)
}, 120_000)

test('a huge import refused at its last record never holds the event loop', async () => {
  const { sb, state } = await started()
  const before = await state()
  const parts = exportParts({ payments: 150_000, deliveryEvery: 4 })
  parts.deliveries.push(parts.deliveries[0]!.replace(/"id":"dlv_[^"]+"/, '"id":"dlv_../../etc"'))
  const body = Buffer.from(exportText(parts))
  const pieces = function* () {
    for (let i = 0; i < body.length; i += 1024 * 1024) yield body.subarray(i, i + 1024 * 1024)
  }
  const health = watchHealth(sb.url)
  const answer = await postImport(sb.url, pieces(), body.length)
  const { maxMs, elapsedMs } = await health.stop()
  expect(maxMs).toBeLessThan(healthBound(elapsedMs))
  expect(answer.status).toBe(400)
  expect(answer.json.message).toBe('not a valid export file: deliveries[37500].id must be a delivery id: dlv_ and 12 letters, digits, - or _ (got "dlv_../../etc")')
  expect(await state()).toBe(before)
}, 120_000)

test('an export of 150,000 payments imports back into a fresh sandbox, and one payment more is refused', async () => {
  const dir = await tempDir()
  const parts = exportParts({ payments: 150_000, deliveryEvery: 4 })
  const text = exportText(parts)
  const a = await started()
  const loaded = await postImport(a.sb.url, [Buffer.from(text)], Buffer.byteLength(text))
  expect(loaded).toMatchObject({ status: 200, json: { loaded: { merchants: 1, payments: 150_000, deliveries: 37_500 } } })
  // The export is sent as it is written: the server keeps answering meanwhile.
  const watching = watchHealth(a.sb.url)
  const exportedA = (await get(a.sb.url, '/_sandbox/export')).text
  const { maxMs, elapsedMs } = await watching.stop()
  expect(maxMs).toBeLessThan(healthBound(elapsedMs))
  // The sandbox keeps every record as it was given: its export holds the file's records, byte for byte.
  const records = (json: string) => {
    const { merchants, payments, deliveries } = JSON.parse(json) as Record<string, unknown[]>
    return [merchants, payments, deliveries].map((list) => list!.map((r) => JSON.stringify(r)).join('\n')).join('\n\n')
  }
  expect(records(exportedA)).toBe(records(text))

  // Through the CLI, as a user would: export to a file, import the file into a fresh sandbox.
  const file = join(dir, 'state.json')
  expect((await pay(['sandbox', 'export', file, '--url', a.sb.url], { timeoutMs: 120_000 })).code).toBe(0)
  const b = await started()
  const imported = await pay(['sandbox', 'import', file, '--url', b.sb.url, '--yes', '--json'], { timeoutMs: 120_000 })
  expect(imported.stderr).toBe('')
  expect(JSON.parse(imported.stdout)).toMatchObject({ loaded: { merchants: 1, payments: 150_000, deliveries: 37_500 } })
  const exportedB = (await get(b.sb.url, '/_sandbox/export')).text
  expect(withoutExportedAt(exportedB)).toBe(withoutExportedAt(exportedA))

  // The limit: one payment more is refused whole, naming the list, and B keeps what it had.
  parts.payments.push(parts.payments[0]!.replace(/"trackId":"[^"]+"/, '"trackId":"zzzzzzzzzzzzzzzzzzzzzz"').replace(/"refNumber":"\d+"/, '"refNumber":"999999999999"'))
  const over = exportText(parts)
  const before = await b.state()
  const refused = await postImport(b.sb.url, [Buffer.from(over)], Buffer.byteLength(over))
  expect(refused).toEqual({
    status: 413,
    json: { statusCode: 413, error: 'payload_too_large', message: 'not a valid export file: payments holds more than 150000 records, the most an import takes' },
  })
  expect(await b.state()).toBe(before)
  await writeFile(join(dir, 'over.json'), over)
  const cli = await pay(['sandbox', 'import', join(dir, 'over.json'), '--url', b.sb.url, '--yes'], { timeoutMs: 120_000 })
  expect(cli.code).toBe(2)
  expect(cli.stderr).toContain('over.json is not a valid export file:\n  - payments holds more than 150000 records, the most an import takes')
}, 300_000)
