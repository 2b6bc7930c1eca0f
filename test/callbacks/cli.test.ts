import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import { type Delivery, SandboxClient, type Sandbox } from '../../src/index.js'
import { pay, sandbox, spawnSandbox, tempDir } from '../helpers.js'
import { closedPortUrl, eventually, receiver } from './receiver.js'

async function twoDeliveries(sb: Sandbox, callbackUrl: string): Promise<{ trackId: string; deliveries: Delivery[] }> {
  const created = await sb.client.createPayment({ merchant: 'sandbox', amount: 7.5, callbackUrl })
  if (created.result !== 100) throw new Error('create failed')
  await sb.client.simulate(created.trackId, { outcome: 'unfinalized' })
  await sb.client.simulate(created.trackId, { outcome: 'paid' })
  const deliveries = await eventually(async () => {
    const list = await sb.client.listDeliveries({ trackId: created.trackId })
    return list.length === 2 && list.every((d) => d.state === 'delivered') ? list : undefined
  })
  return { trackId: created.trackId, deliveries }
}

describe('pay callback list / show', () => {
  test('list prints a table, filters by trackId, and --json is the delivery log', async () => {
    const rx = await receiver()
    const sb = await sandbox()
    const { trackId, deliveries } = await twoDeliveries(sb, rx.url)
    await twoDeliveries(sb, rx.url)

    const table = await pay(['callback', 'list', '--track-id', trackId, '--url', sb.url])
    expect(table.code).toBe(0)
    const lines = table.stdout.trim().split('\n')
    expect(lines[0]).toMatch(/^ID\s+TRACK ID\s+STATUS\s+STATE\s+ATTEMPTS\s+LAST\s+URL$/)
    expect(lines.slice(1).map((l) => l.split(/\s{2,}/))).toEqual([
      [deliveries[0]!.id, trackId, 'unfinalized', 'delivered', '1/4', 'HTTP 200', rx.url],
      [deliveries[1]!.id, trackId, 'paid', 'delivered', '1/4', 'HTTP 200', rx.url],
    ])

    const json = await pay(['callback', 'list', '--json', '--url', sb.url])
    expect(json.code).toBe(0)
    const parsed = JSON.parse(json.stdout) as { deliveries: Delivery[] }
    expect(parsed.deliveries).toHaveLength(4)
    expect(parsed.deliveries.slice(0, 2)).toEqual(deliveries)
  })

  test('show prints the request and every attempt; an unknown id exits 5', async () => {
    const rx = await receiver((n) => (n === 1 ? { status: 500, body: 'not yet' } : { status: 200, body: 'ok' }))
    const sb = await sandbox({ callbacks: { scheduleMs: [30] } })
    const { deliveries } = await twoDeliveries(sb, rx.url)
    const id = deliveries[0]!.id

    const shown = await pay(['callback', 'show', id, '--url', sb.url])
    expect(shown.code).toBe(0)
    expect(shown.stdout).toMatch(new RegExp(`delivery +${id}\n`))
    expect(shown.stdout).toContain(`X-Pay-Sandbox-Delivery: ${id}`)
    expect(shown.stdout).toContain('"status": "unfinalized"')
    expect(shown.stdout).toMatch(/✖ #1 .* HTTP 500 .*\n\s+response not yet/)
    expect(shown.stdout).toMatch(/✔ #2 .* HTTP 200 /)

    const json = await pay(['callback', 'show', id, '--json', '--url', sb.url])
    expect(JSON.parse(json.stdout)).toEqual({ delivery: deliveries[0] })

    const missing = await pay(['callback', 'show', 'dlv_missing', '--url', sb.url])
    expect(missing.code).toBe(5)
    expect(missing.stderr).toContain('no delivery with id dlv_missing')
  })
})

describe('pay callback replay', () => {
  test('through the sandbox: to another URL (exit 0), and to a closed port (exit 8)', async () => {
    const rx = await receiver()
    const other = await receiver()
    const sb = await sandbox()
    const { trackId, deliveries } = await twoDeliveries(sb, rx.url)

    const ok = await pay(['callback', 'replay', trackId, '--to', other.url, '--url', sb.url])
    expect(ok.code, ok.stderr).toBe(0)
    expect(ok.stdout).toContain(`✔ ${deliveries[1]!.id} (trackId ${trackId}, paid) → ${other.url}: HTTP 200`)
    const [got] = await other.waitFor(1)
    expect(got!.text).toBe(rx.received[1]!.text)

    const closed = await closedPortUrl()
    const refused = await pay(['callback', 'replay', deliveries[0]!.id, '--to', closed, '--url', sb.url])
    expect(refused.code).toBe(8)
    expect(refused.stdout).toMatch(/✖ .*ECONNREFUSED/)
    expect(refused.stderr).toContain('the replay was not delivered')
    const log = await sb.client.listDeliveries({ trackId })
    expect(log.slice(2).map((d) => [d.replayOf, d.state])).toEqual([
      [deliveries[1]!.id, 'delivered'],
      [deliveries[0]!.id, 'failed'],
    ])
  })

  test('from an exported file, with no sandbox running, in file order', async () => {
    const rx = await receiver()
    const local = await receiver()
    const dir = await tempDir()
    const file = join(dir, 'deliveries.json')
    const sb = await sandbox()
    const { trackId, deliveries } = await twoDeliveries(sb, rx.url)
    const exported = await pay(['callback', 'list', '--json', '--url', sb.url])
    await writeFile(file, exported.stdout)
    await sb.stop()
    await expect(new SandboxClient(sb.url).health()).rejects.toThrow(/no sandbox/)

    const replayed = await pay(['callback', 'replay', '--file', file, '--to', local.url, '--json'])
    expect(replayed.code).toBe(0)
    const out = JSON.parse(replayed.stdout) as { deliveries: Delivery[] }
    expect(out.deliveries.map((d) => [d.replayOf, d.state, d.url])).toEqual([
      [deliveries[0]!.id, 'delivered', local.url],
      [deliveries[1]!.id, 'delivered', local.url],
    ])
    const got = await local.waitFor(2)
    expect(got.map((r) => r.text)).toEqual(rx.received.map((r) => r.text))
    expect(got.map((r) => r.headers['x-pay-sandbox-replay-of'])).toEqual(deliveries.map((d) => d.id))
    expect(got[0]!.json.trackId).toBe(trackId)

    const one = await pay(['callback', 'replay', deliveries[1]!.id, '--file', file, '--to', local.url])
    expect(one.code).toBe(0)
    expect(one.stdout.trim().split('\n')).toEqual([expect.stringMatching(new RegExp(`^✔ ${deliveries[1]!.id} .*paid.*HTTP 200 in`))])

    const refused = await pay(['callback', 'replay', '--file', file, '--to', await closedPortUrl(), '--timeout', '2s'])
    expect(refused.code).toBe(8)
    expect(refused.stdout.match(/✖/g)).toHaveLength(2)
    expect(refused.stderr).toContain('2 of 2 replays were not delivered')
  })

  test('a bad file or missing --to is a usage error naming the file and the problem', async () => {
    const dir = await tempDir()
    const write = async (name: string, text: string) => {
      const path = join(dir, name)
      await writeFile(path, text)
      return path
    }
    const to = ['--to', 'http://127.0.0.1:9/cb']
    // The file checks themselves are covered in export.test.ts; these show how the CLI reports them.
    const cases: Array<[string[], RegExp]> = [
      [['--file', await write('text.json', 'hello'), ...to], /text\.json: not valid JSON/],
      [['--file', await write('nobody.json', '{"deliveries": [{"id": "dlv_1", "trackId": "t"}]}'), ...to], /nobody\.json: deliveries\[0\]\.body must be a JSON object/],
      [['--file', await write('ok.json', '{"deliveries": [{"id": "dlv_1", "trackId": "t", "body": {}}]}')], /--to is required with --file/],
    ]
    const results = await Promise.all(cases.map(([args]) => pay(['callback', 'replay', ...args])))
    results.forEach((r, i) => {
      expect(r.code, cases[i]![0].join(' ')).toBe(2)
      expect(r.stderr).toMatch(cases[i]![1])
      expect(r.stdout).toBe('')
    })
  })
})

test('pay sandbox start --callback-retries 0 --callback-timeout 300ms: one timed-out attempt, logged', async () => {
  const rx = await receiver(() => 'hang')
  const bad = await pay(['sandbox', 'start', '--port', '0', '--callback-timeout', 'soon'])
  expect(bad.code).toBe(2)
  expect(bad.stderr).toContain('--callback-timeout must be a duration')

  const dir = await tempDir()
  const sb = await spawnSandbox(['--data', join(dir, 'data.json'), '--callback-retries', '0', '--callback-timeout', '300ms'])
  const client = new SandboxClient(sb.url)
  const created = await client.createPayment({ merchant: 'sandbox', amount: 3, callbackUrl: rx.url })
  if (created.result !== 100) throw new Error('create failed')
  await client.simulate(created.trackId, { outcome: 'paid' })
  const d = await eventually(async () => {
    const [x] = await client.listDeliveries({ trackId: created.trackId })
    return x?.state === 'failed' ? x : undefined
  })
  expect(d.attempts).toEqual([expect.objectContaining({ attempt: 1, error: 'timed out after 300 ms' })])
  await eventually(() => (sb.output().includes('failed: timed out after 300 ms; no retries left') ? true : undefined))
  expect(sb.output()).toMatch(new RegExp(`CALLBACK POST ${rx.url} --- trackId=${created.trackId} status=paid .* attempt=1/1`))
})

test('pay sandbox start --callback-concurrency 1: one attempt out at a time; 0 is refused', async () => {
  const bad = await pay(['sandbox', 'start', '--port', '0', '--callback-concurrency', '0'])
  expect(bad.code).toBe(2)
  expect(bad.stderr).toMatch(/--callback-concurrency/)

  const rx = await receiver(() => 'hang')
  const dir = await tempDir()
  const sb = await spawnSandbox(['--data', join(dir, 'data.json'), '--callback-concurrency', '1', '--callback-retries', '0', '--callback-timeout', '200ms'])
  const client = new SandboxClient(sb.url)
  for (let i = 0; i < 3; i++) {
    const created = await client.createPayment({ merchant: 'sandbox', amount: 3, callbackUrl: rx.url })
    if (created.result !== 100) throw new Error('create failed')
    await client.simulate(created.trackId, { outcome: 'paid' })
  }
  const arrived = await rx.waitFor(3)
  // Each attempt goes out only once the one before it gave up after its 200 ms: arrivals are that far apart at
  // least (a busy machine only spreads them further). Counting open sockets on the receiver's side is not exact
  // here: a hang-up and the next connection can reach it in the same turn, in either order.
  const gaps = arrived.slice(1).map((r, i) => r.at - arrived[i]!.at)
  expect(Math.min(...gaps), gaps.join(', ')).toBeGreaterThanOrEqual(150)
})
