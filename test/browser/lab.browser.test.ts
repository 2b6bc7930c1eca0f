import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { describe, expect, test } from 'vitest'
import { eventually } from '../callbacks/receiver.js'
import { browserSuite, OUTPUT } from './chromium.js'

describe('the checkout page’s sandbox controls for unhappy paths, in Chromium', () => {
  const suite = browserSuite({ args: ['--payment-ttl', '15m'] })

  async function open(): Promise<{ page: Page; trackId: string }> {
    const sb = suite.sandbox
    const created = await sb.client.createPayment({ merchant: 'sandbox', amount: 40, callbackUrl: 'https://shop.example/cb' })
    if (created.result !== 100) throw new Error(JSON.stringify(created))
    const page = await suite.page({ viewport: { width: 390, height: 844 } })
    expect((await page.goto(sb.client.checkoutUrl(created.trackId)))?.status()).toBe(200)
    return { page, trackId: created.trackId }
  }

  test('confirming: the page shows n of m confirmations and follows each block live; Mine a block pays it', async () => {
    const { page, trackId } = await open()
    const sb = suite.sandbox
    await page.check('#asset-BTC', { force: true })
    await page.click('button[data-outcome="unfinalized"]')
    await page.locator('#confirmations', { hasText: '0 of 2 confirmations' }).waitFor()
    // A block mined elsewhere (the CLI) shows up by itself.
    await sb.client.mine()
    await page.locator('#confirmations', { hasText: '1 of 2 confirmations' }).waitFor()
    await page.screenshot({ path: join(OUTPUT, 'checkout-confirming.png'), fullPage: true })
    await page.click('button[data-mine]')
    await page.locator('#result-heading', { hasText: 'Payment received' }).waitFor()
    expect((await sb.client.getPayment(trackId)).payment).toMatchObject({ status: 'paid', confirmations: 2 })
  })

  test('Expire now: the page turns into an expired payment, without controls; the sandbox clock shows in the banner', async () => {
    const { page, trackId } = await open()
    const sb = suite.sandbox
    expect(await page.locator('#expires').getAttribute('datetime')).toMatch(/^\d{4}-/)
    await page.click('button[data-outcome="expired"]')
    await page.locator('#result-heading', { hasText: 'Payment expired' }).waitFor()
    expect(await page.locator('[data-outcome]').count()).toBe(0)
    expect((await sb.client.getPayment(trackId)).payment.status).toBe('expired')
    await sb.client.advanceClock(3_600_000)
    await page.reload()
    expect(await page.locator('#sandbox-clock').textContent()).toMatch(/Sandbox clock .* UTC, 1 h ahead of real time\./)
  })

  test('the notification choice goes with the action: "drop it" records a dropped delivery', async () => {
    const { page, trackId } = await open()
    const sb = suite.sandbox
    await page.selectOption('#callback-mode', 'drop')
    await page.click('button[data-outcome="paid"]')
    await page.locator('#result-heading', { hasText: 'Payment received' }).waitFor()
    const [d] = await eventually(async () => {
      const list = await sb.client.listDeliveries({ trackId })
      return list.length > 0 ? list : undefined
    })
    expect(d).toMatchObject({ state: 'dropped', fault: { mode: 'drop', reason: 'requested by simulate' } })
  })
})
