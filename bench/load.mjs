// Load generator for the create→verify flow, run as its own process so it never shares the server's event loop.
// Each connection is a keep-alive HTTP/1.1 socket that loops: create a payment, then verify the trackId it got.
// Requests and responses are written and parsed by hand: an http.Agent client costs more CPU than the server.
//
// Input: one JSON argument {port, connections, warmupMs, durationMs, merchant, callbackUrl}.
// Output: one JSON line on stdout {flows, requests, errors, seconds, latencyMs: {create, verify, all}}.
import { connect } from 'node:net'

const options = JSON.parse(process.argv[2] ?? '{}')
const { port, connections = 32, warmupMs = 1000, durationMs = 3000 } = options
const merchant = options.merchant ?? 'sandbox'
const callbackUrl = options.callbackUrl ?? 'http://127.0.0.1:9/callback'

const CRLF2 = Buffer.from('\r\n\r\n')

function request(path, body) {
  const payload = Buffer.from(JSON.stringify(body))
  const head = `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\nContent-Length: ${payload.length}\r\n\r\n`
  return Buffer.concat([Buffer.from(head), payload])
}

let recording = false
let stopping = false
const samples = { create: [], verify: [] }
let flows = 0
let errors = 0
let firstError

function fail(what) {
  errors++
  firstError ??= what
}

/** One keep-alive connection running the flow until the run ends. */
function runConnection(index) {
  return new Promise((resolve) => {
    const socket = connect({ port, host: '127.0.0.1', noDelay: true })
    let buffer = Buffer.alloc(0)
    let step = 'create'
    let sentAt = 0
    let n = 0

    const send = () => {
      if (stopping) {
        socket.end()
        return resolve()
      }
      sentAt = performance.now()
      if (step === 'create') {
        n++
        socket.write(request('/api/v1/request', { merchant, amount: 10 + (n % 100) / 4, callbackUrl, description: `bench order ${index}-${n}` }))
      } else {
        socket.write(verifyRequest)
      }
    }
    let verifyRequest

    const onResponse = (status, text) => {
      const took = performance.now() - sentAt
      if (recording) samples[step].push(took)
      let body
      try {
        body = JSON.parse(text)
      } catch {
        body = undefined
      }
      if (step === 'create') {
        if (status !== 200 || body?.result !== 100 || typeof body.trackId !== 'string') {
          fail(`create: HTTP ${status} ${text.slice(0, 200)}`)
          step = 'create'
          return send()
        }
        verifyRequest = request('/api/v1/verify', { merchant, trackId: body.trackId })
        step = 'verify'
        return send()
      }
      if (status !== 200 || typeof body?.result !== 'number') fail(`verify: HTTP ${status} ${text.slice(0, 200)}`)
      else if (recording) flows++
      step = 'create'
      return send()
    }

    socket.on('data', (chunk) => {
      buffer = buffer.length === 0 ? chunk : Buffer.concat([buffer, chunk])
      for (;;) {
        const end = buffer.indexOf(CRLF2)
        if (end === -1) return
        const head = buffer.subarray(0, end).toString('latin1')
        const status = Number(head.slice(9, 12))
        const match = /\r\ncontent-length:\s*(\d+)/i.exec(head)
        if (!match) {
          fail(`response without content-length: ${head.slice(0, 200)}`)
          socket.destroy()
          return resolve()
        }
        const length = Number(match[1])
        if (buffer.length < end + 4 + length) return
        const text = buffer.subarray(end + 4, end + 4 + length).toString('utf8')
        buffer = buffer.subarray(end + 4 + length)
        onResponse(status, text)
      }
    })
    socket.on('error', (error) => {
      fail(`socket: ${error.message}`)
      resolve()
    })
    socket.on('close', () => resolve())
    socket.on('connect', send)
  })
}

function percentile(sorted, p) {
  if (sorted.length === 0) return null
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))
  return Number(sorted[i].toFixed(3))
}

function summary(values) {
  const sorted = Float64Array.from(values).sort()
  return { count: sorted.length, p50: percentile(sorted, 50), p90: percentile(sorted, 90), p99: percentile(sorted, 99), max: percentile(sorted, 100) }
}

const running = Array.from({ length: connections }, (_, i) => runConnection(i))
let startedAt = 0
setTimeout(() => {
  recording = true
  startedAt = performance.now()
  setTimeout(() => {
    recording = false
    const seconds = (performance.now() - startedAt) / 1000
    stopping = true
    Promise.race([Promise.all(running), new Promise((r) => setTimeout(r, 2000))]).then(() => {
      const all = [...samples.create, ...samples.verify]
      const result = {
        connections,
        seconds: Number(seconds.toFixed(3)),
        flows,
        flowsPerSecond: Math.round(flows / seconds),
        requestsPerSecond: Math.round(all.length / seconds),
        errors,
        ...(firstError ? { firstError } : {}),
        latencyMs: { create: summary(samples.create), verify: summary(samples.verify), all: summary(all) },
      }
      process.stdout.write(`${JSON.stringify(result)}\n`)
      process.exit(0)
    })
  }, durationMs)
}, warmupMs)
