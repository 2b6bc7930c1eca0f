import { request } from 'node:http'
import { join } from 'node:path'
import { describe, expect, onTestFinished, test } from 'vitest'
import { SandboxClient } from '../../src/client/index.js'
import { pay, sandbox, spawnSandbox, tempDir } from '../helpers.js'

const PUBLIC = 'https://pay-dev.example.test'

/** A GET with this Host header, as a tunnel or a LAN name forwards it. */
function getWithHost(url: string, path: string, host: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const r = request(new URL(path, url), { headers: { host } }, (res) => {
      let text = ''
      res.on('data', (c: Buffer) => (text += c.toString()))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }))
    })
    r.on('error', reject)
    r.end()
  })
}

describe('pay sandbox start --public-url: every checkout URL the sandbox hands out starts with it', () => {
  test('health, the CLI, the inspector; its host name is answered, no other', async () => {
    const sb = await spawnSandbox(['--public-url', `${PUBLIC}/`, '--data', join(await tempDir(), 'data.json')])
    const env = { PAY_SANDBOX_URL: sb.url }
    const client = new SandboxClient(sb.url)
    expect((await client.health()).settings?.publicUrl).toBe(PUBLIC)

    const created = await pay(['payment', 'create', '--amount', '25', '--callback-url', 'http://127.0.0.1:9/cb', '--json'], { env })
    expect(created.code, created.stderr).toBe(0)
    const { trackId, checkoutUrl } = JSON.parse(created.stdout) as { trackId: string; checkoutUrl: string }
    expect(checkoutUrl).toBe(`${PUBLIC}/pay/${trackId}`)
    const human = await pay(['payment', 'create', '--amount', '25', '--callback-url', 'http://127.0.0.1:9/cb'], { env })
    expect(human.stdout).toMatch(new RegExp(`checkout\\s+${PUBLIC}/pay/[\\w-]{22}\\n`))
    expect((await pay(['payment', 'show', trackId], { env })).stdout).toMatch(new RegExp(`checkout\\s+${PUBLIC}/pay/${trackId}\\n`))
    const trigger = await pay(['trigger', 'paid', '--callback-url', 'http://127.0.0.1:9/cb', '--wait', '2s', '--json'], { env })
    expect(JSON.parse(trigger.stdout)).toMatchObject({ checkoutUrl: expect.stringMatching(new RegExp(`^${PUBLIC}/pay/`)) })
    // The checkout URL given as an argument works like the trackId.
    expect((await pay(['payment', 'simulate', checkoutUrl, '--outcome', 'paid'], { env })).code).toBe(0)

    const home = await (await fetch(`${sb.url}/`)).text()
    expect(home).toContain(`<dt>Checkout</dt><dd><code>${PUBLIC}/pay/&lt;trackId&gt;</code></dd>`)
    const page = await (await fetch(`${sb.url}/inspect/payments/${trackId}`)).text()
    expect(page).toContain(`<dt>Checkout URL</dt><dd><code class="path">${PUBLIC}/pay/${trackId}</code></dd>`)

    // A tunnel forwards the public name as the Host: answered, as the name the developer gave.
    expect((await getWithHost(sb.url, `/pay/${trackId}`, 'pay-dev.example.test')).status).toBe(200)
    const other = await getWithHost(sb.url, '/_sandbox/health', 'other.example.test')
    expect(other.status).toBe(403)
  })

  test('startSandbox({publicUrl}): its client knows the checkout URLs at once', async () => {
    const sb = await sandbox({ publicUrl: 'http://192.168.1.20:8787' })
    expect(sb.client.checkoutUrl('abc')).toBe('http://192.168.1.20:8787/pay/abc')
    expect((await sb.client.health()).settings?.publicUrl).toBe('http://192.168.1.20:8787')
  })

  test.each([
    ['ftp://pay.example.test', 'must be an http:// or https:// URL'],
    ['https://user:secret@pay.example.test', 'must be an http:// or https:// URL'],
    ['https://pay.example.test/?x=1', 'must be an http:// or https:// URL with a host, without credentials, query or fragment'],
    ['pay.example.test', 'must be an http:// or https:// URL'],
  ])('--public-url %s: a usage error (exit 2) naming the flag, nothing started', async (value, message) => {
    const r = await pay(['sandbox', 'start', '--port', '0', '--public-url', value, '--data', join(await tempDir(), 'data.json')])
    expect(r.code).toBe(2)
    expect(r.stderr).toContain(`Error: --public-url ${message}`)
  })

  test('--detach passes it on, and sandbox exec takes it too', async () => {
    const dir = await tempDir()
    const started = await pay(['sandbox', 'start', '--detach', '--port', '0', '--data', join(dir, 'data.json'), '--public-url', PUBLIC, '--telegram-allow-local-urls', '--json'])
    expect(started.code, started.stderr).toBe(0)
    const { url } = JSON.parse(started.stdout) as { url: string }
    onTestFinished(() => void pay(['sandbox', 'stop', '--url', url]))
    expect((await new SandboxClient(url).health()).settings).toMatchObject({ publicUrl: PUBLIC, telegram: { allowLocalUrls: true } })
    expect((await pay(['sandbox', 'stop', '--url', url])).code).toBe(0)

    const script = `fetch(process.env.PAY_SANDBOX_URL + '/_sandbox/health').then((r) => r.json()).then((h) => console.log(h.settings.publicUrl))`
    // A data file of its own: the exec test counts the temporary folders exec leaves.
    const run = await pay(['sandbox', 'exec', '--data', join(dir, 'exec.json'), '--public-url', PUBLIC, '--', process.execPath, '-e', script])
    expect(run.code, run.stderr).toBe(0)
    expect(run.stdout).toBe(`${PUBLIC}\n`)
  })
})
