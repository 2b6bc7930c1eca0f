/**
 * Starting on a PostgreSQL store: the options (--store, PAY_SANDBOX_STORE, not with --data), the schema made once
 * by instances starting together and refused when newer than the code (exit 7), what health and `pay sandbox
 * status` show (password masked), and a database that goes away and comes back (503, then on by itself).
 */
import { readFileSync } from 'node:fs'
import { describe, expect, onTestFinished, test } from 'vitest'
import { startSandbox } from '../../src/index.js'
import { parseStoreUrl, type StoreUrl } from '../../src/domain/store-url.js'
import { openStore } from '../../src/store/open.js'
import { receiver } from '../callbacks/receiver.js'
import { isAlive, pay, sandbox, spawnSandbox } from '../helpers.js'
import { adminQuery, freshDatabase, ownCluster } from './postgres.js'

const json = async (url: string, body?: unknown) => {
  const res = await fetch(url, body === undefined ? {} : { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
  return { status: res.status, json: (await res.json()) as Record<string, unknown> }
}

describe('pay sandbox start --store', () => {
  test('--store with --data is a usage error; so is a URL that is not PostgreSQL\'s', async () => {
    const both = await pay(['sandbox', 'start', '--store', 'postgres://pay@127.0.0.1:1/pay', '--data', 'x.json'])
    expect(both.code).toBe(2)
    expect(both.stderr).toMatch(/--store and --data both say where the state is kept/)
    const fromEnv = await pay(['sandbox', 'exec', '--data', 'x.json', '--', 'true'], { env: { PAY_SANDBOX_STORE: 'postgres://pay@127.0.0.1:1/pay' } })
    expect(fromEnv.code).toBe(2)
    const durability = await pay(['sandbox', 'start', '--store', 'postgres://pay@127.0.0.1:1/pay', '--durability', 'os'])
    expect(durability.code).toBe(2)
    expect(durability.stderr).toMatch(/--durability is for the data file/)
    const mysql = await pay(['sandbox', 'start', '--store', 'mysql://root:hunter2@db/pay'])
    expect(mysql.code).toBe(2)
    expect(mysql.stderr).toMatch(/--store must be a PostgreSQL URL/)
    expect(mysql.stderr).not.toContain('hunter2')
  })

  test('a database that cannot be reached stops the start with exit 7, naming it without its password', async () => {
    const r = await pay(['sandbox', 'start', '--port', '0', '--store', 'postgres://pay:hunter2@127.0.0.1:1/pay'])
    expect(r.code).toBe(7)
    expect(r.stderr).toMatch(/cannot use the store postgres:\/\/pay:\*\*\*@127\.0\.0\.1:1\/pay/)
    expect(r.stderr).not.toContain('hunter2')
  })

  test('a schema newer than this pay-sandbox is refused with exit 7, and left as it was', async () => {
    const url = await freshDatabase()
    const { store } = await openStore({ store: parseStoreUrl(url) as StoreUrl })
    await store.close()
    await adminQuery(url, 'UPDATE pay_schema SET version = 99')
    const r = await pay(['sandbox', 'start', '--port', '0', '--store', url])
    expect(r.code).toBe(7)
    expect(r.stderr).toMatch(/schema version 99, newer than this pay-sandbox understands/)
    expect((await adminQuery(url, 'SELECT version FROM pay_schema')).rows).toEqual([{ version: 99 }])
  })

  test('instances starting together make the tables once: one default merchant, every one open', async () => {
    const url = parseStoreUrl(await freshDatabase()) as StoreUrl
    const opened = await Promise.all(Array.from({ length: 4 }, () => openStore({ store: url })))
    for (const { store } of opened) onTestFinished(() => store.close())
    expect(opened.filter((o) => o.report.created)).toHaveLength(1)
    for (const { store } of opened) {
      await store.sync()
      expect(store.listMerchants().map((m) => m.key)).toEqual(['sandbox'])
    }
  })

  test('detached: the URL goes to the background sandbox in its environment, never in its arguments; status shows it masked with the live count', async () => {
    const url = await freshDatabase()
    const r = await pay(['sandbox', 'start', '--detach', '--json', '--port', '0', '--store', url], { timeoutMs: 40_000 })
    expect(r.code, r.stderr).toBe(0)
    const started = JSON.parse(r.stdout) as { url: string; pid: number }
    onTestFinished(() => {
      if (isAlive(started.pid)) process.kill(started.pid, 'SIGKILL')
    })
    expect(readFileSync(`/proc/${started.pid}/cmdline`, 'utf8')).not.toContain('secret-')
    const other = await spawnSandbox(['--store', url, '--quiet'])
    const status = await pay(['sandbox', 'status', '--url', other.url])
    expect(status.code, status.stderr).toBe(0)
    expect(status.stdout).toMatch(/store\s+postgres:\/\/pay:\*\*\*@127\.0\.0\.1:\d+\/pay_\w+ \(2 sandboxes live on it/)
    expect(status.stdout).not.toContain('secret-')
    const stop = await pay(['sandbox', 'stop', '--url', started.url])
    expect(stop.code, stop.stderr).toBe(0)
    await expect.poll(async () => ((await json(`${other.url}/_sandbox/health`)).json.store as { instances: number }).instances, { timeout: 20_000 }).toBe(1)
  })

  test('exec --store: the command runs against a sandbox on the database', async () => {
    const url = await freshDatabase()
    const script = `fetch(process.env.PAY_SANDBOX_URL + '/_sandbox/health').then((r) => r.json()).then((h) => process.stdout.write(JSON.stringify(h.store)))`
    const r = await pay(['sandbox', 'exec', '--store', url, '--', process.execPath, '-e', script], { timeoutMs: 40_000 })
    expect(r.code, r.stderr).toBe(0)
    expect(JSON.parse(r.stdout)).toMatchObject({ engine: 'postgres', instances: 1, leading: true })
  })
})

describe('moving between stores', () => {
  test('an export from a team sandbox imports into a data file unchanged, and back', async () => {
    const target = await receiver()
    const shared = await sandbox({ store: await freshDatabase() })
    await shared.client.createMerchant({ key: 'shop', name: 'Shop' })
    for (let i = 0; i < 3; i++) {
      const created = await shared.client.createPayment({ merchant: 'shop', amount: 5 + i, callbackUrl: `${target.url}/cb` })
      if (created.result !== 100) throw new Error(JSON.stringify(created))
      if (i > 0) await json(`${shared.url}/_sandbox/payments/${created.trackId}/simulate`, { outcome: i === 1 ? 'paid' : 'failed' })
    }
    // Delivered: an import sends nothing again, so each export is taken of settled records.
    await expect.poll(async () => (await shared.client.exportState()).deliveries.map((d) => d.state)).toEqual(['delivered', 'delivered'])
    const fromShared = await shared.client.exportState()
    const file = await sandbox()
    await file.client.importState(fromShared)
    const fromFile = await file.client.exportState()
    expect(fromFile.payments).toEqual(fromShared.payments)
    expect(fromFile.deliveries).toEqual(fromShared.deliveries)
    expect(fromFile.merchants).toEqual(fromShared.merchants)
    const back = await sandbox({ store: await freshDatabase() })
    await back.client.importState(fromFile)
    const again = await back.client.exportState()
    expect({ ...again, exportedAt: undefined }).toEqual({ ...fromShared, exportedAt: undefined })
  })
})

describe('PostgreSQL going away', () => {
  test('restarted under load: requests answer 503 storage_unavailable while it is down (never a 500), both instances recover by themselves, nothing acknowledged is lost', async () => {
    const cluster = await ownCluster()
    const url = await freshDatabase(cluster)
    const a = await sandbox({ store: url })
    const b = await sandbox({ store: url })
    const acknowledged: string[] = []
    const statuses = new Map<number, number>()
    const bodies: unknown[] = []
    let stop = false
    const load = async (at: string) => {
      while (!stop) {
        const res = await fetch(`${at}/api/v1/request`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ merchant: 'sandbox', amount: 1, callbackUrl: 'http://127.0.0.1:9/cb' }) })
        const body = (await res.json()) as { result?: number; trackId?: string; error?: string; message?: string }
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1)
        if (res.status === 200 && body.result === 100) acknowledged.push(body.trackId!)
        else bodies.push(body)
        if (res.status !== 200) await new Promise((r) => setTimeout(r, 20))
      }
    }
    const loads = [load(a.url), load(b.url)]
    await expect.poll(() => acknowledged.length).toBeGreaterThan(20)
    await cluster.stop('fast')
    await expect.poll(() => statuses.get(503) ?? 0).toBeGreaterThan(10)
    await cluster.start()
    const before = acknowledged.length
    await expect.poll(() => acknowledged.length, { timeout: 30_000 }).toBeGreaterThan(before + 20)
    stop = true
    await Promise.all(loads)
    // Only successes and 503s; each 503 says why, naming the database without its password.
    expect([...statuses.keys()].sort()).toEqual([200, 503])
    for (const body of bodies) expect(body).toMatchObject({ error: 'storage_unavailable', message: expect.stringMatching(/postgres:\/\/pay:\*\*\*@/) })
    for (const at of [a, b]) {
      const verified = await Promise.all(acknowledged.map(async (trackId) => (await json(`${at.url}/api/v1/verify`, { merchant: 'sandbox', trackId })).json.result))
      expect(verified.filter((r) => r !== 202)).toEqual([])
    }
    // One leads again, and a change through one reaches the other's followers (LISTEN reconnected).
    await expect.poll(async () => (await Promise.all([a, b].map(async (x) => ((await json(`${x.url}/_sandbox/health`)).json.store as { leading: boolean }).leading))).filter(Boolean).length, { timeout: 20_000 }).toBe(1)
    const created = await json(`${a.url}/api/v1/request`, { merchant: 'sandbox', amount: 1, callbackUrl: 'http://127.0.0.1:9/cb' })
    await expect.poll(() => b.server.service.store.getPayment(created.json.trackId as string) !== undefined, { timeout: 5_000 }).toBe(true)
    // A third instance started now finds them all.
    const other = await startSandbox({ store: url })
    onTestFinished(() => other.stop())
    expect(((await json(`${other.url}/_sandbox/health`)).json.counts as { payments: number }).payments).toBe(acknowledged.length + 1)
  })
})
