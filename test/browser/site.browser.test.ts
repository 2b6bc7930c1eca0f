import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import { GUIDES, guideFile } from '../../src/guides.js'
import { ROOT } from '../helpers.js'
import { browserSuite } from './chromium.js'

const suite = browserSuite()

describe('the root and the icon', () => {
  test('over HTTP: / is the inspector; /favicon.ico is an SVG icon', async () => {
    const sb = suite.sandbox
    const root = await sb.client.raw({ method: 'GET', path: '/', headers: { accept: 'text/html' } })
    expect(root.status).toBe(200)
    expect(root.text).toContain('<h1>Sandbox inspector</h1>')
    const icon = await sb.client.raw({ method: 'GET', path: '/favicon.ico', headers: { accept: 'image/*' } })
    expect(icon.status).toBe(200)
    expect(icon.headers['content-type']).toBe('image/svg+xml')
    expect(icon.text).toMatch(/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/)
  })

  test('in Chromium: the checkout page, the inspector, /dashboard and a JSON route log no console error and no failed request', async () => {
    const sb = suite.sandbox
    const created = await sb.client.createPayment({ merchant: 'sandbox', amount: 25.5, callbackUrl: 'http://127.0.0.1:9/cb', description: 'Two mugs' })
    if (created.result !== 100) throw new Error(JSON.stringify(created))
    const problems: string[] = []
    for (const path of [`/pay/${created.trackId}`, '/', '/dashboard', `/inspect/payments/${created.trackId}`, '/_sandbox/health']) {
      const context = await suite.context()
      const page = await context.newPage()
      let open = true
      page.on('requestfailed', (r) => open && problems.push(`${path}: failed: ${r.url()} ${r.failure()?.errorText}`))
      page.on('response', (r) => {
        if (!open) return
        if (r.status() >= 400) problems.push(`${path}: HTTP ${r.status()} ${r.url()}`)
      })
      const response = await page.goto(`${sb.url}${path}`)
      if (response?.status() !== 200) problems.push(`${path}: HTTP ${response?.status()}`)
      if (path === '/dashboard') expect(page.url()).toBe(`${sb.url}/inspect/payments`)
      // Browsers fetch the icon after the load; give it time to come, and to fail if it would. (The inspector's
      // pages keep their event stream open: the network is never idle there.)
      await page.waitForLoadState('networkidle', { timeout: 800 }).catch(() => {})
      await page.waitForTimeout(300)
      open = false
      await context.close()
    }
    // The pages name /favicon.ico as their icon: were it missing, each would log a failed load.
    expect(problems).toEqual([])
  })
})

describe('the guides', () => {
  test('the home page links each guide by its title; /guides/<name> is its Markdown; another name is a 404 naming them', async () => {
    const sb = suite.sandbox
    const page = await suite.page()
    await page.goto(sb.url)
    const links = await page.locator('#guides a').evaluateAll((as) => as.map((a) => [a.textContent, a.getAttribute('href')]))
    expect(links).toEqual(GUIDES.map((g) => [g.title, `/guides/${g.name}`]))

    await page.click(`#guides a:text-is("${GUIDES[0].title}")`)
    expect(page.url()).toBe(`${sb.url}/guides/${GUIDES[0].name}`)
    expect(await page.textContent('body')).toBe(await readFile(join(ROOT, guideFile(GUIDES[0].name)), 'utf8'))

    for (const g of GUIDES) {
      const answer = await sb.client.raw({ method: 'GET', path: `/guides/${g.name}` })
      expect(answer.status, g.name).toBe(200)
      expect(answer.headers['content-type']).toBe('text/plain; charset=utf-8')
      expect(answer.text.split('\n')[0]).toBe(`# ${g.title}`)
    }
    for (const name of ['nope', '..%2Fpackage.json', 'reference%2Fcommands']) {
      const answer = await sb.client.raw({ method: 'GET', path: `/guides/${name}` })
      expect(answer.status, name).toBe(404)
      expect(answer.json).toMatchObject({ error: 'not_found', message: expect.stringContaining(`the guides are ${GUIDES.map((g) => g.name).join(', ')}`) })
    }
  })
})

describe('the pages without JavaScript', () => {
  test('with JavaScript off, the checkout page, the inspector and the chat page show the payment and the chat, and say what needs JavaScript', async () => {
    const sb = suite.sandbox
    const created = await sb.client.createPayment({ merchant: 'sandbox', amount: 25.5, callbackUrl: 'http://127.0.0.1:9/cb', description: 'No script here' })
    if (created.result !== 100) throw new Error(JSON.stringify(created))
    const token = '7002:N0script_bot_token-abcdefghijklmnop'
    expect((await sb.client.raw({ method: 'POST', path: `/telegram/bot${token}/getMe`, body: {} })).status).toBe(200)
    await sb.client.chatSend({ bot: '7002', chat: 1001, text: 'typed elsewhere' })
    const page = await suite.page({ javaScriptEnabled: false })
    // Text selectors do not look inside <noscript>.
    const visible = async (text: string) => (await page.locator('noscript:visible').allInnerTexts()).some((t) => t.includes(text))

    await page.goto(sb.client.checkoutUrl(created.trackId))
    expect(await page.textContent('.amount')).toContain('25.50')
    expect(await page.textContent('#checkout')).toContain(created.trackId)
    expect(await page.isVisible('#panel-BTC')).toBe(true)
    expect(await visible('These controls need JavaScript')).toBe(true)
    expect(await page.isVisible('button[data-outcome="paid"]')).toBe(false)

    await page.goto(`${sb.url}/inspect/payments/${created.trackId}`)
    expect(await page.textContent('h1')).toContain(created.trackId)
    expect(await page.textContent('#payment')).toContain('No script here')
    expect(await visible('These controls need JavaScript')).toBe(true)
    expect(await visible('Not live: reload to see changes')).toBe(true)

    await page.goto(`${sb.url}/chat?bot=7002&chat=1001`)
    expect(await page.textContent('.from-user .bubble')).toBe('typed elsewhere')
    expect(await visible('Sending needs JavaScript')).toBe(true)
    expect(await page.isVisible('#composer')).toBe(false)
  })
})
