import { join } from 'node:path'
import { expect, onTestFinished, test } from 'vitest'
import { type RawResponse, SandboxClient } from '../../src/client/index.js'
import { startSandbox } from '../../src/index.js'
import { openFileStore } from '../../src/store/open.js'
import { tempDir } from '../helpers.js'
import { type ChangeEvent, followEvents } from '../sse.js'
import { errno, type Faults, faultyFs, gate } from '../store/faulty-fs.js'
import { killed, startRunning } from './proc.js'

const callbackUrl = 'http://127.0.0.1:9/cb'
const turn = () => new Promise((r) => setImmediate(r))

function keptAlive(url: string): SandboxClient {
  const client = new SandboxClient(url, { keepAlive: true })
  onTestFinished(() => client.close())
  return client
}

test('disk full: a simulate that cannot be saved is never seen by a verify sent at the same moment, before or after a crash', async () => {
  const data = join(await tempDir(), 'data.json')
  const server = await startRunning(['--data', data], { shell: 'ulimit -f 24' })
  const customer = keptAlive(server.url)
  const merchant = keptAlive(server.url)
  const acked: string[] = []
  for (let i = 0; i < 1000; i++) {
    const res = await merchant.raw({ method: 'POST', path: '/api/v1/request', body: { merchant: 'sandbox', amount: 10 + i, callbackUrl } })
    if (res.status !== 200) break
    acked.push((res.json as { trackId: string }).trackId)
  }
  expect(acked.length).toBeGreaterThanOrEqual(20)
  for (const trackId of acked.slice(0, 20)) {
    const [moved, verified] = await Promise.all([
      customer.raw({ method: 'POST', path: `/_sandbox/payments/${trackId}/simulate`, body: { outcome: 'paid' } }),
      merchant.verifyPayment({ merchant: 'sandbox', trackId }),
    ])
    expect(moved.status, moved.text).toBe(503)
    expect(verified).toEqual({ result: 202, amount: expect.any(Number) })
  }
  await killed(server.child, 'SIGKILL')
  const again = await startRunning(['--data', data])
  const after = new SandboxClient(again.url)
  onTestFinished(() => after.close())
  for (const trackId of acked.slice(0, 20)) {
    expect((await after.verifyPayment({ merchant: 'sandbox', trackId })).result).toBe(202)
  }
}, 60_000)

test('slow journal writes: while a change is being written, no reader sees it; after a crash it is there only if acknowledged', async () => {
  const dir = await tempDir()
  const dataFile = join(dir, 'data.json')
  const faults: Faults = {}
  const sb = await startSandbox({ dataFile, storeFs: faultyFs(faults) })
  onTestFinished(() => sb.stop().catch(() => {}))
  const client = keptAlive(sb.url)
  const created = await client.createPayment({ merchant: 'sandbox', amount: 25, callbackUrl })
  if (created.result !== 100) throw new Error('create failed')
  const { trackId } = created
  const stream = { events: [] as string[] }
  await followEvents(`${sb.url}/pay/${trackId}/events`, (event, data) => {
    if (event === 'status') stream.events.push((data as { status: string }).status)
  })
  const changes = { events: [] as string[] }
  await followEvents(`${sb.url}/_sandbox/events`, (event, data) => {
    if (event !== 'payment') return
    const { created, payment } = data as ChangeEvent & { payment: { trackId: string; status: string } }
    changes.events.push(`${created ? 'created' : payment.status} ${payment.trackId}`)
  })

  const slow = gate()
  onTestFinished(() => slow.open())
  let fail = false
  faults.sync = async (path) => {
    if (!path.endsWith('.journal')) return
    await slow.wait()
    if (fail) throw errno('EIO')
  }
  const moving = client.raw({ method: 'POST', path: `/_sandbox/payments/${trackId}/simulate`, body: { outcome: 'paid' } })
  while (!slow.waiting()) await turn()

  const reader = keptAlive(sb.url)
  const readers: Array<[string, () => Promise<unknown>]> = [
    ['verify', async () => (await reader.verifyPayment({ merchant: 'sandbox', trackId })).result],
    ['checkout status', async () => ((await reader.raw({ method: 'GET', path: `/pay/${trackId}/status` })).json as { status: string }).status],
    ['control API', async () => (await reader.getPayment(trackId)).payment.status],
    ['payment list', async () => (await reader.listPayments({ status: 'paid' })).length],
    ['export', async () => (await reader.exportState()).payments.find((p) => p.trackId === trackId)?.status],
    ['inspector list', async () => /class="status st-paid"/.test((await reader.raw({ method: 'GET', path: '/inspect/payments' })).text)],
    ['inspector payment', async () => /data-status="paid"/.test((await reader.raw({ method: 'GET', path: `/inspect/payments/${trackId}` })).text)],
  ]
  const during = Object.fromEntries(await Promise.all(readers.map(async ([name, read]) => [name, await read()] as const)))
  expect(during).toEqual({
    verify: 202,
    'checkout status': 'pending',
    'control API': 'pending',
    'payment list': 0,
    export: 'pending',
    'inspector list': false,
    'inspector payment': false,
  })
  expect(stream.events).toEqual(['pending'])
  expect(changes.events).toEqual([])

  // The write fails: nobody ever saw it, and a crash now leaves the payment pending.
  fail = true
  slow.open()
  expect((await moving).status).toBe(503)
  expect((await reader.verifyPayment({ merchant: 'sandbox', trackId })).result).toBe(202)
  expect(stream.events).toEqual(['pending'])
  expect(changes.events).toEqual([])
  // The notification is written in the same batch as the change: it failed with it, so none was recorded.
  expect(await reader.listDeliveries({ trackId })).toEqual([])
  fail = false
  faults.sync = undefined
  const paid: RawResponse = await client.raw({ method: 'POST', path: `/_sandbox/payments/${trackId}/simulate`, body: { outcome: 'paid' } })
  expect(paid.status, paid.text).toBe(200)
  expect((await reader.verifyPayment({ merchant: 'sandbox', trackId })).result).toBe(100)
  expect((await reader.listDeliveries({ trackId })).map((d) => d.body.status)).toEqual(['paid'])
  expect(Object.fromEntries(await Promise.all(readers.slice(-2).map(async ([name, read]) => [name, await read()] as const)))).toEqual({
    'inspector list': true,
    'inspector payment': true,
  })
  await expect.poll(() => changes.events).toEqual([`paid ${trackId}`])

  // A create is announced once it is durable, not while it is written.
  const slowCreate = gate()
  onTestFinished(() => slowCreate.open())
  faults.sync = async (path) => {
    if (path.endsWith('.journal')) await slowCreate.wait()
  }
  const creating = client.createPayment({ merchant: 'sandbox', amount: 30, callbackUrl })
  while (!slowCreate.waiting()) await turn()
  await new Promise((r) => setTimeout(r, 100))
  expect(changes.events).toEqual([`paid ${trackId}`])
  expect((await reader.raw({ method: 'GET', path: '/inspect/payments' })).text).toContain('Showing 1 of 1.')
  slowCreate.open()
  faults.sync = undefined
  const second = await creating
  if (second.result !== 100) throw new Error('create failed')
  await expect.poll(() => changes.events).toEqual([`paid ${trackId}`, `created ${second.trackId}`])

  // A restart after `kill -9`: the data file is opened again while the running store was never closed.
  const { store } = await openFileStore({ file: dataFile })
  expect(store.getPayment(trackId)?.status).toBe('paid')
  expect(store.listPayments().map((p) => p.status)).toEqual(['paid', 'pending'])
  await store.close()
}, 30_000)
