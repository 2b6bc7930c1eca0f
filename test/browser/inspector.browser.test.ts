import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { describe, expect, test } from 'vitest'
import { receiver } from '../callbacks/receiver.js'
import { browserSuite, OUTPUT } from './chromium.js'

const WIDTHS = [
  { name: 'phone', width: 390, height: 844 },
  { name: 'desktop', width: 1280, height: 800 },
] as const
const HOSTILE = `<script>alert("pwn")</script>"'><img src=x onerror=alert(1)>`

const suite = browserSuite({ args: ['--callback-retries', '1', '--callback-timeout', '2s', '--callback-schedule', '100ms'] })

async function create(fields: Partial<{ merchant: string; amount: number; callbackUrl: string; description: string }> = {}): Promise<string> {
  const body = await suite.sandbox.client.createPayment({ merchant: 'sandbox', amount: 25.5, callbackUrl: 'http://127.0.0.1:9/cb', ...fields })
  if (body.result !== 100) throw new Error(JSON.stringify(body))
  return body.trackId
}

/** A page at a width; `refused` allows the browser's note on an answer with that status (a refusal the page shows). */
async function open(path: string, width: number, height: number, refused?: number): Promise<Page> {
  const allowConsole = refused ? [new RegExp(`the server responded with a status of ${refused}`)] : []
  const page = await suite.page({ viewport: { width, height }, allowConsole })
  await go(page, path)
  return page
}

async function go(page: Page, path: string): Promise<void> {
  const response = await page.goto(`${suite.sandbox.url}${path}`)
  expect(response?.status(), path).toBe(200)
  await expect.poll(() => page.textContent('#live-state')).toBe('Live')
}

/** Cells of every table row and every filter field that stick out of the viewport (or their card). */
async function outOfReach(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const out: string[] = []
    const width = window.innerWidth
    document.querySelectorAll('table.stack tbody tr').forEach((row, r) => {
      row.querySelectorAll('td').forEach((td, c) => {
        const box = td.getBoundingClientRect()
        if (box.left < 0 || box.right > width + 0.5) out.push(`row ${r} cell ${c} (${td.dataset.label}): ${box.left}–${box.right} of ${width}`)
      })
    })
    document.querySelectorAll('form.filters').forEach((form) => {
      const card = form.getBoundingClientRect()
      form.querySelectorAll('input, select, button').forEach((field) => {
        const box = field.getBoundingClientRect()
        if (box.left < card.left || box.right > card.right + 0.5) out.push(`${field.getAttribute('name') ?? 'button'}: ${box.left}–${box.right} outside ${card.left}–${card.right}`)
      })
    })
    return out
  })
}

