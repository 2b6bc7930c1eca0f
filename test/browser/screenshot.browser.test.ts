import { existsSync, mkdirSync } from 'node:fs'
import { writeFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { expect, test } from 'vitest'
import { receiver } from '../callbacks/receiver.js'
import { ROOT } from '../helpers.js'
import { browserSuite, OUTPUT } from './chromium.js'

/** The README's picture: the checkout page of a payment, and the inspector's page of it once paid. */
const README_SCREENSHOT = join(ROOT, 'docs', 'images', 'checkout-and-inspector.png')
const README_SCREENSHOT_SIZE = { width: 1440, height: 900 }

const suite = browserSuite()

test("the README's screenshot, taken from the running product: the checkout page, then the inspector once paid", { timeout: 60_000 }, async () => {
  const shop = await receiver()
  const sb = suite.sandbox
  const created = await sb.client.createPayment({ merchant: 'sandbox', amount: 25.5, callbackUrl: shop.url, description: 'Order #1042: two T-shirts' })
  if (created.result !== 100) throw new Error(JSON.stringify(created))

  const height = README_SCREENSHOT_SIZE.height
  const checkout = await suite.page({ viewport: { width: 480, height } })
  await checkout.goto(sb.client.checkoutUrl(created.trackId))
  await checkout.waitForSelector('#checkout[data-status="pending"] button[data-outcome="paid"]')
  const left = await checkout.screenshot()

  await checkout.click('button[data-outcome="paid"]')
  await checkout.waitForSelector('#checkout[data-status="paid"]')
  await shop.waitFor(1)
  const inspector = await suite.page({ viewport: { width: README_SCREENSHOT_SIZE.width - 480, height } })
  await inspector.goto(`${sb.url}/inspect/payments/${created.trackId}`)
  await inspector.getByText('HTTP 200').first().waitFor()
  const right = await inspector.screenshot()

  // Side by side, in one picture.
  const canvas = await suite.page({ viewport: README_SCREENSHOT_SIZE })
  const img = (png: Buffer) => `<img src="data:image/png;base64,${png.toString('base64')}" style="display:block">`
  await canvas.setContent(`<body style="margin:0;display:flex;background:#fff">${img(left)}<div style="width:0;border-left:2px solid #888"></div>${img(right)}</body>`)
  await canvas.waitForFunction(() => Array.from(document.images).every((i) => i.complete && i.naturalWidth > 0))
  const picture = await canvas.screenshot()
  await writeFile(join(OUTPUT, 'checkout-and-inspector.png'), picture)
  // The committed picture is replaced only when asked (`npm run docs:screenshot`), or when it is missing: a run of
  // the suite leaves the working tree as it was.
  if (process.env.PAY_UPDATE_SCREENSHOTS === '1' || !existsSync(README_SCREENSHOT)) {
    mkdirSync(dirname(README_SCREENSHOT), { recursive: true })
    await writeFile(README_SCREENSHOT, picture)
  }
  expect(picture.subarray(1, 4).toString()).toBe('PNG')
  expect([picture.readUInt32BE(16), picture.readUInt32BE(20)]).toEqual([README_SCREENSHOT_SIZE.width, README_SCREENSHOT_SIZE.height])
})
