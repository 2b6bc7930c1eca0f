import { createServer, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { expect, onTestFinished, test } from 'vitest'
import { EXCERPT_BYTES, sendCallback } from '../../src/callbacks/send.js'

/** A receiver whose answer is written by `handle`; closed when the test finishes. */
async function server(handle: (res: ServerResponse) => void): Promise<string> {
  const s = createServer((req, res) => {
    req.resume()
    req.on('end', () => handle(res))
  })
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r))
  onTestFinished(
    () =>
      new Promise<void>((r) => {
        s.closeAllConnections()
        s.close(() => r())
      }),
  )
  return `http://127.0.0.1:${(s.address() as AddressInfo).port}/cb`
}

const request = { body: '{"a":1}', headers: { 'Content-Type': 'application/json' }, timeoutMs: 2000 }

test('an endless response body is cut at the excerpt limit, not buffered', async () => {
  let written = 0
  const url = await server((res) => {
    res.writeHead(200, { 'content-type': 'text/plain' })
    const chunk = Buffer.alloc(64 * 1024, 'x')
    // Writes until the client goes away.
    const pump = () => {
      while (!res.destroyed && res.write(chunk)) written += chunk.length
      if (!res.destroyed) res.once('drain', pump)
    }
    pump()
  })
  const result = await sendCallback({ url, ...request })
  expect(result.ok).toBe(true)
  expect(result.status).toBe(200)
  expect(Buffer.byteLength(result.responseExcerpt!)).toBe(EXCERPT_BYTES)
  expect(result.truncated).toBe(true)
  expect(result.durationMs).toBeLessThan(1000)
  expect(written).toBeLessThan(64 * 1024 * 1024)
})

test('a 2xx whose body never ends counts as delivered when the timeout hits', async () => {
  const url = await server((res) => {
    res.writeHead(200)
    res.write('partial')
  })
  const result = await sendCallback({ url, ...request, timeoutMs: 150 })
  expect(result).toMatchObject({ ok: true, status: 200, responseExcerpt: 'partial', truncated: true })
  expect(result.durationMs).toBeGreaterThanOrEqual(140)
})

test('a redirect is not followed and is not a success', async () => {
  const url = await server((res) => {
    res.writeHead(302, { location: 'http://127.0.0.1:1/elsewhere' })
    res.end('moved')
  })
  const result = await sendCallback({ url, ...request })
  expect(result).toMatchObject({ ok: false, status: 302, error: 'HTTP 302', responseExcerpt: 'moved' })
})

test('an abort ends the attempt at once and marks it aborted', async () => {
  const url = await server(() => {})
  const controller = new AbortController()
  setTimeout(() => controller.abort(), 50)
  const result = await sendCallback({ url, ...request, timeoutMs: 10_000, signal: controller.signal })
  expect(result).toMatchObject({ ok: false, aborted: true })
  expect(result.durationMs).toBeLessThan(1000)
})

test.each([
  ['not-a-url', /invalid URL/],
  ['ftp://127.0.0.1/x', /unsupported URL scheme ftp:/],
])('refuses %s without sending', async (url, error) => {
  const result = await sendCallback({ url, ...request })
  expect(result.ok).toBe(false)
  expect(result.error).toMatch(error)
})

test.each([
  ['a line break in a header value', { 'X-Pay-Sandbox-Event': 'a\r\nb' }, /^invalid header value in X-Pay-Sandbox-Event \(U\+000D is not allowed in a header\)$/],
  ['a character above U+00FF in a header value', { 'X-Pay-Sandbox-Event': 'é✓' }, /^invalid header value in X-Pay-Sandbox-Event \(U\+2713 is not allowed in a header\)$/],
  ['a space in a header name', { 'Bad Name': 'x' }, /^invalid header name "Bad Name"$/],
  ['a header value that is not text', { 'X-Count': 3 }, /^invalid header value in X-Count \(not text\)$/],
  ['headers that are not an object', 'X-Pay: 1', /^invalid headers \(not an object of names and values\)$/],
  ['a framing header stored with the delivery', { 'transfer-encoding': 'chunked' }, /^header transfer-encoding is not allowed on a callback/],
])('%s: the attempt fails with a clear error, nothing is sent, nothing throws later', async (_name, headers, error) => {
  let hits = 0
  const url = await server((res) => {
    hits++
    res.end('ok')
  })
  const result = await sendCallback({ url, ...request, timeoutMs: 100, headers: headers as unknown as Record<string, string> })
  expect(result).toEqual({ ok: false, durationMs: 0, error: expect.stringMatching(error) })
  // Past the timeout: no timer left behind to throw.
  await new Promise((r) => setTimeout(r, 200))
  expect(hits).toBe(0)
})

test('a body that is not text fails the attempt instead of throwing', async () => {
  const url = await server((res) => res.end('ok'))
  const result = await sendCallback({ url, ...request, body: undefined as unknown as string })
  expect(result).toEqual({ ok: false, durationMs: 0, error: 'invalid body (not text)' })
})
