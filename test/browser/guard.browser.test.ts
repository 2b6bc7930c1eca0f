import { mkdirSync } from 'node:fs'
import { writeFile } from 'node:fs/promises'
import { createServer } from 'node:http'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { type Browser, chromium } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, onTestFinished, test } from 'vitest'
import type { Sandbox } from '../../src/index.js'
import { ROOT, sandbox, tempDir } from '../helpers.js'

const OUTPUT = join(ROOT, 'test-output')
const CHROMIUM = process.env.PAY_CHROMIUM ?? '/usr/bin/chromium'
// The browser resolves this name to the sandbox's address: what DNS rebinding achieves.
const REBOUND = 'rebind.example'

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
  let browser: Browser

  beforeAll(async () => {
    mkdirSync(OUTPUT, { recursive: true })
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        '--no-sandbox',
        '--headless',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
        '--disable-dev-shm-usage',
        `--host-resolver-rules=MAP ${REBOUND} 127.0.0.1`,
      ],
    })
  })
  afterAll(async () => {
    await browser?.close()
  })

  async function target(): Promise<{ sb: Sandbox; trackId: string; lines: string[] }> {
    const lines: string[] = []
    const sb = await sandbox({ log: (line) => lines.push(line) })
    const created = await sb.client.createPayment({ merchant: 'sandbox', amount: 19, callbackUrl: 'http://127.0.0.1:9/cb' })
    if (created.result !== 100) throw new Error(JSON.stringify(created))
    // From here on, only the browser's requests.
    lines.length = 0
    return { sb, trackId: created.trackId, lines }
  }

  /** Waits until the sandbox has logged a request matching each pattern: the attacks reached it. */
  async function arrived(lines: string[], patterns: RegExp[]): Promise<void> {
    const deadline = Date.now() + 10_000
    while (Date.now() < deadline) {
      if (patterns.every((p) => lines.some((l) => p.test(l)))) return
      await new Promise((r) => setTimeout(r, 50))
    }
    throw new Error(`not all requests arrived:\n${lines.join('\n')}`)
  }

  async function unharmed(sb: Sandbox, trackId: string, lines: string[]): Promise<void> {
    const health = await sb.client.health()
    expect(health.counts.payments).toBe(1)
    expect((await sb.client.getPayment(trackId)).payment.status).toBe('pending')
    expect((await sb.client.listMerchants()).map((m) => m.enabled)).toEqual([true])
    // Every change the page tried was refused.
    const tried = lines.filter((l) => / (POST|OPTIONS) /.test(l))
    expect(tried.length).toBeGreaterThan(0)
    for (const line of tried) expect(line).toMatch(/ (403|404|415) /)
  }

  async function attackFrom(pageUrl: string, screenshot: string, sb: Sandbox, trackId: string, lines: string[]): Promise<Record<string, string>> {
    const page = await browser.newPage()
    onTestFinished(() => page.close())
    await page.goto(pageUrl)
    await page.waitForFunction(() => (window as unknown as { attack?: unknown }).attack !== undefined, undefined, { timeout: 10_000 })
    await arrived(lines, [/POST \/_sandbox\/reset /, /POST \/_sandbox\/shutdown /, new RegExp(`POST /pay/${trackId}/simulate `)])
    // Both forms posted.
    await expect.poll(() => lines.filter((l) => l.includes(`POST /pay/${trackId}/simulate`)).length, { timeout: 10_000 }).toBe(2)
    await page.screenshot({ path: join(OUTPUT, screenshot), fullPage: true })
    await unharmed(sb, trackId, lines)
    return page.evaluate(() => (window as unknown as { attack: Record<string, string> }).attack)
  }

  test('a page served from another local port can neither change nor read the sandbox', async () => {
    const { sb, trackId, lines } = await target()
    const html = attackPage(sb.url, trackId)
    const server = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(html))
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
    onTestFinished(() => new Promise<void>((r) => server.close(() => r())))
    const pageUrl = `http://127.0.0.1:${(server.address() as { port: number }).port}/`
    const attack = await attackFrom(pageUrl, 'guard-other-port.png', sb, trackId, lines)
    // The JSON fetch needed a preflight that was never granted, so the POST was never sent.
    expect(attack['json reset (preflight)']).toMatch(/^failed/)
    expect(attack['read export']).toMatch(/^failed/)
    expect(lines.filter((l) => l.includes('POST /_sandbox/reset')).length).toBe(2)
  })

  test('a file:// page (Origin: null) can neither change nor read the sandbox', async () => {
    const { sb, trackId, lines } = await target()
    const file = join(await tempDir(), 'prize.html')
    await writeFile(file, attackPage(sb.url, trackId))
    const attack = await attackFrom(pathToFileURL(file).href, 'guard-file-page.png', sb, trackId, lines)
    expect(attack['read export']).toMatch(/^failed/)
    expect(lines.some((l) => / 403 error=origin_not_allowed /.test(l))).toBe(true)
  })

  test('DNS rebinding: under a rebound name the sandbox answers only a refusal page', async () => {
    const { sb, trackId, lines } = await target()
    const port = new URL(sb.url).port
    const page = await browser.newPage()
    onTestFinished(() => page.close())
    const response = await page.goto(`http://${REBOUND}:${port}/pay/${trackId}`)
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
    await unharmed(sb, trackId, lines)
  })

  test("the sandbox's own checkout page still works: Simulate payment makes it paid", async () => {
    const { sb, trackId, lines } = await target()
    const page = await browser.newPage({ viewport: { width: 1024, height: 900 } })
    onTestFinished(() => page.close())
    expect((await page.goto(`${sb.url}/pay/${trackId}`))?.status()).toBe(200)
    await page.getByRole('button', { name: 'Simulate payment', exact: true }).click()
    await page.getByText('Payment received').waitFor({ timeout: 10_000 })
    await page.screenshot({ path: join(OUTPUT, 'guard-own-page-paid.png'), fullPage: true })
    expect((await sb.client.getPayment(trackId)).payment.status).toBe('paid')
    expect(lines.join('\n')).toMatch(new RegExp(`POST /pay/${trackId}/simulate 200 `))
    // The page sent its real origin, not Origin: null.
    expect(lines.join('\n')).not.toMatch(/ 403 /)
  })
})
