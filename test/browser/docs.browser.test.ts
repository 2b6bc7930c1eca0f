import { join } from 'node:path'
import { expect, test } from 'vitest'
import { browserSuite, OUTPUT } from './chromium.js'

const suite = browserSuite()

test('in Chromium, the inspector links to /docs, which shows every operation under its CSP, with no request off the sandbox', async () => {
  const sb = suite.sandbox
  const page = await suite.page({ viewport: { width: 1280, height: 900 } })
  const requested: string[] = []
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

  expect(requested.filter((u) => !u.startsWith(sb.url))).toEqual([])
  await page.goto(`${sb.url}/docs`)
  await page.screenshot({ path: join(OUTPUT, 'docs-desktop.png') })
})
