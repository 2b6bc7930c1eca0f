import { join } from 'node:path'
import { expect, test } from 'vitest'
import { configArgs, configFrom, draftOf } from '../../src/cli/sandbox-config.js'
import { SandboxClient } from '../../src/client/index.js'
import { exited, pay, spawnSandbox, tempDir } from '../helpers.js'

test('pay sandbox start --payment-ttl, --callback-mode and the chain flags take effect (env variables too)', async () => {
  const data = join(await tempDir(), 'data.json')
  const sb = await spawnSandbox(['--data', data, '--payment-ttl', '15m', '--confirmations', '3'], { env: { PAY_SANDBOX_CALLBACK_MODE: 'drop' } })
  const client = new SandboxClient(sb.url)
  const created = await client.createPayment({ merchant: 'sandbox', amount: 3, callbackUrl: 'https://shop.example/cb' })
  if (created.result !== 100) throw new Error(JSON.stringify(created))
  await client.advanceClock(15 * 60_000)
  const { payment, deliveries } = await client.getPayment(created.trackId)
  expect(payment.status).toBe('expired')
  expect(deliveries[0]).toMatchObject({ state: 'dropped', fault: { mode: 'drop', reason: 'sandbox default' } })
  expect((await client.chain()).confirmations.BTC).toBe(3)
  sb.child.kill('SIGTERM')
  expect(await exited(sb.child)).toBe(0)
})

test.each([
  [['--callback-chaos', '2'], /--callback-chaos must be the share of notifications to play a fault on, from 0 to 1/],
  [['--seed', '3'], /--seed seeds --callback-chaos; give --callback-chaos <rate> too/],
])('pay sandbox start %j is a usage error naming the flag (exit 2)', async (args, message) => {
  const r = await pay(['sandbox', 'start', '--port', '0', '--data', join(await tempDir(), 'd.json'), ...args])
  expect(r.code).toBe(2)
  expect(r.stderr).toMatch(message)
})

test.each([
  [{ 'callback-mode': 'lose' }, /^--callback-mode: callback mode must be send, drop, delay=<duration>/],
  [{ 'payment-ttl': '10ms' }, /^--payment-ttl must be a duration from 1s to 24h/],
  [{ 'block-time': 'often' }, /^--block-time must be a duration from 1s to 24h/],
  [{ confirmations: 0 }, /^--confirmations must be a whole number from 1 to 1000 \(got 0\)/],
])('the flags %j are refused, naming the flag', (flags, message) => {
  expect(() => configFrom(flags)).toThrow(message)
})

test('a detached sandbox gets the same settings: the flags read back as the options they came from', () => {
  const config = configFrom({ 'callback-mode': 'delay=1.5m', 'callback-chaos': '0.25', seed: 9, 'payment-ttl': '90s', confirmations: 4, 'block-time': '2m' })
  const options = draftOf(config)
  expect(options).toEqual({
    callbackFaults: { mode: { mode: 'delay', delayMs: 90_000 }, chaos: { rate: 0.25, seed: 9 } },
    paymentTtlMs: 90_000,
    chain: { confirmations: 4, blockTimeMs: 120_000 },
  })
  const args = configArgs(config)
  const flags: Record<string, string> = {}
  for (let i = 0; i < args.length; i += 2) flags[args[i]!.slice(2)] = args[i + 1]!
  expect(draftOf(configFrom({ ...flags, seed: Number(flags.seed), confirmations: Number(flags.confirmations) }))).toEqual(options)
  // Chaos without a seed gets one, so that the run can be told and replayed.
  expect(draftOf(configFrom({ 'callback-chaos': '0.5' }, () => 1234)).callbackFaults?.chaos).toEqual({ rate: 0.5, seed: 1234 })
})
