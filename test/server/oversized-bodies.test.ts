import { execFile } from 'node:child_process'
import { Agent, request as httpRequest } from 'node:http'
import { promisify } from 'node:util'
import { connect } from 'node:net'
import { describe, expect, onTestFinished, test } from 'vitest'
import type { Sandbox } from '../../src/index.js'
import { routesOf } from '../../src/openapi/install.js'
import { DISCARD_MAX_BYTES } from '../../src/http/bounded-body.js'
import { sandbox } from '../helpers.js'

const run = promisify(execFile)
const MB = 1024 * 1024
const TOKEN = `424242:${'S'.repeat(35)}`
const bigCreate = (bytes: number) => JSON.stringify({ merchant: 'sandbox', amount: 1, callbackUrl: 'http://127.0.0.1:9/cb', description: 'x'.repeat(bytes) })
const tooLargeBody = { result: 413, statusCode: 413, error: 'payload_too_large', message: 'request body is larger than 1 MB' }

interface Exchange {
  /** Everything the server sent. */
  text: string
  /** How the connection ended: `end` (the server closed it after answering) or the socket's error code. */
  ended: string
}

/**
 * A request written on a raw socket as a client that does not read early answers writes it (Node's http, undici):
 * the head and the start of the body, then the rest once the server has either answered already or not within a
 * moment; each write must succeed. Before the body is whole, a server that answers and closes makes it fail.
 */
function sendWhole(sb: Sandbox, head: string, first: Buffer, rest: Buffer): Promise<Exchange> {
  const url = new URL(sb.url)
  return new Promise((resolve) => {
    let text = ''
    let answered: () => void = () => {}
    const firstAnswer = new Promise<void>((r) => (answered = r))
    const socket = connect(Number(url.port), url.hostname, async () => {
      socket.write(head)
      socket.write(first)
      await Promise.race([firstAnswer, new Promise((r) => setTimeout(r, 300))])
      if (!socket.destroyed) socket.write(rest)
    })
    socket.on('data', (chunk: Buffer) => {
      text += chunk.toString('latin1')
      answered()
    })
    socket.on('end', () => resolve({ text, ended: 'end' }))
    socket.on('error', (error: NodeJS.ErrnoException) => resolve({ text, ended: error.code ?? error.message }))
  })
}

function jsonOf(answer: string): unknown {
  return JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4))
}

/** Parses an HTTP answer whose body is not chunked. */
function parse(answer: string): { status: number; headers: Record<string, string>; json: unknown } {
  const [head] = answer.split('\r\n\r\n')
  const [statusLine, ...lines] = head!.split('\r\n')
  const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]))
  return { status: Number(statusLine!.split(' ')[1]), headers, json: jsonOf(answer) }
}

