import { mkdir } from 'node:fs/promises'
import { join } from 'node:path'
import { chromium } from 'playwright-core'
import { expect, onTestFinished, test } from 'vitest'
import { ROOT, sandbox } from '../helpers.js'

const CHROMIUM = process.env.PAY_CHROMIUM ?? '/usr/bin/chromium'

test('in Chromium, the inspector links to /docs, which shows every operation under its CSP, with no request off the sandbox', async () => {
  const sb = await sandbox()
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--headless', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  })
  onTestFinished(() => browser.close())
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } })
  const problems: string[] = []
  const requested: string[] = []
  page.on('console', (m) => m.type() === 'error' && problems.push(`console: ${m.text()}`))
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`))
  page.on('request', (r) => requested.push(r.url()))

  await page.goto(`${sb.url}/`)
  await page.getByRole('link', { name: 'API reference' }).click()
  await page.waitForURL(`${sb.url}/docs`)
  await page.waitForLoadState('networkidle')
  expect(await page.getByRole('heading', { level: 1 }).textContent()).toContain('pay sandbox API reference')
  for (const heading of ['Spec API', 'Control API', 'Chat', 'Checkout page', 'Site', 'Records']) {
    await expect(page.getByRole('heading', { level: 2, name: heading }).isVisible()).resolves.toBe(true)
  }
  expect(await page.locator('h3', { hasText: '/api/v1/request' }).textContent()).toMatch(/POST\s+\/api\/v1\/request — Create a payment/)
  // The rules table of create, made from the outcomes table, renders as a table.
  expect(await page.locator('table').filter({ hasText: 'Callback URL is missing or invalid' }).count()).toBeGreaterThan(0)
  await page.getByRole('link', { name: '/openapi.json' }).first().click()
  await page.waitForURL(`${sb.url}/openapi.json`)
  expect(JSON.parse((await page.locator('body').textContent()) ?? '')).toMatchObject({ openapi: '3.1.0' })

  expect(problems).toEqual([])
  expect(requested.filter((u) => !u.startsWith(sb.url))).toEqual([])
  await mkdir(join(ROOT, 'test-output'), { recursive: true })
  await page.goto(`${sb.url}/docs`)
  await page.screenshot({ path: join(ROOT, 'test-output', 'docs-desktop.png') })
})
