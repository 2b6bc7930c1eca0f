import { writeFile } from 'node:fs/promises'
import { createServer } from 'node:http'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { describe, expect, onTestFinished, test } from 'vitest'
import type { SandboxClient } from '../../src/client/index.js'
import { tempDir } from '../helpers.js'
import { browserSuite, OUTPUT } from './chromium.js'

// The browser resolves this name to the sandbox's address: what DNS rebinding achieves.
const REBOUND = 'rebind.example'
// What Chromium logs for the hostile pages' refused requests: their point, not a fault of the sandbox's pages.
const REFUSED = [/CORS policy/, /Failed to load resource/]

/**
 * What a hostile page tries against the sandbox: each request a page can send without the sandbox's consent,
 * plus one that needs a preflight. Results land in window.attack; the forms post into frames so the page stays.
 */
function attackPage(sandboxUrl: string, trackId: string): string {
  const simulate = `${sandboxUrl}/pay/${trackId}/simulate`
  return `<!doctype html><html><head><title>Win a prize</title></head><body>
<h1>Totally harmless page</h1>
<form id="form" method="post" action="${simulate}" target="sink1"><input name="outcome" value="paid"></form>
<form id="plain" method="post" enctype="text/plain" action="${simulate}" target="sink2"><input name='{"outcome":"paid","x":"' value='"}'></form>
<iframe name="sink1"></iframe><iframe name="sink2"></iframe>
<pre id="out"></pre>
<script>
const S = ${JSON.stringify(sandboxUrl)}
const results = {}
async function attempt(name, run) {
  try { results[name] = String(await run()) } catch (e) { results[name] = 'failed: ' + e.message }
}
(async () => {
  await attempt('no-cors reset', () => fetch(S + '/_sandbox/reset', { method: 'POST', mode: 'no-cors' }).then((r) => r.type))
  await attempt('no-cors reset, text body', () => fetch(S + '/_sandbox/reset', { method: 'POST', mode: 'no-cors', body: '{}' }).then((r) => r.type))
  await attempt('json reset (preflight)', () => fetch(S + '/_sandbox/reset', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' }).then((r) => r.status))
  await attempt('read export', () => fetch(S + '/_sandbox/export').then((r) => r.text()))
  await attempt('beacon shutdown', () => navigator.sendBeacon(S + '/_sandbox/shutdown'))
  document.getElementById('form').submit()
  document.getElementById('plain').submit()
  window.attack = results
  document.getElementById('out').textContent = JSON.stringify(results, null, 1)
})()
</script></body></html>`
}

