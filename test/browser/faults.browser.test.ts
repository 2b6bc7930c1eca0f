import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { describe, expect, test } from 'vitest'
import { send } from '../faults/http.js'
import { browserSuite, OUTPUT } from './chromium.js'

describe('API faults in the inspector, in Chromium', () => {
  const suite = browserSuite({ args: ['--api-fault', 'checkout:html=504'] })

  async function open(path: string, width: number): Promise<Page> {
    const page = await suite.page({ viewport: { width, height: 900 } })
    expect((await page.goto(`${suite.sandbox.url}${path}`))?.status()).toBe(200)
    await page.locator('#live-state', { hasText: 'Live' }).waitFor()
    return page
  }

  const fits = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth <= innerWidth)

  test('the home page shows the rules as they are added and removes them, one or all, from its buttons', async () => {
    const sb = suite.sandbox
    const page = await open('/', 390)
    const rows = page.locator('#faults tbody tr')
    expect(await rows.count()).toBe(1)
    expect(await page.textContent('#faults')).toMatch(/GET \/pay\/<trackId>\s*html=504/)
    expect(await page.locator('#faults .tag', { hasText: 'start' }).count()).toBe(1)

    // Added elsewhere (the CLI, a script): the section follows without a reload.
    const added = await sb.client.addFault({ route: 'verify', status: 503, times: 2, merchant: 'sandbox' })
    await expect.poll(() => rows.count()).toBe(2)
    expect(await page.textContent('#faults')).toContain('status=503:times=2:merchant=sandbox')
    expect(await fits(page)).toBe(true)
    await page.screenshot({ path: join(OUTPUT, 'inspector-faults-home-phone.png'), fullPage: true })

    await page.click(`button[aria-label="Remove rule ${added.id}"]`)
    await expect.poll(() => rows.count()).toBe(1)
    expect(await page.textContent('#action-status')).toBe(`Fault rule ${added.id} removed`)
    expect((await sb.client.listFaults()).map((r) => r.id)).not.toContain(added.id)

    await sb.client.addFault({ route: 'create', reset: true, times: 1 })
    await page.locator('button', { hasText: 'Remove every rule' }).click()
    await page.locator('#faults .empty', { hasText: 'None: create, verify and the checkout page answer for real' }).waitFor()
    expect(await sb.client.listFaults()).toEqual([])
  })

  test("a payment's page shows the rules that reach it and the faults played on its requests; the requests page flags them", async () => {
    const sb = suite.sandbox
    const created = await sb.client.createPayment({ merchant: 'sandbox', amount: 12, callbackUrl: 'https://shop.example/cb' })
    if (created.result !== 100) throw new Error('create failed')
    await sb.client.addFault({ route: 'verify', status: 503, times: 1, trackId: created.trackId })
    await sb.client.addFault({ route: 'verify', timeout: true, times: 1, trackId: created.trackId })
    const page = await open(`/inspect/payments/${created.trackId}`, 390)
    expect(await page.locator('#faults tbody tr').count()).toBe(2)

    // The merchant's verifies, as its server makes them: one answered 503, one held until it gave up.
    await send(sb.url, 'POST', '/api/v1/verify', { merchant: 'sandbox', trackId: created.trackId })
    await send(sb.url, 'POST', '/api/v1/verify', { merchant: 'sandbox', trackId: created.trackId }, 600)
    await page.locator('#hits-heading').waitFor()
    await expect.poll(() => page.locator('section[aria-labelledby="hits-heading"] tbody tr').count()).toBe(2)
    const played = await page.textContent('section[aria-labelledby="hits-heading"]')
    expect(played).toContain('status 503')
    expect(played).toMatch(/timeout, client gave up after 0\.\d s/)
    expect(await page.textContent('#faults')).toContain('1 of 1, spent')
    expect(await fits(page)).toBe(true)
    await page.screenshot({ path: join(OUTPUT, 'inspector-faults-payment-phone.png'), fullPage: true })

    const requests = await open(`/inspect/requests?trackId=${created.trackId}`, 1280)
    const flags = await requests.locator('#requests .flag').allTextContents()
    expect(flags).toEqual([expect.stringMatching(/^fault: timeout, client gave up after 0\.\d s$/), 'fault: status 503'])
    await sb.client.clearFaults()
  })
})
