// The example of docs/test-suite.md: a merchant's own test suite using the sandbox through the package name.
import { createServer, type IncomingMessage } from 'node:http'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { type Sandbox, startSandbox } from 'pay-sandbox'

let sandbox: Sandbox

beforeAll(async () => {
  sandbox = await startSandbox() // a free port and a temporary data file
})

afterAll(async () => {
  await sandbox.stop()
})

test('a paid order verifies with result 100 and the order amount', async () => {
  const created = await sandbox.client.createPayment({ merchant: 'sandbox', amount: 25.5, callbackUrl: 'http://127.0.0.1:9/callback' })
  if (created.result !== 100) throw new Error(created.message)

  await sandbox.client.simulate(created.trackId, { outcome: 'paid' })

  const verified = await sandbox.client.verifyPayment({ merchant: 'sandbox', trackId: created.trackId })
  expect(verified).toMatchObject({ result: 100, amount: 25.5, refNumber: expect.any(String) })
})

test('the merchant server receives the callback', async () => {
  const received: unknown[] = []
  const server = createServer((req: IncomingMessage, res) => {
    let body = ''
    req.on('data', (c: Buffer) => (body += c.toString()))
    req.on('end', () => {
      received.push(JSON.parse(body))
      res.end('ok')
    })
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  const { port } = server.address() as { port: number }
  try {
    const created = await sandbox.client.createPayment({ merchant: 'sandbox', amount: 10, callbackUrl: `http://127.0.0.1:${port}/cb` })
    if (created.result !== 100) throw new Error(created.message)
    await sandbox.client.simulate(created.trackId, { outcome: 'paid' })
    await expect.poll(() => received.length).toBeGreaterThan(0)
    expect(received[0]).toMatchObject({ trackId: created.trackId })
  } finally {
    await new Promise<void>((r) => server.close(() => r()))
  }
})

test('each suite gets its own sandbox: a second one has its own URL and data', async () => {
  const other = await startSandbox()
  try {
    expect(other.url).not.toBe(sandbox.url)
    expect(other.dataFile).not.toBe(sandbox.dataFile)
    expect(await other.client.listPayments()).toEqual([])
  } finally {
    await other.stop()
  }
})
