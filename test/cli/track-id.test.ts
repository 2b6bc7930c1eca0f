import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { type Sandbox, startSandbox } from '../../src/index.js'
import { pay } from '../helpers.js'
import { eventually } from '../callbacks/receiver.js'

async function payment(sb: Sandbox): Promise<string> {
  const body = await sb.client.createPayment({ merchant: 'sandbox', amount: 5, callbackUrl: 'http://127.0.0.1:9/cb' })
  if (body.result !== 100) throw new Error(JSON.stringify(body))
  return body.trackId
}

/** Every form of a checkout URL a chat message or a browser may hold. */
function forms(url: string, trackId: string): string[] {
  const encoded = [...trackId].map((c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`).join('')
  const page = `${url}/pay/${trackId}`
  return [page, `${page}/`, `${page}?asset=ETH`, `${page}/#pay`, `${url}/pay/${encoded}`, page.replace('http://', ''), `https://shop.example/sandbox/pay/${trackId}`]
}

describe('every trackId argument also takes the checkout URL', () => {
  // One sandbox; each test its own payment.
  let sb: Sandbox
  beforeAll(async () => {
    sb = await startSandbox({ callbacks: { retries: 0 } })
  })
  afterAll(() => sb?.stop())

  const run = async (args: string[]) => {
    const r = await pay([...args, '--url', sb.url, '--json'], { env: { DISPLAY: '', WAYLAND_DISPLAY: '', BROWSER: '' } })
    expect(r.code, `${args.join(' ')}\n${r.stderr}`).toBe(0)
    return JSON.parse(r.stdout) as Record<string, unknown>
  }
  /** A payment moved to unfinalized (its callback fails: nothing listens on port 9), and its checkout URLs. */
  const unfinalized = async () => {
    const trackId = await payment(sb)
    await sb.client.simulate(trackId, { outcome: 'unfinalized' })
    return { trackId, urls: forms(sb.url, trackId) }
  }

  test('payment simulate', async () => {
    const trackId = await payment(sb)
    const urls = forms(sb.url, trackId)
    expect(await run(['payment', 'simulate', urls[0]!, '--outcome', 'unfinalized'])).toMatchObject({ trackId, status: 'unfinalized' })
    expect(await run(['payment', 'simulate', urls[3]!, '--outcome', 'paid'])).toMatchObject({ trackId, status: 'paid' })
  })

  // Reads: each command runs for every form at once.
  test('payment verify', async () => {
    const { urls } = await unfinalized()
    for (const answer of await Promise.all(urls.map((url) => run(['payment', 'verify', url])))) expect(answer).toEqual({ result: 203, amount: 5 })
  })

  test('payment show', async () => {
    const { trackId, urls } = await unfinalized()
    for (const shown of await Promise.all(urls.map((url) => run(['payment', 'show', url])))) expect((shown.payment as { trackId: string }).trackId).toBe(trackId)
  })

  test('payment wait', async () => {
    const { trackId, urls } = await unfinalized()
    for (const waited of await Promise.all(urls.map((url) => run(['payment', 'wait', url, '--status', 'unfinalized'])))) expect(waited).toMatchObject({ trackId })
  })

  test('open', async () => {
    const { trackId, urls } = await unfinalized()
    for (const opened of await Promise.all([urls[1]!, urls[4]!].map((url) => run(['open', url])))) expect(opened).toEqual({ url: `${sb.url}/pay/${trackId}`, opened: false })
  })

  test('callback list --track-id and callback replay', async () => {
    const { trackId, urls } = await unfinalized()
    const deliveries = await eventually(async () => {
      const list = await sb.client.listDeliveries({ trackId })
      return list[0]?.state === 'failed' ? list : undefined
    })
    for (const listed of await Promise.all(urls.map((url) => run(['callback', 'list', '--track-id', url])))) {
      expect((listed.deliveries as Array<{ id: string }>).map((d) => d.id)).toEqual(deliveries.map((d) => d.id))
    }
    const replay = await pay(['callback', 'replay', urls[2]!, '--url', sb.url, '--json'])
    expect(replay.code).toBe(8)
    expect(JSON.parse(replay.stdout).deliveries[0]).toMatchObject({ trackId, replayOf: deliveries[0]!.id })
  })

  test.each([
    ['a page that is not a checkout page', 'http://127.0.0.1:8787/dashboard'],
    ['a checkout URL without a trackId', 'http://127.0.0.1:8787/pay/'],
    ['a path below a checkout page', 'http://127.0.0.1:8787/pay/abc/status'],
    ['broken percent-encoding', 'http://127.0.0.1:8787/pay/%E0%A4%A'],
  ])('%s is a usage error naming the argument', async (_what, url) => {
    const commands = [['payment', 'show', url], ['payment', 'simulate', url, '--outcome', 'paid'], ['callback', 'list', '--track-id', url]]
    for (const r of await Promise.all(commands.map((args) => pay([...args, '--url', 'http://127.0.0.1:9', '--json'])))) {
      expect(r.code, r.stderr).toBe(2)
      const error = (JSON.parse(r.stdout) as { error: { code: string; message: string } }).error
      expect(error.code).toBe('usage')
      expect(error.message).toMatch(/^(the trackId argument|--track-id) must be a trackId or a checkout URL ending in \/pay\/<trackId> \(got ".*"\)$/)
    }
  })
})
