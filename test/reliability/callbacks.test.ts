import { readFile, stat, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { expect, test } from 'vitest'
import { type Delivery, SandboxClient } from '../../src/client/index.js'
import { ExitCode } from '../../src/cli/exit-codes.js'
import { startSandbox } from '../../src/index.js'
import { eventually, receiver } from '../callbacks/receiver.js'
import { tempDir } from '../helpers.js'
import { startRefused, startRunning } from './proc.js'

/** A data file holding one delivered callback, read back whole: deliveries made from it are added per test. */
async function seededDataFile(callbackUrl: string): Promise<{ data: { deliveries: Delivery[] }; trackId: string }> {
  const file = join(await tempDir(), 'seed.json')
  const seeded = await startSandbox({ dataFile: file })
  const created = await seeded.client.createPayment({ merchant: 'sandbox', amount: 5, callbackUrl })
  if (created.result !== 100) throw new Error('create failed')
  await seeded.client.simulate(created.trackId, { outcome: 'paid' })
  await eventually(async () => ((await seeded.client.listDeliveries())[0]?.state === 'delivered' ? true : undefined))
  await seeded.stop()
  return { data: JSON.parse(await readFile(file, 'utf8')) as { deliveries: Delivery[] }, trackId: created.trackId }
}

test('deliveries edited by hand into ones that cannot be sent stop the start, naming the record; the file is left as it was', async () => {
  const rx = await receiver()
  const { data } = await seededDataFile(rx.url)
  const base = data.deliveries[0]!
  const crlf = 'payment.status_changed\r\nX-Injected: 1'
  // The sender refuses each of these too (test/callbacks/send.test.ts); none gets that far.
  const rows: Array<[string, Record<string, unknown>, string]> = [
    ['a line break in a header', { headers: { ...base.headers, 'X-Pay-Sandbox-Event': crlf } }, `deliveries[1].headers.X-Pay-Sandbox-Event must be safe in an HTTP header: visible ASCII, spaces and tabs only (got ${JSON.stringify(crlf)})`],
    ['a character above U+00FF in its event', { event: 'é✓' }, 'deliveries[1].event must be "payment.status_changed" (got "é✓")'],
    ['a bad header name', { headers: { ...base.headers, 'Bad Name': 'x' } }, 'deliveries[1].headers has a name "Bad Name" that is not an HTTP header name'],
    ['a bad URL', { url: 'http://exa mple/cb' }, 'deliveries[1].url must be an absolute http or https URL without white space'],
    ['no body', { body: undefined }, 'deliveries[1].body is missing'],
  ]
  for (const [name, changes, message] of rows) {
    const file = join(await tempDir(), 'data.json')
    await writeFile(file, JSON.stringify({ ...data, deliveries: [base, { ...base, id: 'dlv_handedited00', ...changes }] }))
    const before = await readFile(file)
    const outcome = await startRefused(['--data', file])
    expect(outcome.code, name).toBe(ExitCode.startFailed)
    expect(outcome.stderr, name).toContain(`data file ${file} has a record the sandbox cannot use: ${message}`)
    expect(await readFile(file), name).toEqual(before)
  }
  expect(rx.received).toHaveLength(1)
}, 60_000)

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

  const noAttempts = () => rx.received.filter((r) => r.path.startsWith('/no'))
  // The first try and 4 retries 200 ms apart; then a while longer, in which no sixth may come.
  await eventually(() => (noAttempts().length >= 5 ? true : undefined), 15_000)
  await new Promise((r) => setTimeout(r, 500))
  const attempts = noAttempts()
  expect(attempts.map((r) => r.headers['x-pay-sandbox-attempt'])).toEqual(['1', '2', '3', '4', '5'])
  for (let i = 1; i < attempts.length; i++) expect(attempts[i]!.at - attempts[i - 1]!.at).toBeGreaterThanOrEqual(180)
  expect(server.stderr()).toMatch(/CALLBACK dlv_\S+ attempt 1 not recorded: .*could not save/)
  // What is shown is what is durable: the delivery as recorded before the disk filled.
  const [shown] = await client.listDeliveries({ trackId })
  expect(shown).toMatchObject({ state: 'pending', attempts: [] })
  expect(server.child.exitCode).toBeNull()
}, 30_000)
