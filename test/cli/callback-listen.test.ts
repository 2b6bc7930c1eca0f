import { type ChildProcess, spawn } from 'node:child_process'
import { connect } from 'node:net'
import { expect, onTestFinished, test } from 'vitest'
import type { Sandbox } from '../../src/index.js'
import { closedPortUrl, eventually, receiver } from '../callbacks/receiver.js'
import { BIN, exited, sandbox } from '../helpers.js'

interface Listener {
  child: ChildProcess
  url: string
  callbackUrl: string
  /** stdout lines so far. */
  lines: () => string[]
  stderr: () => string
}

/** `pay callback listen --port 0 …` as a process; resolves once it listens. Killed when the test finishes. */
async function listen(args: string[]): Promise<Listener> {
  const child = spawn(process.execPath, [BIN, 'callback', 'listen', '--port', '0', ...args], {
    env: { ...process.env, NO_COLOR: '1', CI: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  onTestFinished(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
  })
  let out = ''
  let err = ''
  child.stdout!.on('data', (c: Buffer) => (out += c.toString()))
  child.stderr!.on('data', (c: Buffer) => (err += c.toString()))
  const url = await eventually(() => /http:\/\/127\.0\.0\.1:\d+/.exec(out)?.[0], 10_000).catch(() => {
    throw new Error(`listener did not start:\n${out}\n${err}`)
  })
  return { child, url, callbackUrl: `${url}/callback`, lines: () => out.split('\n').filter(Boolean), stderr: () => err }
}

const requests = (l: Listener) =>
  l
    .lines()
    .map((text) => JSON.parse(text) as Record<string, unknown>)
    .filter((r) => r.kind === 'request')

async function paidPayment(sb: Sandbox, callbackUrl: string): Promise<string> {
  const created = await sb.client.createPayment({ merchant: 'sandbox', amount: 1.1400000000000001, callbackUrl })
  if (created.result !== 100) throw new Error(JSON.stringify(created))
  await sb.client.simulate(created.trackId, { outcome: 'paid' })
  return created.trackId
}

test('a real callback from a real sandbox arrives, is printed as one JSON line and answered 200', async () => {
  const sb = await sandbox()
  const l = await listen(['--json'])
  expect(JSON.parse(l.lines()[0]!)).toEqual({ kind: 'listening', url: l.url, callbackUrl: l.callbackUrl })
  const trackId = await paidPayment(sb, `${l.callbackUrl}?order=7`)

  const [got] = await eventually(() => (requests(l).length > 0 ? requests(l) : undefined))
  expect(got).toMatchObject({ method: 'POST', path: '/callback?order=7', answered: 200 })
  const headers = got!.headers as Record<string, string>
  expect(headers['x-pay-sandbox-event']).toBe('payment.status_changed')
  expect(got!.json).toMatchObject({ trackId, status: 'paid', amount: 1.1400000000000001 })
  expect((got!.json as { amount: number }).amount).toBe(1.1400000000000001)
  expect(JSON.parse(got!.body as string)).toEqual(got!.json)
  const [delivery] = await eventually(async () => {
    const d = await sb.client.listDeliveries({ trackId })
    return d[0]?.state === 'delivered' ? d : undefined
  })
  expect(delivery!.attempts.map((a) => a.status)).toEqual([200])
})

test('--status 500: the sandbox retries, as its delivery log shows', async () => {
  const sb = await sandbox({ callbacks: { retries: 2, scheduleMs: [50], timeoutMs: 2000 } })
  const l = await listen(['--json', '--status', '500'])
  const trackId = await paidPayment(sb, l.callbackUrl)
  const [delivery] = await eventually(async () => {
    const d = await sb.client.listDeliveries({ trackId })
    return d[0]?.state === 'failed' ? d : undefined
  })
  expect(delivery!.attempts.map((a) => a.status)).toEqual([500, 500, 500])
  await eventually(() => (requests(l).length === 3 ? true : undefined))
  expect(requests(l).map((r) => [r.answered, (r.headers as Record<string, string>)['x-pay-sandbox-attempt']])).toEqual([
    [500, '1'],
    [500, '2'],
    [500, '3'],
  ])
})

test('--forward-to relays method, headers and bytes to the merchant, prints its answer and gives the sandbox its status', async () => {
  const sb = await sandbox({ callbacks: { retries: 0 } })
  const merchant = await receiver(() => ({ status: 201, body: '{"handled":true}' }))
  const l = await listen(['--forward-to', merchant.url])
  const trackId = await paidPayment(sb, l.callbackUrl)

  const [relayed] = await merchant.waitFor(1)
  const [delivery] = await eventually(async () => {
    const d = await sb.client.listDeliveries({ trackId })
    return d[0]?.state === 'delivered' ? d : undefined
  })
  expect(relayed!.method).toBe('POST')
  // The same bytes the sandbox sent, and its headers but the connection's own.
  expect(relayed!.text).toBe(JSON.stringify(delivery!.body))
  for (const [name, value] of Object.entries(delivery!.headers)) expect(relayed!.headers[name.toLowerCase()]).toBe(value)
  expect(relayed!.headers['x-pay-sandbox-attempt']).toBe('1')
  expect(relayed!.headers.host).toBe(new URL(merchant.url).host)
  expect(relayed!.headers.connection).not.toBe('keep-alive')
  expect(delivery!.attempts.map((a) => [a.status, a.responseExcerpt])).toEqual([[201, '{"handled":true}']])
  await eventually(() => (/forwarded to/.test(l.lines().join('\n')) ? true : undefined))
  const printed = l.lines().join('\n')
  expect(printed).toMatch(new RegExp(`✔ forwarded to ${merchant.url}: HTTP 201 in [\\d.]+ ms  \\{"handled":true\\}`))
  expect(printed).toContain('answered 201')
})

test('forward target down: the sandbox gets 502 and the listener says why in one line', async () => {
  const sb = await sandbox({ callbacks: { retries: 0 } })
  const down = await closedPortUrl()
  const l = await listen(['--forward-to', down])
  const trackId = await paidPayment(sb, l.callbackUrl)
  const [delivery] = await eventually(async () => {
    const d = await sb.client.listDeliveries({ trackId })
    return d[0]?.state === 'failed' ? d : undefined
  })
  expect(delivery!.attempts.map((a) => a.status)).toEqual([502])
  await eventually(() => (/forward to/.test(l.lines().join('\n')) ? true : undefined))
  expect(l.lines().join('\n')).toContain(`✖ forward to ${down} failed: connection refused by ${new URL(down).host} (ECONNREFUSED): is the receiver running? (answered 502)`)
})

/** Sends raw bytes as one HTTP request and resolves with the answer's status line. */
function rawRequest(url: string, bytes: Buffer): Promise<string> {
  const { hostname, port } = new URL(url)
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.end(bytes))
    let answer = ''
    socket.on('data', (c: Buffer) => (answer += c.toString('latin1')))
    socket.on('end', () => resolve(answer.split('\r\n')[0]!))
    socket.on('error', reject)
  })
}

