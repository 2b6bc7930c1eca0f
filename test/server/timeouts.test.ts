import { createServer } from 'node:http'
import { connect } from 'node:net'
import { expect, onTestFinished, test } from 'vitest'
import type { Sandbox } from '../../src/index.js'
import { sandbox } from '../helpers.js'

/** Opens a connection, writes `bytes`, then nothing; resolves when the server closes it, with what it sent and when. */
function stall(sb: Sandbox, bytes: string, giveUpMs = 10_000): Promise<{ closedAfterMs: number; answer: string }> {
  const url = new URL(sb.url)
  return new Promise((resolve, reject) => {
    const started = Date.now()
    const socket = connect(Number(url.port), url.hostname, () => socket.write(bytes))
    let answer = ''
    const timer = setTimeout(() => {
      socket.destroy()
      reject(new Error(`still open after ${giveUpMs} ms`))
    }, giveUpMs)
    socket.on('data', (c: Buffer) => (answer += c.toString()))
    socket.on('close', () => {
      clearTimeout(timer)
      resolve({ closedAfterMs: Date.now() - started, answer })
    })
    socket.on('error', () => {})
  })
}

const HEADERS = ['POST /api/v1/request HTTP/1.1', 'Host: 127.0.0.1', 'Content-Type: application/json', 'Content-Length: 200', '', ''].join('\r\n')

test('a client that sends the headers and part of the body, then nothing, is answered 408 and closed at the request timeout', async () => {
  const sb = await sandbox({ timeouts: { headersMs: 300, requestMs: 600 } })
  const slow = await stall(sb, `${HEADERS}{"merchant":"sandbox",`)
  expect(slow.answer).toMatch(/^HTTP\/1\.1 408 /)
  expect(slow.closedAfterMs).toBeGreaterThanOrEqual(550)
  expect(slow.closedAfterMs).toBeLessThan(3000)
  // The server is fine and stored nothing.
  expect((await sb.client.health()).counts.payments).toBe(0)
})

test('a client that trickles the body stays bounded by the request timeout, not reset by each byte', async () => {
  const sb = await sandbox({ timeouts: { headersMs: 300, requestMs: 600 } })
  const url = new URL(sb.url)
  const socket = connect(Number(url.port), url.hostname, () => socket.write(HEADERS))
  socket.on('error', () => {})
  const drip = setInterval(() => socket.writable && socket.write(' '), 100)
  onTestFinished(() => {
    clearInterval(drip)
    socket.destroy()
  })
  const started = Date.now()
  const closedAfterMs = await new Promise<number>((resolve) => socket.on('close', () => resolve(Date.now() - started)))
  expect(closedAfterMs).toBeGreaterThanOrEqual(550)
  expect(closedAfterMs).toBeLessThan(3000)
})

test('a connection that never finishes its headers is closed at the headers timeout', async () => {
  const sb = await sandbox({ timeouts: { headersMs: 300, requestMs: 2000 } })
  const idle = await stall(sb, '')
  const partial = await stall(sb, 'GET /_sandbox/health HTTP/1.1\r\nHost: 127.0.0.1\r\n')
  for (const r of [idle, partial]) {
    expect(r.closedAfterMs).toBeLessThan(1800)
    expect(r.answer).toMatch(/^(HTTP\/1\.1 408 |$)/)
  }
})

test('the timeouts bound receiving the request, not answering it: a replay that waits on a slow receiver is answered', async () => {
  const receiver = createServer((req, res) => {
    req.resume()
    setTimeout(() => res.end('ok'), 1200)
  })
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r))
  onTestFinished(() => new Promise<void>((r) => receiver.close(() => r())))
  const callbackUrl = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/cb`
  const sb = await sandbox({ timeouts: { headersMs: 200, requestMs: 400 }, callbacks: { retries: 0, timeoutMs: 5000 } })
  const created = await sb.client.createPayment({ merchant: 'sandbox', amount: 3, callbackUrl })
  if (created.result !== 100) throw new Error(JSON.stringify(created))
  await sb.client.simulate(created.trackId, { outcome: 'paid' })
  const replayed = await sb.client.replayDelivery(created.trackId)
  expect(replayed.state).toBe('delivered')
})

test('by default headers get 10 s and the whole request 30 s', async () => {
  const sb = await sandbox()
  expect(sb.server.app.server.headersTimeout).toBe(10_000)
  expect(sb.server.app.server.requestTimeout).toBe(30_000)
  // A headers timeout above the request's is capped to it (Node would refuse to start).
  const capped = await sandbox({ timeouts: { headersMs: 60_000 } })
  expect(capped.server.app.server.headersTimeout).toBe(30_000)
})

test('a connection that never sends a request (a browser preconnects) does not hold a graceful stop', async () => {
  const { startSandbox } = await import('../../src/index.js')
  const sb = await startSandbox()
  onTestFinished(() => sb.stop())
  const url = new URL(sb.url)
  const silent = connect(Number(url.port), url.hostname)
  silent.on('error', () => {})
  onTestFinished(() => void silent.destroy())
  await new Promise((resolve) => silent.once('connect', resolve))
  const started = Date.now()
  const stopping = sb.server.stop()
  await Promise.race([stopping, new Promise((_, reject) => setTimeout(() => reject(new Error('the stop waited for the silent connection')), 5000))])
  expect(Date.now() - started).toBeLessThan(2000)
  await expect.poll(() => silent.destroyed || silent.readableEnded).toBe(true)
})
