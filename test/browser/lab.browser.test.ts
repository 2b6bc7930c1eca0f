import { join } from 'node:path'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, onTestFinished, test } from 'vitest'
import { type Sandbox, startSandbox } from '../../src/index.js'
import { eventually } from '../callbacks/receiver.js'
import { launchChromium, OUTPUT } from './chromium.js'

describe('the checkout page’s sandbox controls for unhappy paths, in Chromium', () => {
  let browser: Browser
  let sb: Sandbox

  beforeAll(async () => {
    browser = await launchChromium()
    sb = await startSandbox({ paymentTtlMs: 15 * 60_000 })
  })
  afterAll(async () => {
    await browser?.close()
    await sb?.stop()
  })

  async function open(): Promise<{ page: Page; trackId: string }> {
    const created = await sb.client.createPayment({ merchant: 'sandbox', amount: 40, callbackUrl: 'https://shop.example/cb' })
    if (created.result !== 100) throw new Error(JSON.stringify(created))
    const page = await browser.newPage({ viewport: { width: 390, height: 844 } })
    onTestFinished(() => page.close())
    expect((await page.goto(sb.client.checkoutUrl(created.trackId)))?.status()).toBe(200)
    return { page, trackId: created.trackId }
  }

  test('confirming: the page shows n of m confirmations and follows each block live; Mine a block pays it', async () => {
    const { page, trackId } = await open()
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
