import { createServer } from 'node:net'
import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, onTestFinished, test } from 'vitest'
import { SandboxClient } from '../../src/client/index.js'
import { exited, isAlive, pay, sandbox, spawnSandbox, tempDir } from '../helpers.js'

/** `pay sandbox start --detach`, with the background process killed if the test leaves it running. */
async function detach(args: string[]) {
  const r = await pay(['sandbox', 'start', '--detach', '--json', '--port', '0', ...args])
  if (r.code === 0) {
    const started = JSON.parse(r.stdout) as { url: string; pid: number; dataFile: string; log: string }
    onTestFinished(() => {
      if (isAlive(started.pid)) process.kill(started.pid, 'SIGKILL')
    })
    return { ...r, started }
  }
  return { ...r, started: undefined }
}

async function paidPayment(client: SandboxClient): Promise<string> {
  const created = await client.createPayment({ merchant: 'sandbox', amount: 12.5, callbackUrl: 'http://127.0.0.1:9/cb' })
  if (created.result !== 100) throw new Error(JSON.stringify(created))
  await client.simulate(created.trackId, { outcome: 'paid' })
  return created.trackId
}

describe('start --detach and stop', () => {
  test('detach prints URL and pid and returns; a second start on the data file is refused; stop saves and ends it', async () => {
    const dir = await tempDir()
    const data = join(dir, 'data.json')
    const first = await detach(['--data', data])
    expect(first.code).toBe(0)
    const started = first.started!
    expect(started).toMatchObject({ url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/), dataFile: data, log: `${data}.log` })
    expect(isAlive(started.pid)).toBe(true)
    const client = new SandboxClient(started.url)
    onTestFinished(() => client.close())
    expect((await client.health()).pid).toBe(started.pid)
    const trackId = await paidPayment(client)

    const status = await pay(['sandbox', 'status', '--url', started.url, '--json'])
    expect(status.code).toBe(0)
    expect(JSON.parse(status.stdout)).toMatchObject({ ok: true, pid: started.pid })

    const again = await detach(['--data', data])
    expect(again.code).toBe(7)
    expect(again.stderr).toContain(`data file ${data} is in use by the sandbox at ${started.url} (pid ${started.pid})`)
    expect(JSON.parse(again.stdout)).toEqual({ error: expect.objectContaining({ exit: 7, message: expect.stringContaining('in use') }) })

    const stop = await pay(['sandbox', 'stop', '--url', started.url, '--json'])
    expect(stop.code).toBe(0)
    expect(JSON.parse(stop.stdout)).toEqual({ stopped: true, url: started.url, pid: started.pid, dataFile: data })
    expect(isAlive(started.pid)).toBe(false)
    const saved = JSON.parse(await readFile(data, 'utf8')) as { payments: Array<{ trackId: string; status: string }> }
    expect(saved.payments).toEqual([expect.objectContaining({ trackId, status: 'paid' })])
    expect(await readFile(`${data}.log`, 'utf8')).toMatch(/shutdown requested: finishing requests and saving/)

    const down = await pay(['sandbox', 'status', '--url', started.url, '--json'])
    expect(down.code).toBe(3)
    expect(JSON.parse(down.stdout)).toEqual({ error: expect.objectContaining({ code: 'unreachable', exit: 3 }) })
    expect((await pay(['sandbox', 'stop', '--url', started.url])).code).toBe(3)
  })

  test('detach on a port in use relays the start failure (exit 7) instead of waiting', async () => {
    const blocker = createServer()
    await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', r))
    onTestFinished(() => new Promise<void>((r) => blocker.close(() => r())))
    const port = (blocker.address() as { port: number }).port
    const dir = await tempDir()
    const r = await pay(['sandbox', 'start', '--detach', '--port', String(port), '--data', join(dir, 'd.json')])
    expect(r.code).toBe(7)
    expect(r.stderr).toContain(`port ${port} on 127.0.0.1 is in use`)
    expect(r.stdout).toBe('')
  })

  test('stop ends a foreground sandbox the same way as SIGTERM (exit 0, state saved)', async () => {
    const dir = await tempDir()
    const data = join(dir, 'data.json')
    const fg = await spawnSandbox(['--data', data])
    const client = new SandboxClient(fg.url)
    onTestFinished(() => client.close())
    const trackId = await paidPayment(client)
    const stop = await pay(['sandbox', 'stop', '--url', fg.url])
    expect(stop.code).toBe(0)
    expect(stop.stdout).toContain(`Stopped the sandbox at ${fg.url} (pid ${fg.pid})`)
    expect(await exited(fg.child)).toBe(0)
    expect(await readFile(data, 'utf8')).toContain(trackId)
  })

  test('the shutdown endpoint of a programmatic sandbox stops it', async () => {
    const sb = await sandbox()
    const res = await sb.client.raw({ method: 'POST', path: '/_sandbox/shutdown', body: {} })
    expect(res.status).toBe(202)
    expect(res.json).toMatchObject({ ok: true, stopping: true, pid: process.pid })
    await expect.poll(async () => sb.client.health().then(() => 'up', () => 'down')).toBe('down')
  })
})

