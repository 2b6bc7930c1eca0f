import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { expect, test } from 'vitest'
import { ROOT } from '../helpers.js'
import { browserSuite } from './chromium.js'

const suite = browserSuite({ args: ['--callback-retries', '0'] })

/** The selectors docs/test-suite.md promises browser tests, from its "Testing against the checkout page" table. */
async function documentedSelectors(): Promise<string[]> {
  const guide = await readFile(join(ROOT, 'docs', 'test-suite.md'), 'utf8')
  const section = guide.split('## Testing against the checkout page\n')[1]?.split('\n#')[0] ?? ''
  return [...section.matchAll(/^\| `([^`]+)` \|/gm)].map((m) => m[1]!)
}

test('every selector the guide documents for browser tests is on the checkout page, and a test written with them works', async () => {
  const selectors = await documentedSelectors()
  expect(selectors).toEqual(expect.arrayContaining(['#checkout', 'button[data-outcome="paid"]', 'button[data-outcome="failed"]', '#other-amount']))
  const sb = suite.sandbox
  const created = await sb.client.createPayment({ merchant: 'sandbox', amount: 25.5, callbackUrl: 'http://127.0.0.1:9/cb' })
  if (created.result !== 100) throw new Error(JSON.stringify(created))
  const page = await suite.page()
  await page.goto(sb.client.checkoutUrl(created.trackId))
  await page.waitForSelector('#checkout[data-status="pending"]')
  for (const selector of selectors) {
    // The status selector is the one to wait for after an action; the page is pending here.
    const present = selector.replace('data-status="paid"', 'data-status="pending"')
    expect(await page.locator(present).count(), selector).toBeGreaterThan(0)
  }
  expect(await page.getAttribute('#checkout', 'data-track-id')).toBe(created.trackId)

  // The flow a merchant's browser test would write, with the documented selectors only.
  await page.check('input[name="asset"][value="ETH"]')
  await page.click('button[data-outcome="unfinalized"]')
  await page.waitForSelector('#checkout[data-status="unfinalized"][data-final="false"]')
  await page.fill('#other-amount', '7')
  await page.press('#other-amount', 'Enter')
  await page.waitForSelector('#checkout[data-status="paid"][data-final="true"]')
  expect(await page.locator('button[data-outcome]').count()).toBe(0)
  expect((await sb.client.getPayment(created.trackId)).payment).toMatchObject({ status: 'paid', paidAmount: 7, asset: 'ETH' })
})
