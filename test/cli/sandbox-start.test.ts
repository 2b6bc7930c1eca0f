import { spawn } from 'node:child_process'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { expect, test } from 'vitest'
import { SandboxClient } from '../../src/client/index.js'
import { BIN, exited, pay, spawnSandbox, tempDir } from '../helpers.js'

test('start prints URL, data file and merchant key; SIGTERM saves the state and exits 0; a restart has it all', async () => {
  const dir = await tempDir()
  const data = join(dir, 'state', 'data.json')
  const first = await spawnSandbox(['--data', data])
  expect(first.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
  expect(first.dataFile).toBe(data)
  const client = new SandboxClient(first.url)
  const created = await client.createPayment({ merchant: 'sandbox', amount: 42, callbackUrl: 'http://localhost/cb' })
  if (created.result !== 100) throw new Error(JSON.stringify(created))
  await client.simulate(created.trackId, { outcome: 'paid' })
  const paid = await client.verifyPayment({ merchant: 'sandbox', trackId: created.trackId })
  first.child.kill('SIGTERM')
  expect(await exited(first.child)).toBe(0)
  expect(first.output()).toMatch(/POST \/api\/v1\/request 200 result=100 trackId=\S+ [\d.]+ms/)
  const saved = JSON.parse(await readFile(data, 'utf8')) as { payments: Array<{ trackId: string; status: string }> }
  expect(saved.payments).toEqual([expect.objectContaining({ trackId: created.trackId, status: 'paid' })])

  const second = await spawnSandbox(['--data', data])
  const again = new SandboxClient(second.url)
  expect(await again.verifyPayment({ merchant: 'sandbox', trackId: created.trackId })).toEqual(paid)
  second.child.kill('SIGINT')
  expect(await exited(second.child)).toBe(0)
})

test('human start banner names the URL, data file and default merchant key; env vars set port and data', async () => {
  const dir = await tempDir()
  const child = spawn(process.execPath, [BIN, 'sandbox', 'start'], {
    cwd: dir,
    env: { ...process.env, NO_COLOR: '1', PAY_SANDBOX_PORT: '0', PAY_SANDBOX_DATA: 'custom.json' },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let out = ''
  child.stdout.on('data', (c: Buffer) => (out += c.toString()))
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no banner: ${out}`)), 15_000)
    child.stdout.on('data', () => {
      if (out.includes('Ctrl-C to stop')) {
        clearTimeout(timer)
        resolve()
      }
    })
  })
  expect(out).toMatch(/URL\s+http:\/\/127\.0\.0\.1:\d+/)
  expect(out).toContain(`data file     ${join(dir, 'custom.json')}`)
  expect(out).toMatch(/merchant key\s+sandbox/)
  child.kill('SIGTERM')
  expect(await exited(child)).toBe(0)
})

test('an invalid port is a usage error', async () => {
  const r = await pay(['sandbox', 'start', '--port', '70000'])
  expect(r.code).toBe(2)
  expect(r.stderr).toMatch(/70000/)
})
