import { readdir } from 'node:fs/promises'
import { join } from 'node:path'
import { expect, onTestFinished, test } from 'vitest'
import { SandboxClient } from '../../src/client/index.js'
import { ExitCode } from '../../src/cli/exit-codes.js'
import { receiver } from '../callbacks/receiver.js'
import { tempDir } from '../helpers.js'
import { killed, startRefused, startRunning } from './proc.js'

test('few file descriptors and receivers that never answer: every change is acknowledged with its notification, none lost', async () => {
  const rx = await receiver(() => 'hang')
  const data = join(await tempDir(), 'data.json')
  // 160 descriptors: far fewer than the 400 notifications below would take if each had its own socket.
  const server = await startRunning(['--data', data, '--callback-timeout', '60s'], { shell: 'ulimit -n 160' })
  const client = new SandboxClient(server.url, { keepAlive: true })
  onTestFinished(() => client.close())
  const statuses = new Map<number, number>()
  const count = (status: number) => statuses.set(status, (statuses.get(status) ?? 0) + 1)
  const paid: string[] = []
  for (let i = 0; i < 400; i++) {
    const created = await client.raw({ method: 'POST', path: '/api/v1/request', body: { merchant: 'sandbox', amount: 1 + i, callbackUrl: rx.url } })
    count(created.status)
    if (created.status !== 200) continue
    const { trackId } = created.json as { trackId: string }
    const moved = await client.raw({ method: 'POST', path: `/_sandbox/payments/${trackId}/simulate`, body: { outcome: 'paid' } })
    count(moved.status)
    if (moved.status === 200) paid.push(trackId)
  }
  expect(Object.fromEntries(statuses)).toEqual({ 200: 800 })
  await rx.waitFor(64, 10_000)
  expect(rx.connections.max).toBeLessThanOrEqual(64)

  await killed(server.child, 'SIGKILL')
  const again = await startRunning(['--data', data, '--callback-timeout', '100ms', '--callback-retries', '0'])
  const after = new SandboxClient(again.url)
  onTestFinished(() => after.close())
  const deliveries = await after.listDeliveries()
  expect(new Set(deliveries.map((d) => d.trackId))).toEqual(new Set(paid))
}, 60_000)

test('too few file descriptors to start (ulimit -n 40): exit 7 saying so and how to raise the limit, no stack, nothing written', async () => {
  const dir = await tempDir()
  const data = join(dir, 'data.json')
  // About 50 are needed: Node takes some 20 for itself, and loads the CLI's pieces all at once.
  const outcome = await startRefused(['--data', data], { shell: 'ulimit -n 40' })
  expect(outcome.code).toBe(ExitCode.startFailed)
  expect(outcome.stderr).toMatch(/^Error: too many open files \(EMFILE\) .*raise the limit of open files, e\.g\. `ulimit -n 1024`/)
  expect(outcome.stderr).not.toMatch(/\n\s+at /)
  expect(await readdir(dir)).toEqual([])
})
