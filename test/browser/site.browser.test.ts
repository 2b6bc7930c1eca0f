import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { type Sandbox, startSandbox } from '../../src/index.js'
import { launchChromium } from './chromium.js'

describe('the root and the icon', () => {
  let sb: Sandbox
  let browser: Browser
  beforeAll(async () => {
    sb = await startSandbox()
    browser = await launchChromium()
  })
  afterAll(async () => {
    await browser?.close()
    await sb?.stop()
  })

  test('over HTTP: / redirects to the dashboard; /favicon.ico is an SVG icon', async () => {
    const root = await sb.client.raw({ method: 'GET', path: '/', headers: { accept: 'text/html' } })
    expect(root.status).toBe(302)
    expect(root.headers.location).toBe('/dashboard')
    const icon = await sb.client.raw({ method: 'GET', path: '/favicon.ico', headers: { accept: 'image/*' } })
    expect(icon.status).toBe(200)
    expect(icon.headers['content-type']).toBe('image/svg+xml')
    expect(icon.text).toMatch(/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/)
  })

  test('in Chromium: the checkout page, the dashboard, / and a JSON route log no console error and no failed request', async () => {
    const created = await sb.client.createPayment({ merchant: 'sandbox', amount: 25.5, callbackUrl: 'http://127.0.0.1:9/cb', description: 'Two mugs' })
    if (created.result !== 100) throw new Error(JSON.stringify(created))
    const problems: string[] = []
    for (const path of [`/pay/${created.trackId}`, '/dashboard', '/', '/_sandbox/health']) {
      const context = await browser.newContext()
      const page = await context.newPage()
      let open = true
      page.on('console', (m) => open && m.type() === 'error' && problems.push(`${path}: console: ${m.text()}`))
      page.on('pageerror', (e) => open && problems.push(`${path}: page error: ${e.message}`))
      page.on('requestfailed', (r) => open && problems.push(`${path}: failed: ${r.url()} ${r.failure()?.errorText}`))
      page.on('response', (r) => {
        if (!open) return
        if (r.status() >= 400) problems.push(`${path}: HTTP ${r.status()} ${r.url()}`)
      })
      const response = await page.goto(`${sb.url}${path}`)
      if (response?.status() !== 200) problems.push(`${path}: HTTP ${response?.status()}`)
      if (path === '/') expect(page.url()).toBe(`${sb.url}/dashboard`)
      // Browsers fetch the icon after the load; give it time to come, and to fail if it would.
      await page.waitForLoadState('networkidle').catch(() => {})
      await page.waitForTimeout(300)
      open = false
      await context.close()
    }
    // The pages name /favicon.ico as their icon: were it missing, each would log a failed load.
    expect(problems).toEqual([])
  })
})
