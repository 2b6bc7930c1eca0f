import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { expect, onTestFinished, test } from 'vitest'
import { SandboxClient } from '../../src/client/index.js'
import type { Outcome, PaymentStatus } from '../../src/client/index.js'
import { tempDir } from '../helpers.js'
import { killed, startRunning } from './proc.js'

const CLIENTS = 16
const OUTCOMES: Outcome[] = ['paid', 'unfinalized', 'failed']

interface Acknowledged {
  /** trackId → amount, for every create answered with result 100. */
  created: Map<string, number>
  /** trackId → status, for every simulate answered with 200. */
  moved: Map<string, PaymentStatus>
}

/** 16 clients creating and simulating as fast as they can until the server dies; records what was acknowledged. */
function hammer(url: string, acked: Acknowledged, tag: string): Promise<void> {
  const clients = Array.from({ length: CLIENTS }, () => new SandboxClient(url, { keepAlive: true }))
  onTestFinished(() => clients.forEach((c) => c.close()))
  return Promise.all(
    clients.map(async (client, c) => {
      for (let n = 0; ; n++) {
        try {
          const amount = (c + 1) * 1000 + n + 0.5
          const created = await client.createPayment({ merchant: 'sandbox', amount, callbackUrl: 'http://127.0.0.1:9/cb', description: `${tag} ${c}-${n}` })
          if (created.result !== 100) throw new Error(`create answered ${JSON.stringify(created)}`)
          acked.created.set(created.trackId, amount)
          const outcome = OUTCOMES[n % OUTCOMES.length]!
          const moved = await client.simulate(created.trackId, { outcome })
          acked.moved.set(created.trackId, moved.status)
        } catch (error) {
          // The server was killed under this request: stop this client.
          if ((error as Error).name === 'SandboxUnreachableError') return
          throw error
        }
      }
    }),
  ).then(() => undefined)
}

/**
 * Starts a sandbox, hammers it, and kills it after at least `runMs` and once this run has acknowledged several
 * creates and state changes per client (on a busy machine that takes longer than `runMs`).
 */
async function crashUnderLoad(data: string, acked: Acknowledged, tag: string, runMs: number, flags: string[]): Promise<void> {
  const server = await startRunning(['--data', data, ...flags])
  const before = { created: acked.created.size, moved: acked.moved.size }
  let failure: Error | undefined
  const load = hammer(server.url, acked, tag).then(
    () => undefined,
    (error: Error) => (failure = error),
  )
  await new Promise((r) => setTimeout(r, runMs))
  const deadline = Date.now() + 30_000
  const created = () => acked.created.size - before.created
  const moved = () => acked.moved.size - before.moved
  while (!failure && (created() < 3 * CLIENTS || moved() < CLIENTS)) {
    if (Date.now() > deadline) throw new Error(`${tag} run: ${created()} creates and ${moved()} state changes acknowledged in 30 s`)
    await new Promise((r) => setTimeout(r, 10))
  }
  await killed(server.child, 'SIGKILL')
  await load
  if (failure) throw failure
}

// `os` acknowledges once the OS has the write: a killed process loses nothing either (a power loss could).
test.each(['disk', 'os'])('kill -9 while 16 clients create and simulate (--durability %s): every acknowledged create and state change survives, twice over', async (durability) => {
  const data = join(await tempDir(), 'data.json')
  const acked: Acknowledged = { created: new Map(), moved: new Map() }
  const flags = ['--durability', durability]

  await crashUnderLoad(data, acked, 'first', 1500, flags)
  const afterFirst = acked.created.size
  // The second run starts from the crashed files (stale lock, unfolded journal) and is killed in turn.
  await crashUnderLoad(data, acked, 'second', 1500, flags)
  expect(afterFirst).toBeGreaterThan(CLIENTS)
  expect(acked.created.size).toBeGreaterThan(afterFirst)
  expect(acked.moved.size).toBeGreaterThan(CLIENTS)

  const server = await startRunning(['--data', data])
  const client = new SandboxClient(server.url)
  const stored = new Map((await client.listPayments()).map((p) => [p.trackId, p]))
  const missing = [...acked.created.keys()].filter((id) => !stored.has(id))
  expect(missing).toEqual([])
  for (const [trackId, amount] of acked.created) expect(stored.get(trackId)!.amount).toBe(amount)
  const wrong = [...acked.moved].filter(([id, status]) => stored.get(id)!.status !== status)
  expect(wrong).toEqual([])
  // Spot-check through the spec API too: a payment acknowledged as paid verifies as 100.
  const paid = [...acked.moved].find(([, status]) => status === 'paid')![0]
  expect(await client.verifyPayment({ merchant: 'sandbox', trackId: paid })).toMatchObject({ result: 100, amount: acked.created.get(paid) })

  // A graceful stop folds everything into the data file, which is plain, complete JSON.
  expect(await killed(server.child, 'SIGTERM')).toBe(0)
  const saved = JSON.parse(await readFile(data, 'utf8')) as { payments: Array<{ trackId: string }> }
  expect(saved.payments.length).toBe(stored.size)
}, 90_000)