test('hostile headers and bodies are printed inert; --json lines parse and keep them exactly', async () => {
  const human = await listen([])
  const json = await listen(['--json'])
  const body = Buffer.from('{"note":"\\u001b]0;owned\\u0007 \\u001b[2J \\u202e"}\n\u001b[31mred\u009b2J', 'utf8')
  for (const l of [human, json]) {
    const request = Buffer.concat([
      Buffer.from(`POST /cb/%1b[2J HTTP/1.1\r\nHost: x\r\nX-Evil: a\x9b31mb\r\nContent-Type: application/json\r\nConnection: close\r\nContent-Length: ${body.length}\r\n\r\n`, 'latin1'),
      body,
    ])
    expect(await rawRequest(l.url, request)).toBe('HTTP/1.1 200 OK')
  }
  await eventually(() => (human.lines().some((x) => x.includes('X-Evil'.toLowerCase())) && /red/.test(human.lines().join('\n')) ? true : undefined))
  const shown = human.lines().join('\n')
  expect(shown).not.toMatch(/[\u001b\u009b\u202e\u0007]/)
  expect(shown).toContain('a\\x9b31mb')
  expect(shown).toContain('\\x1b[31mred\\x9b2J')

  const [record] = await eventually(() => (requests(json).length > 0 ? requests(json) : undefined))
  expect(json.lines().join('\n')).not.toMatch(/[\u001b\u009b\u202e\u0007]/)
  expect(record!.body).toBe(body.toString('utf8'))
  expect((record!.headers as Record<string, string>)['x-evil']).toBe('a\u009b31mb')
  expect(record!.path).toBe('/cb/%1b[2J')
})

test('a body over 1 MB is answered 413 and not kept; the sender reads the 413, however large its body', async () => {
  const l = await listen(['--json'])
  const res = await fetch(l.callbackUrl, { method: 'POST', body: 'x'.repeat(1024 * 1024 + 1) })
  expect(res.status).toBe(413)
  const [record] = await eventually(() => (requests(l).length > 0 ? requests(l) : undefined))
  expect(record).toMatchObject({ answered: 413, tooLarge: true, body: '' })
  // The rest of the body is read and dropped before the answer, so a client that sends it all first gets it.
  for (const body of ['x'.repeat(5 * 1024 * 1024), new Blob(['x'.repeat(5 * 1024 * 1024)]).stream()]) {
    const big = await fetch(l.callbackUrl, { method: 'POST', body, duplex: 'half' } as RequestInit)
    expect(big.status).toBe(413)
    expect(big.headers.get('connection')).toBe('close')
    expect(await big.text()).toBe('request body is larger than 1 MB\n')
  }
  const ok = await fetch(l.callbackUrl, { method: 'POST', body: 'x'.repeat(1024 * 1024) })
  expect(ok.status).toBe(200)
})

test('Ctrl-C stops it with exit 0; a taken port is exit 7 naming it; a bad --forward-to is exit 2', async () => {
  const l = await listen([])
  l.child.kill('SIGINT')
  expect(await exited(l.child)).toBe(0)

  const first = await listen([])
  const port = new URL(first.url).port
  const taken = spawn(process.execPath, [BIN, 'callback', 'listen', '--port', port], { env: { ...process.env, NO_COLOR: '1' }, stdio: ['ignore', 'pipe', 'pipe'] })
  let err = ''
  taken.stderr.on('data', (c: Buffer) => (err += c.toString()))
  expect(await exited(taken)).toBe(7)
  expect(err).toContain(`port ${port} on 127.0.0.1 is in use`)

  const bad = spawn(process.execPath, [BIN, 'callback', 'listen', '--forward-to', 'ftp://x'], { env: { ...process.env, NO_COLOR: '1' }, stdio: ['ignore', 'pipe', 'pipe'] })
  let badErr = ''
  bad.stderr.on('data', (c: Buffer) => (badErr += c.toString()))
  expect(await exited(bad)).toBe(2)
  expect(badErr).toContain('--forward-to must be an absolute http or https URL')
})
