import { readFile, stat, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { expect, test } from 'vitest'
import { type Delivery, SandboxClient } from '../../src/client/index.js'
import { startSandbox } from '../../src/index.js'
import { eventually, receiver } from '../callbacks/receiver.js'
import { tempDir } from '../helpers.js'
import { startRunning } from './proc.js'

/**
 * A data file holding one delivered callback plus deliveries made from it by `edit`: data from an older version
 * or a hand edit can hold anything, whatever an import would accept today.
 */
async function dataFileWith(callbackUrl: string, edit: (base: Delivery) => Array<Record<string, unknown>>): Promise<{ file: string; trackId: string }> {
  const file = join(await tempDir(), 'data.json')
  const seeded = await startSandbox({ dataFile: file })
  const created = await seeded.client.createPayment({ merchant: 'sandbox', amount: 5, callbackUrl })
  if (created.result !== 100) throw new Error('create failed')
  await seeded.client.simulate(created.trackId, { outcome: 'paid' })
  await eventually(async () => ((await seeded.client.listDeliveries())[0]?.state === 'delivered' ? true : undefined))
  await seeded.stop()
  const data = JSON.parse(await readFile(file, 'utf8')) as { deliveries: Delivery[] }
  data.deliveries.push(...(edit(data.deliveries[0]!) as unknown as Delivery[]))
  await writeFile(file, JSON.stringify(data))
  return { file, trackId: created.trackId }
}

test('deliveries stored with bad headers, URLs or bodies fail with a clear error; the process starts, replays and keeps serving', async () => {
  const rx = await receiver()
  const { file, trackId } = await dataFileWith(rx.url, (base) => {
    const pending = (id: string, changes: Record<string, unknown>) => ({
      ...base,
      id,
      state: 'pending',
      attempts: [],
      maxRetries: 0,
      nextAttemptAt: base.createdAt,
      headers: { ...base.headers, 'X-Pay-Sandbox-Delivery': id },
      ...changes,
    })
    const crlf = 'payment.status_changed\r\nX-Injected: 1'
    return [
      pending('dlv_crlf', { event: crlf, headers: { ...base.headers, 'X-Pay-Sandbox-Event': crlf } }),
      pending('dlv_wide', { event: 'é✓', headers: { ...base.headers, 'X-Pay-Sandbox-Event': 'é✓' } }),
      pending('dlv_name', { headers: { ...base.headers, 'Bad Name': 'x' } }),
      pending('dlv_url', { url: 'http://exa mple/cb' }),
      pending('dlv_body', { body: undefined }),
      // Odd but sendable: it goes out.
      pending('dlv_odd', { attempts: 'none', maxRetries: 'many', nextAttemptAt: 'soon', updatedAt: 'then' }),
      { ...base, id: 'dlv_old_crlf', event: crlf },
      { ...base, id: 'dlv_old_wide', event: 'é✓' },
    ]
  })
  const server = await startRunning(['--data', file, '--callback-retries', '0', '--callback-timeout', '300ms'])
  const client = new SandboxClient(server.url)

  const settled = await eventually(async () => {
    const list = (await client.listDeliveries({ trackId })).filter((d) => d.id !== 'dlv_old_crlf' && d.id !== 'dlv_old_wide')
    return list.every((d) => d.state !== 'pending') ? new Map(list.map((d) => [d.id, d])) : undefined
  })
  const errorOf = (id: string) => settled.get(id)?.attempts.at(-1)?.error
  expect(errorOf('dlv_crlf')).toBe('invalid header value in X-Pay-Sandbox-Event (U+000D is not allowed in a header)')
  expect(errorOf('dlv_wide')).toBe('invalid header value in X-Pay-Sandbox-Event (U+2713 is not allowed in a header)')
  expect(errorOf('dlv_name')).toBe('invalid header name "Bad Name"')
  expect(errorOf('dlv_url')).toBe('invalid URL "http://exa mple/cb"')
  expect(errorOf('dlv_body')).toBe('invalid body (not text)')
  for (const id of ['dlv_crlf', 'dlv_wide', 'dlv_name', 'dlv_url', 'dlv_body']) expect(settled.get(id)?.state, id).toBe('failed')
  expect(settled.get('dlv_odd')).toMatchObject({ state: 'delivered', attempts: [expect.objectContaining({ attempt: 1, status: 200 })] })
  // Only the seeded delivery (sent before the edit) and the odd one ever reached the receiver.
  expect(rx.received.slice(1).map((r) => r.headers['x-pay-sandbox-delivery'])).toEqual(['dlv_odd'])

  for (const [id, char] of [
    ['dlv_old_crlf', 'U+000D'],
    ['dlv_old_wide', 'U+2713'],
  ] as const) {
    const res = await client.raw({ method: 'POST', path: `/_sandbox/deliveries/${id}/replay`, body: {} })
    expect(res.status, res.text).toBe(201)
    const { delivery } = res.json as { delivery: Delivery }
    expect(delivery).toMatchObject({ replayOf: id, state: 'failed' })
    expect(delivery.attempts).toEqual([expect.objectContaining({ attempt: 1, error: `invalid header value in X-Pay-Sandbox-Event (${char} is not allowed in a header)` })])
  }
  // Past the attempt timeout: nothing left behind to throw, and the process still serves.
  await new Promise((r) => setTimeout(r, 600))
  expect(server.child.exitCode).toBeNull()
  expect((await client.health()).counts.deliveries).toBe(11)
  expect(server.stderr()).not.toMatch(/Error|unhandled/i)
}, 30_000)

test('an attempt that cannot be recorded (disk full) still waits its turn: retries follow the schedule, then stop', async () => {
  const dir = await tempDir()
  const data = join(dir, 'data.json')
  const journal = `${data}.journal`
  // Two callback URLs of the same length: /ok answers 200 at once; /no answers 500 with a body of 2 KB, all of
  // which is kept on the attempt, so recording an attempt takes more room than anything before it.
  const rx = await receiver((_n, r) => (r.path.startsWith('/ok') ? { status: 200 } : { status: 500, body: 'n'.repeat(4096) }))
  const limit = 24 * 512
  const server = await startRunning(['--data', data, '--callback-retries', '4', '--callback-schedule', '200ms'], { shell: `ulimit -f ${limit / 512}` })
  const client = new SandboxClient(server.url, { keepAlive: true })
  const size = async () => (await stat(journal)).size
  const create = async (callbackUrl: string, description?: string) => {
    const created = await client.createPayment({ merchant: 'sandbox', amount: 5, callbackUrl, ...(description ? { description } : {}) })
    if (created.result !== 100) throw new Error(`create failed: ${JSON.stringify(created)}`)
    return created.trackId
  }
  const okUrl = rx.url.replace('/callback', '/ok-cb')
  const noUrl = rx.url.replace('/callback', '/no-cb')

  // How much room a paid change and its pending delivery take.
  let before = await size()
  const probe = await create(okUrl)
  const createSize = (await size()) - before
  before = await size()
  await client.simulate(probe, { outcome: 'paid' })
  const changeSize = (await size()) - before
  await eventually(async () => ((await client.listDeliveries({ trackId: probe }))[0]?.state === 'delivered' ? true : undefined))

  // Fill the journal until it holds that change and a little more, but not an attempt with its 2 KB excerpt.
  const trackId = await create(noUrl)
  const room = changeSize + 700
  for (let left = limit - (await size()) - room; left > createSize + 20; left = limit - (await size()) - room) {
    await create(okUrl, 'x'.repeat(Math.max(1, Math.min(1000, left - createSize - 20))))
  }
  expect(limit - (await size())).toBeGreaterThanOrEqual(changeSize)
  await client.simulate(trackId, { outcome: 'paid' })

  await eventually(() => (rx.received.some((r) => r.path.startsWith('/no')) ? true : undefined))
  await new Promise((r) => setTimeout(r, 1500))
  const attempts = rx.received.filter((r) => r.path.startsWith('/no'))
  expect(attempts.map((r) => r.headers['x-pay-sandbox-attempt'])).toEqual(['1', '2', '3', '4', '5'])
  for (let i = 1; i < attempts.length; i++) expect(attempts[i]!.at - attempts[i - 1]!.at).toBeGreaterThanOrEqual(180)
  expect(server.stderr()).toMatch(/CALLBACK dlv_\S+ attempt 1 not recorded: .*could not save/)
  // What is shown is what is durable: the delivery as recorded before the disk filled.
  const [shown] = await client.listDeliveries({ trackId })
  expect(shown).toMatchObject({ state: 'pending', attempts: [] })
  expect(server.child.exitCode).toBeNull()
}, 30_000)
