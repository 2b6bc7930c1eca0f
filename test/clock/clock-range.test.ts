import { readFile } from 'node:fs/promises'
import { createServer } from 'node:http'
import { join } from 'node:path'
import { expect, onTestFinished, test } from 'vitest'
import { CLOCK_LATEST } from '../../src/domain/clock-range.js'
import { pay, sandbox, tempDir } from '../helpers.js'

const RANGE = `from the sandbox's own time (the clock never goes back) to ${CLOCK_LATEST}`

test('a time past what dates can print is 400 naming the range; nothing is saved and every route goes on answering', async () => {
  const sb = await sandbox()
  const res = await sb.client.raw({ method: 'POST', path: '/_sandbox/clock/set', body: { time: '+275760-09-13T00:00:00.000Z' } })
  expect(res.status, res.text).toBe(400)
  expect(res.json).toEqual({
    statusCode: 400,
    error: 'invalid_field',
    message: `the sandbox clock can be set ${RANGE} (got "+275760-09-13T00:00:00.000Z")`,
  })
  expect((await sb.client.raw({ method: 'GET', path: '/_sandbox/health' })).status).toBe(200)
  expect((await sb.client.raw({ method: 'GET', path: '/', headers: { accept: 'text/html' } })).status).toBe(200)
  const created = await sb.client.createPayment({ merchant: 'sandbox', amount: 5, callbackUrl: 'https://shop.example/cb' })
  if (created.result !== 100) throw new Error(JSON.stringify(created))
  expect(await sb.client.verifyPayment({ merchant: 'sandbox', trackId: created.trackId })).toEqual({ result: 202, amount: 5 })
  expect(await readFile(`${sb.dataFile}.journal`, 'utf8')).not.toContain('"k":"clock"')
  expect((await sb.client.raw({ method: 'POST', path: '/_sandbox/clock/reset', body: {} })).status).toBe(200)
})

test('pay clock set past the range and pay clock advance past its top are usage errors (exit 2) naming it', async () => {
  const sb = await sandbox()
  const set = await pay(['clock', 'set', '9999-12-31T23:59:59Z', '--url', sb.url])
  expect(set).toMatchObject({ code: 2, stdout: '' })
  expect(set.stderr).toBe(`Error: the sandbox clock can be set ${RANGE} (got "9999-12-31T23:59:59Z")\n`)
  expect((await sb.client.clock()).real).toBe(true)

  expect((await pay(['clock', 'set', CLOCK_LATEST, '--url', sb.url])).code).toBe(0)
  const advanced = await pay(['clock', 'advance', '1s', '--url', sb.url, '--json'])
  expect(advanced.code).toBe(2)
  expect(JSON.parse(advanced.stdout)).toEqual({
    error: { code: 'usage', exit: 2, message: `the sandbox clock goes no later than ${CLOCK_LATEST}: it is at ${CLOCK_LATEST}, and 1s more would pass that` },
  })
})

test('at the top of the range the time stands still, pages print, and an export made there imports back as it was', async () => {
  const receiver = createServer((req, res) => req.resume().on('end', () => res.end('ok')))
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r))
  onTestFinished(() => void receiver.close())
  const callbackUrl = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/cb`
  // Everything computed from the clock at its longest: a day's time to live, a day's retry wait.
  const source = await sandbox({ paymentTtlMs: 86_400_000, callbacks: { retries: 1, scheduleMs: [86_400_000] } })
  await source.client.setClock(CLOCK_LATEST)
  const paid = await source.client.createPayment({ merchant: 'sandbox', amount: 12.5, callbackUrl, description: 'at the end of time' })
  const pending = await source.client.createPayment({ merchant: 'sandbox', amount: 3, callbackUrl })
  if (paid.result !== 100 || pending.result !== 100) throw new Error(JSON.stringify([paid, pending]))
  await source.client.simulate(paid.trackId, { outcome: 'paid' })
  await expect.poll(async () => (await source.client.getPayment(paid.trackId)).deliveries[0]?.state).toBe('delivered')
  await new Promise((r) => setTimeout(r, 20))
  expect((await source.client.clock()).now).toBe(CLOCK_LATEST)
  const checkout = await source.client.raw({ method: 'GET', path: `/pay/${pending.trackId}`, headers: { accept: 'text/html' } })
  expect(checkout.status).toBe(200)
  expect(checkout.text).toContain('9999-01-02T00:00:00.000Z')

  const file = join(await tempDir(), 'export.json')
  expect((await pay(['sandbox', 'export', file, '--url', source.url])).code).toBe(0)
  const exported = JSON.parse(await readFile(file, 'utf8')) as { payments: Array<{ createdAt: string; updatedAt: string }> }
  for (const p of exported.payments) expect([p.createdAt, p.updatedAt]).toEqual([CLOCK_LATEST, CLOCK_LATEST])

  const target = await sandbox()
  const imported = await pay(['sandbox', 'import', file, '--yes', '--url', target.url])
  expect(imported.stderr).toBe('')
  expect(imported.code).toBe(0)
  const again = await target.client.exportState()
  expect({ ...again, exportedAt: '' }).toEqual({ ...(await source.client.exportState()), exportedAt: '' })
})
