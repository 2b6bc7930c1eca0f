import { readFile } from 'node:fs/promises'
import { createServer, type Server } from 'node:http'
import { join } from 'node:path'
import { expect, onTestFinished, test } from 'vitest'
import { SandboxClient } from '../../src/client/index.js'
import { tempDir } from '../helpers.js'
import { startRunning } from './proc.js'

type Kind = 'hang' | 'reset' | 'slow' | 'huge'

/** One loopback receiver behaving badly in each of the ways a merchant server can. */
async function badReceiver(): Promise<{ url: string; hits: Record<Kind, number> }> {
  const hits: Record<Kind, number> = { hang: 0, reset: 0, slow: 0, huge: 0 }
  const server: Server = createServer((req, res) => {
    const kind = new URL(req.url ?? '/', 'http://x').pathname.slice(1) as Kind
    hits[kind]++
    req.resume()
    if (kind === 'hang') return // never answers
    if (kind === 'reset') return req.socket.resetAndDestroy()
    if (kind === 'slow') {
      res.writeHead(200, { 'content-type': 'text/plain' })
      res.write('o')
      setTimeout(() => res.end('k'), 600).unref()
      return
    }
    // huge: an endless 1 MB-per-chunk body, until the sandbox hangs up
    res.writeHead(200, { 'content-type': 'text/plain' })
    const chunk = Buffer.alloc(1024 * 1024, 'x')
    const pump = () => {
      while (!res.destroyed && res.write(chunk));
      if (!res.destroyed) res.once('drain', pump)
    }
    res.on('close', () => res.removeAllListeners('drain'))
    pump()
  })
  server.keepAliveTimeout = 100
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  onTestFinished(() => {
    server.closeAllConnections()
    server.close()
  })
  const { port } = server.address() as { port: number }
  return { url: `http://127.0.0.1:${port}`, hits }
}

async function rssMB(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8')
  return Number(/^VmRSS:\s+(\d+) kB/m.exec(status)![1]) / 1024
}

/** Sequential create→verify flows for `ms`; returns the per-request latencies, sorted. */
async function apiLatencies(client: SandboxClient, ms: number): Promise<number[]> {
  const out: number[] = []
  const end = performance.now() + ms
  while (performance.now() < end) {
    let t0 = performance.now()
    const created = await client.createPayment({ merchant: 'sandbox', amount: 3, callbackUrl: 'http://127.0.0.1:9/cb' })
    out.push(performance.now() - t0)
    if (created.result !== 100) throw new Error(JSON.stringify(created))
    t0 = performance.now()
    await client.verifyPayment({ merchant: 'sandbox', trackId: created.trackId })
    out.push(performance.now() - t0)
  }
  return out.sort((a, b) => a - b)
}

const at = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!

test('receivers that hang, reset, dawdle or send endless bodies leave API latency and server memory bounded', async (context) => {
  const data = join(await tempDir(), 'data.json')
  const server = await startRunning(['--data', data, '--callback-timeout', '1s', '--callback-retries', '1', '--callback-schedule', '200ms'])
  const client = new SandboxClient(server.url, { keepAlive: true })
  onTestFinished(() => client.close())
  const receiver = await badReceiver()
  const procfs = await readFile(`/proc/${server.pid}/status`).then(
    () => true,
    () => false,
  )

  const baseline = await apiLatencies(client, 1000)
  const rssBefore = procfs ? await rssMB(server.pid) : 0

  // 40 payments per kind of receiver, all paid at once: 160 callbacks in flight together.
  const kinds: Kind[] = ['hang', 'reset', 'slow', 'huge']
  const trackIds = new Map<string, Kind>()
  for (const kind of kinds) {
    for (let i = 0; i < 40; i++) {
      const created = await client.createPayment({ merchant: 'sandbox', amount: 10, callbackUrl: `${receiver.url}/${kind}` })
      if (created.result !== 100) throw new Error(JSON.stringify(created))
      trackIds.set(created.trackId, kind)
    }
  }
  await Promise.all([...trackIds.keys()].map((id) => client.simulate(id, { outcome: 'paid' })))
  const during = await apiLatencies(client, 2500)
  const rssAfter = procfs ? await rssMB(server.pid) : 0

  // Generous bounds for a shared CI machine, and relative to the same requests before: a server blocked on its
  // receivers would take seconds.
  expect(at(during, 50)).toBeLessThan(Math.max(50, 5 * at(baseline, 50)))
  expect(at(during, 99)).toBeLessThan(Math.max(1000, 5 * at(baseline, 99)))
  expect(during.length).toBeGreaterThan(20)
  if (procfs) expect(rssAfter - rssBefore).toBeLessThan(150)

  for (const kind of kinds) await expect.poll(() => receiver.hits[kind], { message: kind }).toBeGreaterThanOrEqual(40)
  // Every delivery settles as its receiver deserves, once the timeout and the one retry have run.
  const expected: Record<Kind, string> = { hang: 'failed', reset: 'failed', slow: 'delivered', huge: 'delivered' }
  await expect
    .poll(
      async () => {
        const deliveries = await client.listDeliveries({ limit: 1000 })
        const states = new Map<string, string>()
        for (const d of deliveries) if (trackIds.has(d.trackId)) states.set(d.trackId, d.state)
        return [...trackIds].filter(([id, kind]) => states.get(id) !== expected[kind]).length
      },
      { timeout: 10_000, interval: 250 },
    )
    .toBe(0)
  const huge = (await client.listDeliveries({ limit: 1000 })).find((d) => trackIds.get(d.trackId) === 'huge')!
  expect(huge.attempts[0]!.responseExcerpt!.length).toBeLessThanOrEqual(2048)
  if (!procfs) context.skip('no /proc: memory not measured')
}, 45_000)