describe('web pages cannot reach the sandbox (Chromium)', () => {
  const suite = browserSuite({ chromiumArgs: [`--host-resolver-rules=MAP ${REBOUND} 127.0.0.1`] })

  interface Target {
    client: SandboxClient
    url: string
    trackId: string
    /** The sandbox's request lines since the target was made. */
    lines: () => string[]
    /** Payments and merchants before: an attack must change neither. */
    before: { payments: number; merchants: string }
  }

  async function target(): Promise<Target> {
    const sb = suite.sandbox
    const created = await sb.client.createPayment({ merchant: 'sandbox', amount: 19, callbackUrl: 'http://127.0.0.1:9/cb' })
    if (created.result !== 100) throw new Error(JSON.stringify(created))
    const before = { payments: (await sb.client.health()).counts.payments, merchants: JSON.stringify(await sb.client.listMerchants()) }
    // From here on, only the browser's requests.
    const from = sb.output().length
    const lines = () => sb.output().slice(from).split('\n').filter((l) => l !== '')
    return { client: sb.client, url: sb.url, trackId: created.trackId, lines, before }
  }

  /** Waits until the sandbox has logged a request matching each pattern: the attacks reached it. */
  async function arrived({ lines }: Target, patterns: RegExp[]): Promise<void> {
    const deadline = Date.now() + 10_000
    while (Date.now() < deadline) {
      if (patterns.every((p) => lines().some((l) => p.test(l)))) return
      await new Promise((r) => setTimeout(r, 50))
    }
    throw new Error(`not all requests arrived:\n${lines().join('\n')}`)
  }

  async function unharmed({ client, trackId, lines, before }: Target): Promise<void> {
    const tried = lines().filter((l) => / (POST|OPTIONS) /.test(l))
    const health = await client.health()
    expect(health.counts.payments).toBe(before.payments)
    expect((await client.getPayment(trackId)).payment.status).toBe('pending')
    expect(JSON.stringify(await client.listMerchants())).toBe(before.merchants)
    // Every change the page tried was refused.
    expect(tried.length).toBeGreaterThan(0)
    for (const line of tried) expect(line).toMatch(/ (403|404|415) /)
  }

  async function attackFrom(pageUrl: string, screenshot: string, t: Target): Promise<Record<string, string>> {
    const page = await suite.page({ allowConsole: REFUSED })
    await page.goto(pageUrl)
    await page.waitForFunction(() => (window as unknown as { attack?: unknown }).attack !== undefined, undefined, { timeout: 10_000 })
    await arrived(t, [/POST \/_sandbox\/reset /, /POST \/_sandbox\/shutdown /, new RegExp(`POST /pay/${t.trackId}/simulate `)])
    // Both forms posted.
    await expect.poll(() => t.lines().filter((l) => l.includes(`POST /pay/${t.trackId}/simulate`)).length, { timeout: 10_000 }).toBe(2)
    await page.screenshot({ path: join(OUTPUT, screenshot), fullPage: true })
    await unharmed(t)
    return page.evaluate(() => (window as unknown as { attack: Record<string, string> }).attack)
  }

  test('a page served from another local port can neither change nor read the sandbox', async () => {
    const t = await target()
    const html = attackPage(t.url, t.trackId)
    const server = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(html))
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
    onTestFinished(() => new Promise<void>((r) => server.close(() => r())))
    const pageUrl = `http://127.0.0.1:${(server.address() as { port: number }).port}/`
    const attack = await attackFrom(pageUrl, 'guard-other-port.png', t)
    // The JSON fetch needed a preflight that was never granted, so the POST was never sent.
    expect(attack['json reset (preflight)']).toMatch(/^failed/)
    expect(attack['read export']).toMatch(/^failed/)
    expect(t.lines().filter((l) => l.includes('POST /_sandbox/reset')).length).toBe(2)
  })

  test('a file:// page (Origin: null) can neither change nor read the sandbox', async () => {
    const t = await target()
    const file = join(await tempDir(), 'prize.html')
    await writeFile(file, attackPage(t.url, t.trackId))
    const attack = await attackFrom(pathToFileURL(file).href, 'guard-file-page.png', t)
    expect(attack['read export']).toMatch(/^failed/)
    expect(t.lines().some((l) => / 403 error=origin_not_allowed /.test(l))).toBe(true)
  })

  test('DNS rebinding: under a rebound name the sandbox answers only a refusal page', async () => {
    const t = await target()
    const port = new URL(t.url).port
    const page = await suite.page({ allowConsole: [/status of 403/] })
    const response = await page.goto(`http://${REBOUND}:${port}/pay/${t.trackId}`)
    expect(response?.status()).toBe(403)
    expect(await page.locator('h1').textContent()).toBe('Request refused')
    expect(await page.textContent('main')).toContain(`--allowed-hosts ${REBOUND}`)
    await page.screenshot({ path: join(OUTPUT, 'guard-rebinding.png'), fullPage: true })
    // Now same-origin with the "sandbox", the page's script would read the keys and reset.
    const reads = await page.evaluate(async () => {
      const get = await fetch('/_sandbox/export')
      const post = await fetch('/_sandbox/reset', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })
      return [get.status, post.status, await get.text()]
    })
    expect(reads.slice(0, 2)).toEqual([403, 403])
    expect(reads[2]).not.toContain('sandbox_')
    // Its log line comes on the sandbox's output, which may reach this process after the answer reached the page.
    await arrived(t, [/POST \/_sandbox\/reset /])
    await unharmed(t)
  })

  test("the sandbox's own checkout page still works: Simulate payment makes it paid", async () => {
    const { client, url, trackId, lines } = await target()
    const page = await suite.page({ viewport: { width: 1024, height: 900 } })
    expect((await page.goto(`${url}/pay/${trackId}`))?.status()).toBe(200)
    await page.getByRole('button', { name: 'Simulate payment', exact: true }).click()
    await page.getByText('Payment received').waitFor({ timeout: 10_000 })
    await page.screenshot({ path: join(OUTPUT, 'guard-own-page-paid.png'), fullPage: true })
    expect((await client.getPayment(trackId)).payment.status).toBe('paid')
    expect(lines().join('\n')).toMatch(new RegExp(`POST /pay/${trackId}/simulate 200 `))
    // The page sent its real origin, not Origin: null.
    expect(lines().join('\n')).not.toMatch(/ 403 /)
  })
})
