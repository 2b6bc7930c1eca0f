import { createServer, type IncomingMessage } from 'node:http'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { describe, expect, onTestFinished, test } from 'vitest'
import { browserSuite, OUTPUT } from './chromium.js'

const suite = browserSuite({ args: ['--callback-retries', '2', '--callback-timeout', '2s', '--callback-schedule', '100ms'] })

interface Received {
  path: string
  body: Record<string, unknown>
  headers: IncomingMessage['headers']
}

/** The merchant's local server: receives callbacks on /callback and the customer on /thanks. */
async function merchantServer(): Promise<{ url: string; callbacks: Received[] }> {
  const callbacks: Received[] = []
  const server = createServer((req, res) => {
    let text = ''
    req.on('data', (c: Buffer) => (text += c.toString()))
    req.on('end', () => {
      if (req.url === '/callback' && req.method === 'POST') {
        callbacks.push({ path: req.url, body: JSON.parse(text) as Record<string, unknown>, headers: req.headers })
        res.writeHead(200, { 'content-type': 'text/plain' }).end('ok')
      } else {
        res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>Thanks</title><h1>Back at the shop</h1>')
      }
    })
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  onTestFinished(() => new Promise<void>((r) => server.close(() => r())))
  return { url: `http://127.0.0.1:${(server.address() as { port: number }).port}`, callbacks }
}

describe('checkout page in Chromium', () => {
  async function create(fields: { returnUrl?: string; callbackUrl: string; amount?: number; description?: string }): Promise<string> {
    const body = await suite.sandbox.client.createPayment({ merchant: 'sandbox', amount: 25.5, ...fields })
    if (body.result !== 100) throw new Error(JSON.stringify(body))
    return body.trackId
  }

  async function open(trackId: string, width: number, height: number): Promise<Page> {
    const page = await suite.page({ viewport: { width, height } })
    const response = await page.goto(suite.sandbox.client.checkoutUrl(trackId))
    expect(response?.status()).toBe(200)
    return page
  }

  test('pick an asset, simulate payment, land on returnUrl; callback received; verify answers 100', async () => {
    const shop = await merchantServer()
    const trackId = await create({
      callbackUrl: `${shop.url}/callback`,
      returnUrl: `${shop.url}/thanks?order=1042`,
      description: 'Order #1042 — two mugs',
    })
    const page = await open(trackId, 390, 844)
    await expect(page.getByText('SANDBOX', { exact: true })).toBeTruthy()
    expect(await page.locator('h1').textContent()).toContain('Sandbox merchant')
    expect(await page.textContent('body')).toContain('Order #1042 — two mugs')
    await page.screenshot({ path: join(OUTPUT, 'checkout-phone.png'), fullPage: true })

    await page.locator('label.asset:has(#asset-ETH)').click()
    expect(await page.isChecked('#asset-ETH')).toBe(true)
    expect(await page.isVisible('#panel-ETH')).toBe(true)
    expect(await page.isVisible('#panel-BTC')).toBe(false)
    expect(await page.locator('#panel-ETH svg').count()).toBe(1)
    expect(await page.textContent('#amount-ETH')).toBe('0.006375')

    await page.getByRole('button', { name: 'Simulate payment', exact: true }).click()
    await page.waitForURL(/\/thanks\?/, { timeout: 10_000 })
    const landed = new URL(page.url())
    expect(landed.pathname).toBe('/thanks')
    expect(Object.fromEntries(landed.searchParams)).toEqual({ order: '1042', trackId, status: 'paid' })

    await expect.poll(() => shop.callbacks.length, { timeout: 5000 }).toBe(1)
    const [callback] = shop.callbacks
    expect(callback!.headers['content-type']).toBe('application/json')
    expect(callback!.body).toMatchObject({ trackId, status: 'paid', amount: 25.5, paidAmount: 25.5, asset: 'ETH' })

    const verified = await suite.sandbox.client.verifyPayment({ merchant: 'sandbox', trackId })
    expect(verified).toMatchObject({ result: 100, amount: 25.5, refNumber: expect.stringMatching(/^\d{12}$/) })
    const { payment } = await suite.sandbox.client.getPayment(trackId)
    expect(payment.history.at(-1)).toMatchObject({ status: 'paid', source: 'checkout', asset: 'ETH' })
  })

  test('not finalized, then paid; the final page shows the state and no controls', async () => {
    const shop = await merchantServer()
    const trackId = await create({ callbackUrl: `${shop.url}/callback` })
    const page = await open(trackId, 1280, 800)
    await page.getByRole('button', { name: 'Simulate payment — not finalized (confirming)' }).click()
    await expect.poll(() => page.textContent('#status-heading')).toContain('confirming')
    expect(await suite.sandbox.client.verifyPayment({ merchant: 'sandbox', trackId })).toEqual({ result: 203, amount: 25.5 })
    await page.screenshot({ path: join(OUTPUT, 'checkout-desktop-unfinalized.png'), fullPage: true })

    await page.getByRole('button', { name: 'Simulate payment — finalize (confirmed)' }).click()
    await expect.poll(() => page.textContent('#status-heading')).toBe('Paid')
    expect(await page.textContent('#result-heading')).toBe('Payment received')
    expect(await page.locator('[data-outcome]').count()).toBe(0)
    expect((await suite.sandbox.client.verifyPayment({ merchant: 'sandbox', trackId })).result).toBe(100)
    await expect.poll(() => shop.callbacks.map((c) => c.body.status), { timeout: 5000 }).toEqual(['unfinalized', 'paid'])
    await page.screenshot({ path: join(OUTPUT, 'checkout-desktop-paid.png'), fullPage: true })
  })

  test('the page follows a change made elsewhere (CLI, another tab) without a reload', async () => {
    const trackId = await create({ callbackUrl: 'http://127.0.0.1:9/callback' })
    const page = await open(trackId, 1280, 800)
    await page.screenshot({ path: join(OUTPUT, 'checkout-desktop.png'), fullPage: true })
    await page.evaluate(() => ((window as unknown as { marker: number }).marker = 42))
    await suite.sandbox.client.simulate(trackId, { outcome: 'failed' })
    await expect.poll(() => page.textContent('#status-heading'), { timeout: 5000 }).toBe('Not completed')
    expect(await page.evaluate(() => (window as unknown as { marker?: number }).marker)).toBe(42)
    expect(await page.locator('[data-outcome]').count()).toBe(0)
  })

  test('keyboard only: tab to "Pay a different amount", type, press Enter; verify reports the amount paid', async () => {
    const trackId = await create({ callbackUrl: 'http://127.0.0.1:9/callback', amount: 10 })
    const page = await open(trackId, 390, 844)
    let focused = ''
    for (let i = 0; i < 40 && focused !== 'other-amount'; i++) {
      await page.keyboard.press('Tab')
      focused = await page.evaluate(() => document.activeElement?.id ?? '')
    }
    expect(focused).toBe('other-amount')
    await page.keyboard.type('9.99')
    await page.keyboard.press('Enter')
    await expect.poll(() => page.textContent('#status-heading'), { timeout: 5000 }).toBe('Paid')
    expect(await suite.sandbox.client.verifyPayment({ merchant: 'sandbox', trackId })).toMatchObject({ result: 100, amount: 9.99 })
  })

  test('an invalid different amount is refused on the page, nothing changes', async () => {
    const trackId = await create({ callbackUrl: 'http://127.0.0.1:9/callback' })
    const page = await open(trackId, 1280, 800)
    await page.fill('#other-amount', 'lots')
    await page.getByRole('button', { name: 'Pay a different amount' }).click()
    expect(await page.isVisible('#error')).toBe(true)
    expect(await page.textContent('#error')).toContain('greater than 0')
    expect((await suite.sandbox.client.getPayment(trackId)).payment.status).toBe('pending')
  })
})
