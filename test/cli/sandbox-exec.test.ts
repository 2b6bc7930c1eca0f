import { spawn } from 'node:child_process'
import { chmod, mkdir, readdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { beforeAll, expect, test } from 'vitest'
import type { ExportFile } from '../../src/client/index.js'
import { exportFileText } from '../../src/domain/transfer.js'
import { exportMadeThroughApi } from '../export-files.js'
import { BIN, exited, pay, spawnSandbox, tempDir } from '../helpers.js'
import { startRunning } from '../reliability/proc.js'

/** A node one-liner as a command for `pay sandbox exec --`. */
const node = (script: string) => [process.execPath, '-e', script]

/** Temporary data folders `sandbox exec` made in `dir` and did not remove. */
const leftovers = async (dir: string) => (await readdir(dir)).filter((name) => name.startsWith('pay-sandbox-exec-'))

let seed: ExportFile
beforeAll(async () => {
  seed = await exportMadeThroughApi()
})

test('the command\'s exit code (0, 3, 42) is the exit code, and the temporary data is removed', async () => {
  // A temporary folder of their own: other tests and other checkouts' suites run sandbox exec in the shared one.
  const tmp = await tempDir()
  // Each command counts the sandboxes' temporary folders there while it runs: its own at least.
  const count = "process.stdout.write(String(require('fs').readdirSync(require('os').tmpdir()).filter((n) => n.startsWith('pay-sandbox-exec-')).length))"
  const runs = await Promise.all([0, 3, 42].map((code) => pay(['sandbox', 'exec', '--', ...node(`${count}; process.exit(${code})`)], { env: { TMPDIR: tmp } })))
  expect(runs.map((r) => r.code)).toEqual([0, 3, 42])
  for (const run of runs) expect(Number(run.stdout)).toBeGreaterThanOrEqual(1)
  expect(await leftovers(tmp)).toEqual([])
})

test('the command sees PAY_SANDBOX_URL and PAY_MERCHANT_KEY of a running sandbox; its stdout and stderr pass through', async () => {
  const script = `
    const r = await fetch(process.env.PAY_SANDBOX_URL + '/api/v1/request', { method: 'POST', headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ merchant: process.env.PAY_MERCHANT_KEY, amount: 5, callbackUrl: 'http://127.0.0.1:9/cb' }) })
    console.log(JSON.stringify({ url: process.env.PAY_SANDBOX_URL, key: process.env.PAY_MERCHANT_KEY, answer: await r.json() }))
    console.error('to stderr')`
  const run = await pay(['sandbox', 'exec', '--', process.execPath, '--input-type=module', '-e', script])
  expect(run.code, run.stderr).toBe(0)
  const seen = JSON.parse(run.stdout) as { url: string; key: string; answer: { result: number } }
  expect(seen.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
  expect(seen.key).toBe('sandbox')
  expect(seen.answer.result).toBe(100)
  expect(run.stderr).toBe('to stderr\n')
})

test('--data is kept after the run, with what the command did; --log has the request log', async () => {
  const dir = await tempDir()
  const data = join(dir, 'kept.json')
  const log = join(dir, 'sandbox.log')
  const script = `fetch(process.env.PAY_SANDBOX_URL + '/_sandbox/merchants', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"key":"kept_1"}' }).then(r => process.exit(r.status === 201 ? 0 : 1))`
  const run = await pay(['sandbox', 'exec', '--data', data, '--log', log, '--', ...node(script)])
  expect(run.code, run.stderr).toBe(0)
  expect(run.stdout).toBe('')
  const saved = JSON.parse(await readFile(data, 'utf8')) as { merchants: Array<{ key: string }> }
  expect(saved.merchants.map((m) => m.key)).toContain('kept_1')
  expect(await readFile(log, 'utf8')).toMatch(/POST \/_sandbox\/merchants 201 [\d.]+ms/)
})

test('a command that is not found is exit 127 with a clear message; one that cannot be run, 126; no command at all, exit 2', async () => {
  const dir = await tempDir()
  const script = join(dir, 'not-executable.sh')
  await writeFile(script, '#!/bin/sh\nexit 0\n')
  await chmod(script, 0o644)
  const [run, denied, none] = await Promise.all([
    pay(['sandbox', 'exec', '--', 'pay-no-such-command-x']),
    pay(['sandbox', 'exec', '--', script]),
    pay(['sandbox', 'exec']),
  ])
  expect(run.code).toBe(127)
  expect(run.stderr).toContain('Error: command not found: pay-no-such-command-x')
  expect(denied.code).toBe(126)
  expect(denied.stderr).toContain('permission denied')
  expect(none.code).toBe(2)
  expect(none.stderr).toContain('missing the command to run, after --')
})

test('a sandbox that cannot start is exit 7 and the command never runs', async () => {
  const running = await startRunning([])
  const port = new URL(running.url).port
  const dir = await tempDir()
  const marker = join(dir, 'ran')
  const run = await pay(['sandbox', 'exec', '--port', port, '--', ...node(`require('fs').writeFileSync(${JSON.stringify(marker)}, '')`)])
  expect(run.code).toBe(7)
  expect(run.stderr).toContain(`port ${port} on 127.0.0.1 is in use`)
  await expect(readFile(marker)).rejects.toThrow()
})

test('a signal that ends the command is 128+n; Ctrl-C is passed on to the command, and the sandbox still saves', async () => {
  const killed = await pay(['sandbox', 'exec', '--', 'sh', '-c', 'kill -TERM $$'])
  expect(killed.code).toBe(128 + 15)

  const dir = await tempDir()
  const data = join(dir, 'data.json')
  const ready = join(dir, 'ready')
  // The command waits for SIGINT, then creates a merchant and exits 5: the sandbox must still be there for it.
  const script = `
    require('fs').writeFileSync(${JSON.stringify(ready)}, '')
    process.on('SIGINT', async () => {
      const r = await fetch(process.env.PAY_SANDBOX_URL + '/_sandbox/merchants', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"key":"after_int"}' })
      process.exit(r.status === 201 ? 5 : 1)
    })
    setInterval(() => {}, 1000)`
  const child = spawn(process.execPath, [BIN, 'sandbox', 'exec', '--data', data, '--', ...node(script)], { stdio: 'ignore', env: { ...process.env, CI: '1' } })
  await expect.poll(() => readFile(ready).then(() => true, () => false), { timeout: 30_000 }).toBe(true)
  child.kill('SIGINT')
  expect(await exited(child)).toBe(5)
  const saved = JSON.parse(await readFile(data, 'utf8')) as { merchants: Array<{ key: string }> }
  expect(saved.merchants.map((m) => m.key)).toContain('after_int')
})

test('exec --import seeds the sandbox the command sees; --export-on-exit writes what it left', async () => {
  const dir = await tempDir()
  const seedFile = join(dir, 'seed.json')
  const out = join(dir, 'out.json')
  await writeFile(seedFile, exportFileText(seed))
  const script = `
    const h = await (await fetch(process.env.PAY_SANDBOX_URL + '/_sandbox/health')).json()
    if (h.counts.payments !== ${seed.payments.length}) process.exit(9)
    await fetch(process.env.PAY_SANDBOX_URL + '/_sandbox/merchants', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"key":"added_1"}' })`
  const run = await pay(['sandbox', 'exec', '--import', seedFile, '--export-on-exit', out, '--', process.execPath, '--input-type=module', '-e', script])
  expect(run.code, run.stderr).toBe(0)
  const exported = JSON.parse(await readFile(out, 'utf8')) as ExportFile
  expect(exported.payments).toEqual(seed.payments)
  expect(exported.merchants.map((m) => m.key)).toEqual([...seed.merchants.map((m) => m.key), 'added_1'])
})

test('start --import replaces the data file\'s state before serving; an invalid file is exit 2 and changes nothing', async () => {
  const dir = await tempDir()
  const data = join(dir, 'data.json')
  const seedFile = join(dir, 'seed.json')
  await writeFile(seedFile, exportFileText(seed))
  // A data file with a state of its own, which the import replaces.
  const first = await spawnSandbox(['--data', data, '--quiet'])
  await fetch(`${first.url}/_sandbox/merchants`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"key":"old_1"}' })
  first.child.kill('SIGTERM')
  expect(await exited(first.child)).toBe(0)
  const before = await readFile(data, 'utf8')

  const bad = join(dir, 'bad.json')
  await writeFile(bad, exportFileText({ ...seed, payments: [{ ...seed.payments[0]!, amount: -1 }] }))
  const refused = await pay(['sandbox', 'start', '--port', '0', '--data', data, '--import', bad])
  expect(refused.code).toBe(2)
  expect(refused.stderr).toContain(`--import: ${bad} is not a valid export file:`)
  expect(refused.stderr).toContain('payments[0].amount')
  expect(await readFile(data, 'utf8')).toBe(before)

  const seeded = await spawnSandbox(['--data', data, '--quiet', '--import', seedFile])
  const health = (await (await fetch(`${seeded.url}/_sandbox/health`)).json()) as { counts: Record<string, number> }
  expect(health.counts).toMatchObject({ merchants: seed.merchants.length, payments: seed.payments.length })
  const merchants = (await (await fetch(`${seeded.url}/_sandbox/merchants`)).json()) as { merchants: Array<{ key: string }> }
  expect(merchants.merchants.map((m) => m.key)).not.toContain('old_1')
  seeded.child.kill('SIGTERM')
  expect(await exited(seeded.child)).toBe(0)
})

test('start --export-on-exit writes the state on SIGTERM, SIGINT and pay sandbox stop; a failed write is exit 1', async () => {
  const dir = await tempDir()
  const stopOne = async (how: 'SIGTERM' | 'SIGINT' | 'stop') => {
    const out = join(dir, `${how}.json`)
    const sb = await spawnSandbox(['--data', join(dir, `${how}-data.json`), '--quiet', '--export-on-exit', out])
    await fetch(`${sb.url}/_sandbox/merchants`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: `{"key":"m_${how}"}` })
    if (how === 'stop') expect((await pay(['sandbox', 'stop', '--url', sb.url])).code).toBe(0)
    else sb.child.kill(how)
    expect(await exited(sb.child)).toBe(0)
    const exported = JSON.parse(await readFile(out, 'utf8')) as ExportFile
    expect(exported.format).toBe('pay-sandbox-export')
    expect(exported.merchants.map((m) => m.key)).toContain(`m_${how}`)
  }
  await Promise.all((['SIGTERM', 'SIGINT', 'stop'] as const).map(stopOne))
  const blocked = join(dir, 'blocked')
  await mkdir(blocked)
  const sb = await spawnSandbox(['--data', join(dir, 'blocked-data.json'), '--quiet', '--export-on-exit', join(blocked, 'no', 'such', 'dir.json')])
  sb.child.kill('SIGTERM')
  expect(await exited(sb.child)).toBe(1)
  expect(sb.output()).toMatch(/Error: --export-on-exit: cannot write .*dir\.json: ENOENT/)
})

test('the lab flags shape the sandbox the command runs against, as they do for sandbox start', async () => {
  const script = `
    const chain = await (await fetch(process.env.PAY_SANDBOX_URL + '/_sandbox/chain')).json()
    console.log(JSON.stringify(chain.confirmations))`
  const run = await pay(['sandbox', 'exec', '--confirmations', '7', '--', process.execPath, '--input-type=module', '-e', script])
  expect(run.code, run.stderr).toBe(0)
  const confirmations = JSON.parse(run.stdout) as Record<string, number>
  expect(Object.keys(confirmations).length).toBeGreaterThan(0)
  expect(new Set(Object.values(confirmations))).toEqual(new Set([7]))
  const refused = await pay(['sandbox', 'exec', '--callback-mode', 'lose', '--', ...node('process.exit(0)')])
  expect(refused.code).toBe(2)
  expect(refused.stderr).toMatch(/--callback-mode/)
})
