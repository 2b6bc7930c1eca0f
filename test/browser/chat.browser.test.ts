import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import { runReferenceBot } from '../telegram/reference-bot.js'
import { browserSuite, OUTPUT } from './chromium.js'

const suite = browserSuite({ args: ['--callback-retries', '2', '--callback-timeout', '2s', '--callback-schedule', '100ms'] })

describe('the chat page in Chromium', () => {
  test('the reference bot end to end: /buy on the chat page, pay on the checkout page, the confirmation appears', async () => {
    const token = '5550001:Ref3rence_bot_token-abcdefghijklmno'
    const sb = suite.sandbox
    const bot = await runReferenceBot(sb.url, token)
    const context = await suite.context({ viewport: { width: 390, height: 844 } })
    const page = await context.newPage()
    const dialogs: string[] = []
    page.on('dialog', (d) => void dialogs.push(d.message()))
    await page.goto(`${sb.url}/chat?bot=5550001`)
    expect(await page.locator('h1').textContent()).toContain('@sandbox_5550001_bot')
    await page.getByRole('textbox', { name: 'Message' }).fill('/buy')
    await page.getByRole('button', { name: 'Send' }).click()

    // A loopback checkout link cannot be a button on Telegram: the bot sends it as text, which is a link.
    const link = page.locator('.from-bot a[href*="/pay/"]')
    await link.waitFor({ timeout: 10_000 })
    const href = await link.getAttribute('href')
    expect(href).toMatch(new RegExp(`^${sb.url}/pay/[A-Za-z0-9_-]{22}$`))
    expect(await link.getAttribute('rel')).toContain('noopener')
    await page.screenshot({ path: join(OUTPUT, 'chat-phone.png'), fullPage: true })

    const [checkout] = await Promise.all([context.waitForEvent('page'), link.click()])
    await checkout.waitForLoadState()
    await checkout.getByRole('button', { name: 'Simulate payment', exact: true }).click()
    await expect.poll(() => checkout.textContent('#status-heading')).toBe('Paid')

    await page.locator('.from-bot .bubble', { hasText: 'Payment received' }).waitFor({ timeout: 10_000 })
    const trackId = href!.split('/pay/')[1]!
    const orders = JSON.parse(await readFile(bot.ordersFile, 'utf8')) as Array<{ trackId: string; state: string; chatId: number }>
    expect(orders).toEqual([expect.objectContaining({ trackId, state: 'delivered', chatId: 1000001 })])
    await page.setViewportSize({ width: 1280, height: 800 })
    await page.screenshot({ path: join(OUTPUT, 'chat-desktop.png'), fullPage: true })
    expect(dialogs).toEqual([])
  })

  test('hostile bot text is drawn inert: no markup of the bot reaches the page, links only to safe schemes', async () => {
    const token = '5550002:Host1le_bot_token-abcdefghijklmnopq'
    const sb = suite.sandbox
    const call = async (method: string, params: Record<string, unknown>) =>
      (await sb.client.raw({ method: 'POST', path: `/telegram/bot${token}/${method}`, body: params })).json as { ok: boolean; description?: string }
    await call('getMe', {})
    await sb.client.chatSend({ bot: '5550002', text: 'hi' })
    const chat_id = 1000001
    const sent = [
      await call('sendMessage', { chat_id, text: '<img src=x onerror="document.title=\'owned\'"><script>document.title="owned"</script>' }),
      await call('sendMessage', { chat_id, text: '<a href="javascript:document.title=1">click</a> <b>bold</b>', parse_mode: 'HTML' }),
      await call('sendMessage', { chat_id, text: '[click](javascript:alert\\(1\\)) and *bold*', parse_mode: 'MarkdownV2' }),
      await call('sendMessage', {
        chat_id,
        text: 'entities out of range and crossing',
        entities: [
          { type: 'bold', offset: 0, length: 20 },
          { type: 'italic', offset: 10, length: 20 },
          { type: 'text_link', offset: 0, length: 8, url: 'javascript:alert(1)' },
          { type: 'code', offset: 500, length: 4 },
          { type: 'underline', offset: -3, length: 9000 },
        ],
      }),
      await call('sendMessage', { chat_id, text: `${'W'.repeat(4000)} "><svg onload=alert(1)>`, reply_markup: { inline_keyboard: [[{ text: '<script>alert(1)</script>', callback_data: 'x' }]] } }),
    ]
    expect(sent.map((s) => s.ok)).toEqual([true, true, true, true, true])
    const page = await suite.page({ viewport: { width: 1280, height: 800 } })
    const dialogs: string[] = []
    page.on('dialog', (d) => void dialogs.push(d.message()))
    await page.goto(`${sb.url}/chat?bot=5550002`)
    await page.waitForTimeout(300)
    expect(await page.title()).not.toContain('owned')
    expect(await page.locator('.bubble img, .bubble script, .bubble svg, .bubble [onerror]').count()).toBe(0)
    const bubbles = await page.locator('.from-bot .bubble').allTextContents()
    expect(bubbles[0]).toContain('<img src=x onerror=')
    expect(bubbles[1]).toBe('click bold')
    expect(await page.locator('.from-bot .bubble strong').first().textContent()).toBe('bold')
    for (const href of await page.locator('a').evaluateAll((as) => as.map((a) => a.getAttribute('href') ?? ''))) {
      expect(href).toMatch(/^(\/|https?:|tg:|mailto:|#)/)
    }
    expect(await page.getByRole('button', { name: '<script>alert(1)</script>' }).count()).toBe(1)
    // A bubble of 4000 characters stays inside the page's width.
    const width = await page.evaluate(() => document.documentElement.scrollWidth)
    expect(width).toBeLessThanOrEqual(1280)
    expect(dialogs).toEqual([])
    await page.screenshot({ path: join(OUTPUT, 'chat-hostile.png'), fullPage: true })
  })
})
