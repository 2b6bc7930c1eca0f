import { createServer } from 'node:http'
import { expect, test } from 'vitest'
import { exportAjv, exportFileSchema } from '../../src/domain/export-schema.js'
import { exportMadeThroughApi } from '../export-files.js'
import { sandbox } from '../helpers.js'

test('an imported pending delivery is recorded as failed and never sent by itself', async () => {
  let hits = 0
  const receiver = createServer((_req, res) => {
    hits++
    res.writeHead(503).end()
  })
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r))
  const port = (receiver.address() as { port: number }).port
  try {
    // A delivery left pending: the receiver refuses, and the next retry is far away.
    const source = await sandbox({ callbacks: { retries: 3, timeoutMs: 500, scheduleMs: [60_000] } })
    const created = await source.client.createPayment({ merchant: 'sandbox', amount: 3, callbackUrl: `http://127.0.0.1:${port}/cb` })
    if (created.result !== 100) throw new Error(JSON.stringify(created))
    await source.client.simulate(created.trackId, { outcome: 'paid' })
    await expect.poll(async () => (await source.client.getPayment(created.trackId)).deliveries[0]?.attempts.length).toBe(1)
    const exported = await source.client.exportState()
    expect(exported.deliveries[0]).toMatchObject({ state: 'pending', nextAttemptAt: expect.any(String) })

    const target = await sandbox({ callbacks: { retries: 3, timeoutMs: 500, scheduleMs: [10] } })
    const result = await target.client.importState(exported)
    expect(result.loaded).toEqual({ merchants: 1, payments: 1, deliveries: 1 })
    const [delivery] = (await target.client.getPayment(created.trackId)).deliveries
    expect(delivery).toMatchObject({ state: 'failed' })
    expect(delivery).not.toHaveProperty('nextAttemptAt')
    const before = hits
    await new Promise((r) => setTimeout(r, 300))
    expect(hits).toBe(before)
  } finally {
    receiver.close()
  }
})

test('a state made through the API passes the whole export schema and imports back as it was', async () => {
  const made = await exportMadeThroughApi()
  const ajv = exportAjv()
  expect(ajv.validateSchema(exportFileSchema), JSON.stringify(ajv.errors)).toBe(true)
  const whole = ajv.getSchema(exportFileSchema.$id)!
  expect(whole(made), JSON.stringify(whole.errors)).toBe(true)

  const sb = await sandbox()
  expect((await sb.client.importState(made)).loaded).toEqual({ merchants: 2, payments: 2, deliveries: 3 })
  const again = await sb.client.exportState()
  expect({ ...again, exportedAt: '' }).toEqual({ ...made, exportedAt: '' })
})

test('expired payments, confirmations and callback faults export and import back; the import keeps the clock and clears the verify journals', async () => {
  const source = await sandbox({ paymentTtlMs: 60_000 })
  const ids: string[] = []
  for (let i = 0; i < 4; i++) {
    const created = await source.client.createPayment({ merchant: 'sandbox', amount: 3, callbackUrl: 'https://shop.example/cb' })
    if (created.result !== 100) throw new Error(JSON.stringify(created))
    ids.push(created.trackId)
  }
  const [expiring, confirming, dropped, duplicated] = ids as [string, string, string, string]
  await source.client.simulate(confirming, { outcome: 'unfinalized', asset: 'ETH' })
  await source.client.mine()
  await source.client.simulate(dropped, { outcome: 'paid', callback: 'drop' })
  await source.client.simulate(duplicated, { outcome: 'paid', callback: 'duplicate=3' })
  await source.client.advanceClock(60_000)
  await source.client.verifyPayment({ merchant: 'sandbox', trackId: expiring })
  await expect.poll(async () => (await source.client.getPayment(expiring)).verifies.count).toBe(1)
  const exported = await source.client.exportState()
  expect(exported.payments.find((p) => p.trackId === expiring)?.status).toBe('expired')

  const target = await sandbox()
  await target.client.advanceClock(3_600_000)
  await target.client.importState(exported)
  const { payment, deliveries } = await target.client.getPayment(confirming)
  expect(payment).toMatchObject({ status: 'unfinalized', confirmations: 1, confirmationsRequired: 3 })
  expect(deliveries[0]!.state).toBe('failed')
  expect((await target.client.getPayment(dropped)).deliveries[0]).toMatchObject({ state: 'dropped', fault: { mode: 'drop' } })
  expect((await target.client.getPayment(duplicated)).deliveries[0]!.fault).toMatchObject({ mode: 'duplicate', copies: 3 })
  expect((await target.client.clock()).aheadMs).toBeGreaterThanOrEqual(3_600_000)
  expect((await target.client.getPayment(expiring)).verifies.count).toBe(0)
})