describe('wait', () => {
  test('exits 0 once a sandbox answers and 6 with a message after --timeout', async () => {
    const sb = await sandbox()
    const up = await pay(['sandbox', 'wait', '--url', sb.url, '--json'])
    expect(up.code).toBe(0)
    expect(JSON.parse(up.stdout)).toMatchObject({ ok: true, url: sb.url })

    const started = Date.now()
    const down = await pay(['sandbox', 'wait', '--url', 'http://127.0.0.1:9', '--timeout', '400ms', '--json'])
    expect(down.code).toBe(6)
    expect(Date.now() - started).toBeGreaterThanOrEqual(400)
    expect(JSON.parse(down.stdout)).toEqual({
      error: { code: 'timeout', message: 'no sandbox answered at http://127.0.0.1:9 within 400ms', exit: 6 },
    })
    const bad = await pay(['sandbox', 'wait', '--timeout', 'soon'])
    expect(bad.code).toBe(2)
    expect(bad.stderr).toContain('--timeout must be a duration from 0ms to 24h')
  })
})

describe('reset, export, import', () => {
  test('reset refuses without --yes when no one can be asked; with --yes clears payments and deliveries and keeps merchants', async () => {
    const sb = await sandbox()
    await sb.client.createMerchant({ key: 'shop_1' })
    await paidPayment(sb.client)
    const refused = await pay(['sandbox', 'reset', '--url', sb.url])
    expect(refused.code).toBe(2)
    expect(refused.stderr).toContain('pass --yes to confirm')
    expect((await sb.client.health()).counts.payments).toBe(1)

    const r = await pay(['sandbox', 'reset', '--url', sb.url, '--yes', '--json'])
    expect(r.code).toBe(0)
    expect(JSON.parse(r.stdout)).toEqual({ cleared: { payments: 1, deliveries: expect.any(Number), faults: 0 }, kept: { merchants: 2 } })
    expect((await sb.client.health()).counts).toMatchObject({ merchants: 2, payments: 0, deliveries: 0 })
    expect((await sb.client.listMerchants()).map((m) => m.key).sort()).toEqual(['sandbox', 'shop_1'])
  })

  test('export writes one versioned file that import loads into another sandbox', async () => {
    const from = await sandbox()
    await from.client.createMerchant({ key: 'shop_1', name: 'Shop' })
    await from.client.setMerchantEnabled('shop_1', false)
    const trackId = await paidPayment(from.client)
    const file = join(await tempDir(), 'state.json')
    const exp = await pay(['sandbox', 'export', file, '--url', from.url, '--json'])
    expect(exp.code).toBe(0)
    expect(JSON.parse(exp.stdout)).toMatchObject({ file, merchants: 2, payments: 1 })
    const text = await readFile(file, 'utf8')
    const written = JSON.parse(text) as Record<string, unknown>
    expect(written).toMatchObject({ format: 'pay-sandbox-export', version: 1, exportedAt: expect.any(String) })
    // One record per line, like the data file: readable, diffable, and no bigger than the import body.
    const lines = text.split('\n').map((line) => line.replace(/,$/, ''))
    for (const record of [...(written.merchants as object[]), ...(written.payments as object[])]) expect(lines).toContain(JSON.stringify(record))
    expect(Object.keys(written).sort()).toEqual(['deliveries', 'exportedAt', 'format', 'merchants', 'payments', 'sandboxVersion', 'version'])

    const to = await sandbox()
    await paidPayment(to.client)
    const refused = await pay(['sandbox', 'import', file, '--url', to.url])
    expect(refused.code).toBe(2)
    const imp = await pay(['sandbox', 'import', file, '--url', to.url, '--yes'])
    expect(imp.code).toBe(0)
    expect(imp.stdout).toMatch(/Loaded 2 merchants, 1 payments and \d+ deliveries from/)
    expect(await to.client.exportState()).toMatchObject({
      merchants: (await from.client.exportState()).merchants,
      payments: (await from.client.exportState()).payments,
    })
    expect(await to.client.verifyPayment({ merchant: 'sandbox', trackId })).toMatchObject({ result: 100, amount: 12.5 })
    expect(await to.client.verifyPayment({ merchant: 'shop_1', trackId })).toMatchObject({ result: 103 })
  })

  test.each([
    ['missing file', null, /cannot read .*missing\.json: ENOENT/],
    ['not JSON', '{"format": ', /bad\.json is not a valid export file:\n\s+- the file is not valid JSON: it ends before its object does/],
    ['wrong format', { format: 'other', version: 1, merchants: [], payments: [], deliveries: [] }, /format must be "pay-sandbox-export" \(got "other"\)/],
    ['newer version', { format: 'pay-sandbox-export', version: 2, merchants: [], payments: [], deliveries: [] }, /version must be 1 \(got 2\)/],
    ['bad record fields', 'FIELDS', /payments\[0\]\.amount must be a number greater than 0 and at most 1e12 \(got -1\)\n\s+- payments\[0\]\.history\[0\]\.source must be one of api, checkout, control, clock, chain \(got "robot"\)/],
    ['dangling reference', 'DANGLING', /payments\[0\]\.merchant "ghost" is not one of the file's merchants/],
    ['an amount beyond the API bound', 'HUGE_AMOUNT', /bad\.json is not a valid export file:\n\s+- payments\[0\]\.amount must be .*\(got 1\.79e\+308\)/],
    ['CR LF in a delivery event', 'CRLF_EVENT', /bad\.json is not a valid export file:\n\s+- deliveries\[0\]\.event must be "payment\.status_changed" \(got "x\\r\\nX-Injected: 1"\)/],
    ['nesting 20,000 levels deep', 'DEEP', /bad\.json is not a valid export file:\n\s+- deliveries\[0\]\.body\.x\[0\]\[0\] nests deeper than 4 levels/],
  ])('import refuses an invalid file (%s), naming it, and changes nothing', async (name, content, message) => {
    const sb = await sandbox()
    const trackId = await paidPayment(sb.client)
    const good = await sb.client.exportState()
    const dir = await tempDir()
    const file = join(dir, name === 'missing file' ? 'missing.json' : 'bad.json')
    if (content === 'FIELDS') {
      const p = good.payments[0]!
      await writeFile(file, JSON.stringify({ ...good, payments: [{ ...p, amount: -1, history: [{ ...p.history[0], source: 'robot' }, ...p.history.slice(1)] }] }))
    } else if (content === 'DANGLING') {
      await writeFile(file, JSON.stringify({ ...good, payments: [{ ...good.payments[0], merchant: 'ghost' }] }))
    } else if (content === 'HUGE_AMOUNT') {
      await writeFile(file, JSON.stringify({ ...good, payments: [{ ...good.payments[0], amount: 1.79e308 }] }))
    } else if (content === 'CRLF_EVENT') {
      await writeFile(file, JSON.stringify({ ...good, deliveries: [{ ...good.deliveries[0], event: 'x\r\nX-Injected: 1' }] }))
    } else if (content === 'DEEP') {
      const levels = 20_000
      await writeFile(file, JSON.stringify(good).replace('"sandbox":true}', `"sandbox":true,"x":${'['.repeat(levels)}${']'.repeat(levels)}}`))
    } else if (content !== null) {
      await writeFile(file, typeof content === 'string' ? content : JSON.stringify(content))
    }
    const r = await pay(['sandbox', 'import', file, '--url', sb.url, '--yes'])
    expect(r.code).toBe(2)
    expect(r.stderr).toMatch(message)
    expect(r.stdout).toBe('')
    expect((await sb.client.getPayment(trackId)).payment.status).toBe('paid')
  })

  test('the import endpoint checks the file too: 400 with the problems, nothing changed', async () => {
    const sb = await sandbox()
    const res = await sb.client.raw({ method: 'POST', path: '/_sandbox/import', body: { format: 'pay-sandbox-export', version: 1, merchants: [{}], payments: [], deliveries: [] } })
    expect(res.status).toBe(400)
    expect(res.json).toMatchObject({ error: 'invalid_body', message: expect.stringContaining('merchants[0].key is missing') })
    expect((await sb.client.health()).counts.merchants).toBe(1)
  })
})
