/**
 * The inspector of a team sandbox in Chromium: the page of one instance shows, without a reload, a payment created
 * and paid through another.
 */
import { describe, expect, onTestFinished, test } from 'vitest'
import { SandboxClient } from '../../src/client/index.js'
import { launchChromium, watch } from '../browser/chromium.js'
import { spawnSandbox } from '../helpers.js'
import { freshDatabase } from './postgres.js'

describe('the inspector of a team sandbox', () => {
  test("instance A's inspector shows a payment created and paid through instance B, without a reload", async () => {
    const url = await freshDatabase()
    const [a, b] = await Promise.all([spawnSandbox(['--store', url, '--quiet']), spawnSandbox(['--store', url, '--quiet'])])
    const browser = await launchChromium()
    onTestFinished(() => browser.close())
    const context = await browser.newContext()
    watch(context)
    const page = await context.newPage()
    await page.goto(`${a.url}/inspect/payments`)
    await expect.poll(() => page.textContent('#live-state')).toBe('Live')
    const client = new SandboxClient(b.url)
    onTestFinished(() => client.close())
    const created = await client.createPayment({ merchant: 'sandbox', amount: 42, callbackUrl: 'http://127.0.0.1:9/cb', description: 'made through B' })
    if (created.result !== 100) throw new Error(JSON.stringify(created))
    const row = page.locator('tr', { hasText: created.trackId })
    await expect.poll(() => row.count(), { timeout: 5_000 }).toBe(1)
    await client.simulate(created.trackId, { outcome: 'paid' })
    await expect.poll(async () => (await row.textContent()) ?? '', { timeout: 5_000 }).toMatch(/paid/)
  })
})