describe('a body over the limit: read and dropped, then the 413 and the connection closed', () => {
  test('Node fetch of a 5 MB create reads the 413 JSON with an integer result, every time; the next request works', async () => {
    const sb = await sandbox()
    // Another process, as a merchant's server is: sharing this one's event loop, the client would write its whole
    // body before the server read a byte.
    const script = `
      const url = process.argv[1]
      const body = JSON.stringify({ merchant: 'sandbox', amount: 1, callbackUrl: 'http://127.0.0.1:9/cb', description: 'x'.repeat(5 * 1024 * 1024) })
      const out = []
      const post = async (init) => {
        try {
          const res = await fetch(url + '/api/v1/request', { method: 'POST', headers: { 'content-type': 'application/json' }, ...init })
          out.push({ status: res.status, connection: res.headers.get('connection'), body: await res.json() })
        } catch (error) {
          out.push({ error: error.cause?.code ?? String(error) })
        }
      }
      for (let i = 0; i < 5; i++) await post({ body })
      // Chunked, without Content-Length.
      await post({ body: new Blob([body]).stream(), duplex: 'half' })
      await post({ body: JSON.stringify({ merchant: 'sandbox', amount: 1, callbackUrl: 'http://127.0.0.1:9/cb' }) })
      console.log(JSON.stringify(out))
    `
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script, sb.url])
    const answers = JSON.parse(stdout) as unknown[]
    const refused = { status: 413, connection: 'close', body: tooLargeBody }
    expect(answers.slice(0, 6)).toEqual(Array.from({ length: 6 }, () => refused))
    expect(answers[6]).toMatchObject({ status: 200, body: { result: 100 } })
  })

  test('a raw client that writes its whole body first: every write lands, the 413 arrives, then the server closes', async () => {
    const sb = await sandbox()
    const body = Buffer.from(bigCreate(5 * MB))
    const host = new URL(sb.url).host
    const sized = await sendWhole(
      sb,
      `POST /api/v1/request HTTP/1.1\r\nHost: ${host}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`,
      body.subarray(0, 2 * MB),
      body.subarray(2 * MB),
    )
    expect(sized.ended).toBe('end')
    expect(parse(sized.text)).toMatchObject({ status: 413, headers: { connection: 'close' }, json: tooLargeBody })

    // Chunked: the server cannot know the size before it has read past the limit.
    const chunk = (b: Buffer) => Buffer.concat([Buffer.from(`${b.length.toString(16)}\r\n`), b, Buffer.from('\r\n')])
    const chunked = await sendWhole(
      sb,
      `POST /api/v1/request HTTP/1.1\r\nHost: ${host}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`,
      chunk(body.subarray(0, 2 * MB)),
      Buffer.concat([chunk(body.subarray(2 * MB)), Buffer.from('0\r\n\r\n')]),
    )
    expect(chunked.ended).toBe('end')
    expect(parse(chunked.text)).toMatchObject({ status: 413, headers: { connection: 'close' }, json: tooLargeBody })
    expect((await sb.client.health()).ok).toBe(true)
  })

  test('a keep-alive agent gets the 413 and its next request goes on a new connection', async () => {
    const sb = await sandbox()
    const agent = new Agent({ keepAlive: true, maxSockets: 1 })
    onTestFinished(() => agent.destroy())
    const send = (body: string) =>
      new Promise<{ status: number; connection: string | undefined; text: string }>((resolve, reject) => {
        const req = httpRequest(`${sb.url}/api/v1/request`, { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (res) => {
          let text = ''
          res.on('data', (c: Buffer) => (text += c.toString()))
          res.on('end', () => resolve({ status: res.statusCode!, connection: res.headers.connection, text }))
        })
        req.on('error', reject)
        req.end(body)
      })
    for (let i = 0; i < 3; i++) {
      const refused = await send(bigCreate(5 * MB))
      expect(refused).toMatchObject({ status: 413, connection: 'close' })
      expect(JSON.parse(refused.text)).toEqual(tooLargeBody)
      const created = await send(bigCreate(10))
      expect(JSON.parse(created.text)).toMatchObject({ result: 100 })
    }
  })

  test(`a body declared over ${DISCARD_MAX_BYTES / MB} MB is answered at once, and the connection closed`, async () => {
    const sb = await sandbox()
    const url = new URL(sb.url)
    const answer = await new Promise<Exchange>((resolve) => {
      let text = ''
      const socket = connect(Number(url.port), url.hostname, () =>
        socket.write(`POST /_sandbox/merchants HTTP/1.1\r\nHost: ${url.host}\r\nContent-Type: application/json\r\nContent-Length: ${DISCARD_MAX_BYTES + 1}\r\n\r\n{`),
      )
      socket.on('data', (c: Buffer) => (text += c.toString()))
      socket.on('end', () => resolve({ text, ended: 'end' }))
      socket.on('error', (error: NodeJS.ErrnoException) => resolve({ text, ended: error.code ?? '' }))
    })
    expect(parse(answer.text)).toMatchObject({
      status: 413,
      headers: { connection: 'close' },
      json: { statusCode: 413, error: 'payload_too_large', message: 'request body is larger than 1 MB' },
    })
    expect((await sb.client.health()).ok).toBe(true)
  })

  test('every route that takes a body answers a 3 MB one with a 413 the client reads: control API, Bot API (JSON, form, upload)', async () => {
    const sb = await sandbox()
    const host = new URL(sb.url).host
    const telegram = `/telegram/bot${TOKEN}`
    const posts = routesOf(sb.server.app)
      .filter((route) => [route.method].flat().includes('POST'))
      // The import takes files up to 256 MB (its own limit, tested with the import).
      .filter((route) => route.url !== '/_sandbox/import')
      .map((route) => route.url.replace(/:[A-Za-z]+/g, 'x').replace('/telegram/*', `${telegram}/sendMessage`).replace(/\*/g, 'x'))
    expect(posts.length).toBeGreaterThan(15)
    const sends = [
      ...posts.map((path) => ({ path, type: 'application/json', body: Buffer.from(JSON.stringify({ x: 'x'.repeat(3 * MB) })) })),
      { path: `${telegram}/sendMessage`, type: 'application/x-www-form-urlencoded', body: Buffer.from(`chat_id=1&text=${'x'.repeat(3 * MB)}`) },
    ]
    const answers = await Promise.all(
      sends.map(async ({ path, type, body }) => {
        const head = `POST ${path} HTTP/1.1\r\nHost: ${host}\r\nContent-Type: ${type}\r\nContent-Length: ${body.length}\r\n\r\n`
        const answer = await sendWhole(sb, head, body.subarray(0, 2 * MB), body.subarray(2 * MB))
        return `${path} ${answer.ended} ${answer.text.slice(0, 12)} ${answer.text.includes('413')}`
      }),
    )
    expect(answers.filter((line) => !line.endsWith(' end HTTP/1.1 413 true'))).toEqual([])

    // Uploads have their own limit, 10 MB a file.
    const upload = new FormData()
    upload.set('chat_id', '1')
    upload.set('photo', new Blob([new Uint8Array(12 * MB)], { type: 'image/png' }), 'big.png')
    const photo = await fetch(`${sb.url}${telegram}/sendPhoto`, { method: 'POST', body: upload })
    expect({ status: photo.status, body: await photo.json() }).toEqual({ status: 413, body: { ok: false, error_code: 413, description: 'Request Entity Too Large' } })
    expect((await (await fetch(`${sb.url}${telegram}/getMe`)).json()).ok).toBe(true)
  })
})