describe('the inspector in Chromium', () => {
  test('every page at phone and desktop width: no horizontal overflow, every column and filter in reach', async () => {
    const sb = suite.sandbox
    const shop = await receiver((n) => (n === 1 ? { status: 503, body: 'busy, try later' } : { status: 200, body: 'ok' }))
    const merchant = await sb.client.createMerchant({ key: `long_${'k'.repeat(100)}`, name: `A shop with a rather long name ${HOSTILE}`.slice(0, 200) })
    await create({ merchant: merchant.key, description: `${HOSTILE} and a long description that goes on for a while to see it wrap` })
    const short = await create({ amount: 10, callbackUrl: shop.url, description: 'Paid short' })
    await sb.client.simulate(short, { outcome: 'paid', amount: 9.99 })
    await create({ description: 'Two mugs' })
    await sb.client.verifyPayment({ merchant: 'sandbox', trackId: short })
    // Texts the request log keeps cut (a trackId, a path and a query longer than it keeps) wrap like the rest.
    await sb.client.verifyPayment({ merchant: 'sandbox', trackId: `long-${'t'.repeat(5000)}` })
    await sb.client.raw({ method: 'GET', path: `/api/v1/${'p'.repeat(3000)}?${'q'.repeat(3000)}` })
    await shop.waitFor(2)
    await expect.poll(async () => (await sb.client.listDeliveries({ trackId: short }))[0]?.state).toBe('delivered')
    const pages = {
      home: '/',
      payments: '/inspect/payments',
      payment: `/inspect/payments/${short}`,
      requests: '/inspect/requests',
      merchants: '/inspect/merchants',
    }
    for (const size of WIDTHS) {
      const page = await open('/', size.width, size.height)
      for (const [name, path] of Object.entries(pages)) {
        await go(page, path)
        const widths = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, inner: innerWidth }))
        expect(widths.scroll, `${name} at ${size.width}`).toBeLessThanOrEqual(widths.inner)
        expect(await outOfReach(page), `${name} at ${size.width}`).toEqual([])
        // The hostile text is there as text, and no markup of it ran or was built.
        expect(await page.locator('img[src=x]').count()).toBe(0)
        await page.screenshot({ path: join(OUTPUT, `inspector-${name}-${size.name}.png`), fullPage: true })
      }
    }
    const payment = await open(pages.payment, 1280, 800)
    expect(await payment.textContent('#payment')).toContain('≠ order amount')
    // Attempt 1 was refused by the receiver: its answer is there when unfolded.
    await payment.locator('details summary', { hasText: 'Attempt 1' }).first().click()
    expect(await payment.textContent('#payment')).toContain('busy, try later')
  })

  test('live: a payment created over HTTP appears in the open list within a second or two, then its status change, without a reload', async () => {
    const sb = suite.sandbox
    const page = await open('/inspect/payments', 1280, 800)
    await page.evaluate(() => ((window as unknown as { marker: number }).marker = 42))
    const started = Date.now()
    const trackId = await create({ description: 'Live one' })
    const row = page.locator(`tr[data-track-id="${trackId}"]`)
    await expect.poll(() => row.count(), { timeout: 2000, interval: 25 }).toBe(1)
    const appearedMs = Date.now() - started
    await sb.client.simulate(trackId, { outcome: 'unfinalized' })
    await expect.poll(() => row.locator('.status').textContent(), { timeout: 2000, interval: 25 }).toBe('unfinalized')
    await sb.client.simulate(trackId, { outcome: 'paid', amount: 30 })
    await expect.poll(() => row.locator('.status').textContent(), { timeout: 2000, interval: 25 }).toBe('paid')
    expect(await row.textContent()).toContain('≠ order amount')
    expect(await page.evaluate(() => (window as unknown as { marker?: number }).marker)).toBe(42)
    // ~0.1 s on an idle machine.
    expect(appearedMs).toBeLessThan(2000)

    // The home page's latest requests follow too, at phone width.
    const home = await open('/', 390, 844)
    await sb.client.verifyPayment({ merchant: 'sandbox', trackId })
    await expect.poll(() => home.locator('#latest-requests tbody tr').first().textContent(), { timeout: 2000, interval: 25 }).toContain('/api/v1/verify')
  })

  test('the payment page: simulate from it, see the callback arrive, replay it', async () => {
    const shop = await receiver()
    const trackId = await create({ callbackUrl: shop.url, description: 'Replay me' })
    const page = await open(`/inspect/payments/${trackId}`, 390, 844)
    await page.getByRole('button', { name: 'Simulate payment' }).click()
    await expect.poll(() => page.getAttribute('#payment', 'data-status')).toBe('paid')
    await shop.waitFor(1)
    await expect.poll(() => page.locator('article.attempt').count()).toBe(1)
    await expect.poll(() => page.locator('article.attempt summary').first().textContent()).toContain('HTTP 200')
    await page.getByRole('button', { name: 'Replay this callback' }).click()
    await expect.poll(() => page.textContent('#action-status')).toBe('Replay delivered (HTTP 200)')
    await expect.poll(() => page.locator('article.attempt').count()).toBe(2)
    expect(shop.received.map((r) => r.json.status)).toEqual(['paid', 'paid'])
    expect(shop.received[1]!.headers['x-pay-sandbox-replay-of']).toMatch(/^dlv_/)
    // Final: no simulate control left, and a second try is refused with the control API's message.
    expect(await page.getByRole('button', { name: 'Simulate payment' }).count()).toBe(0)
  })

  test('merchants: create one, disable it and enable it again from the page', async () => {
    const sb = suite.sandbox
    const page = await open('/inspect/merchants', 1280, 800, 409)
    await page.fill('#merchant-name', 'Page Shop')
    await page.fill('#merchant-key', 'page-shop')
    await page.getByRole('button', { name: 'Create', exact: true }).click()
    const row = page.locator('#merchants tr', { hasText: 'page-shop' })
    await expect.poll(() => row.count()).toBe(1)
    await row.getByRole('button', { name: 'Disable Page Shop' }).click()
    await expect.poll(() => row.textContent()).toContain('disabled')
    expect(await sb.client.verifyPayment({ merchant: 'page-shop', trackId: 'x' })).toEqual({ result: 103, message: 'Merchant account is disabled' })
    await page.locator('#merchants tr', { hasText: 'page-shop' }).getByRole('button', { name: 'Enable Page Shop' }).click()
    await expect.poll(() => page.locator('#merchants tr', { hasText: 'page-shop' }).textContent()).not.toContain('disabled')
    // A duplicate key is refused with the control API's message.
    await page.fill('#merchant-key', 'page-shop')
    await page.getByRole('button', { name: 'Create', exact: true }).click()
    await expect.poll(() => page.textContent('#action-error')).toBe('a merchant with key page-shop already exists')
  })

  test('the checkout page links to its payment in the inspector; the inspector links to the chat page', async () => {
    const sb = suite.sandbox
    const trackId = await create({ description: 'Linked' })
    const page = await suite.page({ viewport: { width: 390, height: 844 } })
    await page.goto(sb.client.checkoutUrl(trackId))
    await page.getByRole('link', { name: 'Inspect this payment' }).click()
    await page.waitForURL(`${sb.url}/inspect/payments/${trackId}`)
    expect(await page.textContent('h1')).toContain(trackId)
    await page.getByRole('link', { name: 'Bot chat' }).click()
    await page.waitForURL(`${sb.url}/chat`)
  })
})
