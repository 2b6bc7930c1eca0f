import { spawn } from 'node:child_process'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, onTestFinished, test } from 'vitest'
import { BIN, exited, freePort, isAlive, pay, ROOT, sandbox, spawnSandbox, tempDir } from '../helpers.js'

/** Runs `pay` with stdin fed from `input`. */
function payWithInput(args: string[], input: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [BIN, ...args], { cwd: ROOT, env: { ...process.env, NO_COLOR: '1', CI: '1' } })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()))
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()))
  child.stdin.end(input)
  return exited(child).then((code) => ({ code, stdout, stderr }))
}

describe('pay sandbox start: where it listens', () => {
  test('with only PAY_SANDBOX_URL set, a detached start listens there, so status, wait and stop find it', async () => {
    const dir = await tempDir()
    const port = await freePort()
    const env = { PAY_SANDBOX_URL: `http://127.0.0.1:${port}` }
    const start = await pay(['sandbox', 'start', '--detach', '--json', '--data', join(dir, 'data.json')], { env })
    expect(start.code, start.stderr).toBe(0)
    const started = JSON.parse(start.stdout) as { url: string; pid: number }
    onTestFinished(() => {
      if (isAlive(started.pid)) process.kill(started.pid, 'SIGKILL')
    })
    expect(started.url).toBe(`http://127.0.0.1:${port}`)
    for (const command of [['sandbox', 'status'], ['sandbox', 'wait', '--timeout', '2s']]) {
      const r = await pay([...command, '--json'], { env })
      expect(r.code, r.stderr).toBe(0)
      expect(JSON.parse(r.stdout)).toMatchObject({ pid: started.pid })
    }
    expect((await pay(['sandbox', 'stop'], { env })).code).toBe(0)
    expect(isAlive(started.pid)).toBe(false)
  })

  test('--port beats PAY_SANDBOX_PORT, which beats PAY_SANDBOX_URL; the host comes from the URL when not given', async () => {
    const dir = await tempDir()
    const [a, b, c] = [await freePort(), await freePort(), await freePort()]
    const started = async (args: string[], env: Record<string, string>) => {
      const r = await pay(['sandbox', 'start', '--detach', '--json', ...args], { env })
      expect(r.code, r.stderr).toBe(0)
      const record = JSON.parse(r.stdout) as { url: string; pid: number }
      onTestFinished(() => {
        if (isAlive(record.pid)) process.kill(record.pid, 'SIGKILL')
      })
      await pay(['sandbox', 'stop', '--url', record.url])
      return record.url
    }
    const env = { PAY_SANDBOX_URL: `http://127.0.0.1:${c}`, PAY_SANDBOX_PORT: String(b) }
    // Three sandboxes on three data files, side by side: --port a on 127.0.0.1, PAY_SANDBOX_PORT b, then --port a
    // again on the URL's host (localhost, which 127.0.0.1 also is: it waits for the first to stop).
    const [first, second] = await Promise.all([started(['--port', String(a), '--data', join(dir, 'a.json')], env), started(['--data', join(dir, 'b.json')], env)])
    expect(first).toBe(`http://127.0.0.1:${a}`)
    expect(second).toBe(`http://127.0.0.1:${b}`)
    expect(await started(['--port', String(a), '--data', join(dir, 'c.json')], { PAY_SANDBOX_URL: `http://localhost:${c}` })).toBe(`http://localhost:${a}`)
  })

  test('a PAY_SANDBOX_URL that is not a sandbox address is a usage error naming it', async () => {
    const r = await pay(['sandbox', 'start', '--json'], { env: { PAY_SANDBOX_URL: 'https://127.0.0.1:8787' } })
    expect(r.code).toBe(2)
    expect(JSON.parse(r.stdout).error.message).toMatch(/^PAY_SANDBOX_URL must be the http:\/\/ address of a sandbox/)
  })

  test('the start banner names the inspector', async () => {
    const dir = await tempDir()
    const human = await pay(['sandbox', 'start', '--detach', '--port', '0', '--data', join(dir, 'other.json')])
    expect(human.code, human.stderr).toBe(0)
    const pid = Number(/pid\s+(\d+)/.exec(human.stdout)?.[1])
    onTestFinished(() => {
      if (isAlive(pid)) process.kill(pid, 'SIGKILL')
    })
    const url = /URL\s+(http:\S+)/.exec(human.stdout)?.[1]
    expect(human.stdout).toMatch(new RegExp(`inspector\\s+${url}/\\n`))
    await pay(['sandbox', 'stop', '--url', url!])
    const foreground = spawn(process.execPath, [BIN, 'sandbox', 'start', '--port', '0', '--data', join(dir, 'fg.json')], {
      cwd: ROOT,
      env: { ...process.env, NO_COLOR: '1', CI: '1' },
    })
    onTestFinished(() => void foreground.kill('SIGKILL'))
    let out = ''
    await new Promise<void>((r) => foreground.stdout.on('data', (c: Buffer) => ((out += c.toString()), /Ctrl-C to stop/.test(out) && r())))
    expect(out).toMatch(/inspector\s+http:\/\/127\.0\.0\.1:\d+\/\n/)
  })
})