describe('an upload cut short by its client', () => {
  /** Sends the head and part of the body, then drops the connection. */
  function abortAfter(sb: Sandbox, head: string, part: Buffer | string): Promise<void> {
    const url = new URL(sb.url)
    return new Promise((resolve) => {
      const socket = connect(Number(url.port), url.hostname, () => {
        socket.write(head.replace('{host}', url.host))
        socket.write(part, () => setTimeout(() => socket.destroy(), 50))
      })
      socket.on('close', () => resolve())
      socket.on('error', () => {})
    })
  }

  test('is no internal error: the console gets no stack, and the sandbox keeps serving', async () => {
    const errors: unknown[] = []
    const lines: string[] = []
    const sb = await sandbox({ logError: (error) => errors.push(error), log: (line) => lines.push(line) })
    const boundary = 'cut-short'
    const photoHead = `--${boundary}\r\nContent-Disposition: form-data; name="chat_id"\r\n\r\n1\r\n--${boundary}\r\nContent-Disposition: form-data; name="photo"; filename="a.png"\r\nContent-Type: image/png\r\n\r\n`
    const cases: Array<[string, string | Buffer]> = [
      ['POST /api/v1/request HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\nContent-Length: 900000\r\n\r\n', `{"merchant":"${'x'.repeat(400_000)}`],
      ['POST /_sandbox/merchants HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n', `1000\r\n${'x'.repeat(4096)}\r\n`],
      ['POST /_sandbox/import HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\nContent-Length: 900000\r\n\r\n', '{"format":"pay-sandbox-export","version":1,"merchants":['],
      ['POST /_sandbox/import HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n', '10\r\n{"format":"pay-s\r\n'],
      [`POST /telegram/bot${TOKEN}/sendPhoto HTTP/1.1\r\nHost: {host}\r\nContent-Type: multipart/form-data; boundary=${boundary}\r\nContent-Length: 3000000\r\n\r\n`, photoHead + 'x'.repeat(500_000)],
      [`POST /telegram/bot${TOKEN}/sendMessage HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 300000\r\n\r\n`, `chat_id=1&text=${'x'.repeat(100_000)}`],
    ]
    for (const [head, part] of cases) await abortAfter(sb, head, part)
    expect((await sb.client.health()).ok).toBe(true)
    expect(errors.map((e) => String(e))).toEqual([])
    // Nobody was answered, so the request log has nothing to say either.
    expect(lines).toEqual([])
  })
})