describe('pay sandbox stop --if-running', () => {
  test('exit 0 when no sandbox runs (still 3 without the flag); stops one that runs', async () => {
    const none = await pay(['sandbox', 'stop', '--if-running', '--url', 'http://127.0.0.1:9', '--json'])
    expect(none.code).toBe(0)
    expect(JSON.parse(none.stdout)).toEqual({ stopped: false, url: 'http://127.0.0.1:9' })
    expect((await pay(['sandbox', 'stop', '--if-running', '--url', 'http://127.0.0.1:9'])).stdout).toContain('No sandbox running at http://127.0.0.1:9')
    expect((await pay(['sandbox', 'stop', '--url', 'http://127.0.0.1:9'])).code).toBe(3)

    const dir = await tempDir()
    const sb = await spawnSandbox(['--data', join(dir, 'data.json')])
    const stop = await pay(['sandbox', 'stop', '--if-running', '--url', sb.url, '--json'])
    expect(stop.code).toBe(0)
    expect(JSON.parse(stop.stdout)).toMatchObject({ stopped: true, pid: sb.pid })
    expect(await exited(sb.child)).toBe(0)
  })
})

describe('export - and import -', () => {
  test('export - writes the export to stdout and nothing else; import - loads it from stdin', async () => {
    const from = await sandbox()
    await from.client.createMerchant({ key: 'shop', name: 'Shop' })
    const created = await from.client.createPayment({ merchant: 'shop', amount: 3, callbackUrl: 'http://127.0.0.1:9/cb' })
    if (created.result !== 100) throw new Error(JSON.stringify(created))
    const dir = await tempDir()
    const exported = await pay(['sandbox', 'export', '-', '--url', from.url], { cwd: dir })
    expect(exported.code, exported.stderr).toBe(0)
    expect(JSON.parse(exported.stdout)).toEqual({ ...(await from.client.exportState()), exportedAt: expect.any(String) })
    expect(exported.stderr).toContain('Exported 2 merchants, 1 payments and 0 deliveries to stdout')
    expect(await readFile(join(dir, '-')).catch(() => 'absent')).toBe('absent')

    const to = await sandbox()
    const refused = await payWithInput(['sandbox', 'import', '-', '--url', to.url], exported.stdout)
    expect(refused.code).toBe(2)
    expect(refused.stderr).toContain('pass --yes to confirm')
    const loaded = await payWithInput(['sandbox', 'import', '-', '--yes', '--url', to.url, '--json'], exported.stdout)
    expect(loaded.code, loaded.stderr).toBe(0)
    expect((await to.client.getPayment(created.trackId)).payment.merchant).toBe('shop')

    const bad = await payWithInput(['sandbox', 'import', '-', '--yes', '--url', to.url], '{"not": "an export"')
    expect(bad.code).toBe(2)
    expect(bad.stderr).toContain('stdin is not a valid export file:\n  - the file is not valid JSON')
  })
})
