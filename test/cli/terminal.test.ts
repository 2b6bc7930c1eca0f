import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import { type Delivery, type Payment, SandboxClient } from '../../src/index.js'
import { closedPortUrl, eventually, receiver } from '../callbacks/receiver.js'
import { pay, sandbox, spawnSandbox, tempDir } from '../helpers.js'

/**
 * Text from the sandbox's data reaches the terminal written out: a description that clears the screen, sets the
 * clipboard (OSC 52) or overwrites a line to fake a success prints as visible escapes instead.
 */

const CLEAR = '\x1b[2J'
const CLIPBOARD = '\x1b]52;c;aGk=\x07'
const FAKE_LINE = '\r\x1b[2K✔ all payments verified'
const HOSTILE = `A${CLEAR}${CLIPBOARD}B${FAKE_LINE}\u009b31m\u202eevil\u2066\x7f\nnext`
/** What each hostile part looks like once written out. */
const WRITTEN_OUT = ['\\x1b[2J', '\\x1b]52;c;aGk=\\x07', '\\r\\x1b[2K✔ all payments verified', '\\x9b31m', '\\u202eevil\\u2066\\x7f\\nnext']

/** Anything a terminal would act on: C0 but newline (so ESC, BEL, CR, tab), DEL, C1, bidi and line separators. */
const ACTIVE = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/

function expectInert(...outputs: string[]): void {
  for (const text of outputs) {
    const found = ACTIVE.exec(text)
    expect(found && `U+${found[0].charCodeAt(0).toString(16).padStart(4, '0')} at ${found.index}: ${JSON.stringify(text.slice(Math.max(0, found.index - 30), found.index + 30))}`).toBeNull()
  }
}

async function paidPayment(url: string, client: SandboxClient, fields: Record<string, string>): Promise<string> {
  const created = await client.createPayment({ merchant: 'sandbox', amount: 5, callbackUrl: url, ...fields })
  if (created.result !== 100) throw new Error(JSON.stringify(created))
  await client.simulate(created.trackId, { outcome: 'paid' })
  return created.trackId
}

describe('hostile text in the sandbox prints inert', () => {
  test('payment list and show, merchant list: descriptions, mobiles, merchant names and URLs written out', async () => {
    const sb = await sandbox()
    await sb.client.createMerchant({ key: 'shop_evil', name: `Shop ${HOSTILE}` })
    const created = await sb.client.createPayment({
      merchant: 'shop_evil',
      amount: 5,
      callbackUrl: `${await closedPortUrl()}\u009b\u202e`,
      description: HOSTILE,
      mobile: `${CLIPBOARD}\u0085\u202e`,
    })
    if (created.result !== 100) throw new Error(JSON.stringify(created))

    const list = await pay(['payment', 'list', '--url', sb.url])
    const show = await pay(['payment', 'show', created.trackId, '--url', sb.url])
    const merchants = await pay(['merchant', 'list', '--url', sb.url])
    for (const r of [list, show, merchants]) expect(r.code).toBe(0)
    expectInert(list.stdout, list.stderr, show.stdout, show.stderr, merchants.stdout, merchants.stderr)

    expect(list.stdout).toContain(`A\\x1b[2J\\x1b]52;c;aGk=\\x07B\\r\\x1b[2K✔`)
    for (const part of WRITTEN_OUT) {
      expect(show.stdout).toContain(part)
      expect(merchants.stdout).toContain(part)
    }
    expect(show.stdout).toMatch(/mobile +\\x1b\]52;c;aGk=\\x07\\x85\\u202e\n/)
    expect(show.stdout).toMatch(/callback URL +http:\/\/127\.0\.0\.1:\d+\/callback\\x9b\\u202e\n/)
    // The table still lines up: one row per merchant, nothing broken onto a line of its own.
    expect(merchants.stdout.trim().split('\n')).toHaveLength(3)
  })

  test("callback show prints a receiver's escape-laden answer written out, keeping its lines", async () => {
    const rx = await receiver(() => ({ status: 500, body: `<h1>${CLIPBOARD}</h1>\r\n${CLEAR}\u009b${FAKE_LINE}` }))
    const sb = await sandbox({ callbacks: { retries: 0 } })
    const trackId = await paidPayment(rx.url, sb.client, {})
    const [delivery] = await eventually(async () => {
      const list = await sb.client.listDeliveries({ trackId })
      return list[0]?.state === 'failed' ? list : undefined
    })

    const show = await pay(['callback', 'show', delivery!.id, '--url', sb.url])
    expect(show.code).toBe(0)
    expectInert(show.stdout, show.stderr)
    expect(show.stdout).toContain('response <h1>\\x1b]52;c;aGk=\\x07</h1>\n       \\x1b[2J\\x9b\\r\\x1b[2K✔ all payments verified')

    // --json stays the exact data.
    const json = await pay(['callback', 'show', delivery!.id, '--url', sb.url, '--json'])
    expectInert(json.stdout)
    expect((JSON.parse(json.stdout) as { delivery: Delivery }).delivery.attempts[0]!.responseExcerpt).toBe(
      `<h1>${CLIPBOARD}</h1>\r\n${CLEAR}\u009b${FAKE_LINE}`,
    )
  })

  test('--json output is exact data with C1 and bidi controls escaped, and error messages print inert', async () => {
    const sb = await sandbox()
    await sb.client.createMerchant({ key: 'shop_evil', name: `Shop ${HOSTILE}` })
    const json = await pay(['merchant', 'list', '--url', sb.url, '--json'])
    expectInert(json.stdout)
    expect(json.stdout).toContain('\\u009b31m\\u202eevil')
    expect((JSON.parse(json.stdout) as { merchants: Array<{ name: string }> }).merchants[1]!.name).toBe(`Shop ${HOSTILE}`)

    const missing = await pay(['payment', 'show', `x${CLIPBOARD}\u009b`, '--url', sb.url])
    expect(missing.code).toBe(5)
    expectInert(missing.stdout, missing.stderr)
    expect(missing.stderr).toContain('no payment with trackId x\\x1b]52;c;aGk=\\x07\\x9b')
  })

  test('the console log of pay sandbox start: request and callback lines written out, credentials masked', async () => {
    const dir = await tempDir()
    const sb = await spawnSandbox(['--data', join(dir, 'data.json'), '--callback-retries', '0'])
    const client = new SandboxClient(sb.url)
    try {
      const dead = new URL(await closedPortUrl())
      const trackId = await paidPayment(`http://user:s3cret@${dead.host}/cb\u009b\u202e`, client, { description: HOSTILE })
      // A verify for a hostile trackId: the request line names the trackId it was asked about.
      await client.verifyPayment({ merchant: 'sandbox', trackId: HOSTILE })
      await eventually(() => (sb.output().includes('CALLBACK') && sb.output().includes('/api/v1/verify') ? true : undefined))
      const output = sb.output()
      expectInert(output)
      expect(output).toMatch(/POST \/api\/v1\/verify 200 result=203 trackId=A\\x1b\[2J\\x1b\]52;c;aGk=\\x07B\\r\\x1b\[2K✔ all payments verified\\x9b31m\\u202eevil\\u2066\\x7f\\nnext /)
      expect(output).toContain(`CALLBACK POST http://user:***@${dead.host}/cb\\x9b\\u202e --- trackId=${trackId}`)
      expect(output).not.toContain('s3cret')
    } finally {
      client.close()
    }
  })
})

describe('URL credentials are masked wherever pay shows them, and kept in sandbox export', () => {
  test('callback list (table and --json), payment show and list --json, the inspector; the export keeps them', async () => {
    const rx = await receiver()
    const sb = await sandbox()
    const withPassword = rx.url.replace('http://', 'http://merchant:s3cret@')
    const withToken = rx.url.replace('http://', 'http://tok_8fJ2kq@')
    const first = await paidPayment(withPassword, sb.client, { returnUrl: 'https://shop:s3cret@shop.example/thanks' })
    await paidPayment(withToken, sb.client, {})
    await eventually(async () => ((await sb.client.listDeliveries({ state: 'delivered' })).length === 2 ? true : undefined))
    const masked = rx.url.replace('http://', 'http://merchant:***@')
    const maskedToken = rx.url.replace('http://', 'http://***@')

    const table = await pay(['callback', 'list', '--url', sb.url])
    expect(table.stdout).toContain(masked)
    expect(table.stdout).toContain(maskedToken)

    const bundle = await pay(['callback', 'list', '--url', sb.url, '--json'])
    const deliveries = (JSON.parse(bundle.stdout) as { deliveries: Delivery[] }).deliveries
    expect(deliveries.map((d) => d.url)).toEqual([masked, maskedToken])

    const show = await pay(['payment', 'show', first, '--url', sb.url])
    expect(show.stdout).toContain(`callback URL  ${masked}`)
    expect(show.stdout).toContain('return URL    https://shop:***@shop.example/thanks')
    const showJson = JSON.parse((await pay(['payment', 'show', first, '--url', sb.url, '--json'])).stdout) as { payment: Payment; deliveries: Delivery[] }
    expect(showJson.payment).toMatchObject({ callbackUrl: masked, returnUrl: 'https://shop:***@shop.example/thanks' })
    expect(showJson.deliveries[0]!.url).toBe(masked)
    const listJson = JSON.parse((await pay(['payment', 'list', '--url', sb.url, '--json'])).stdout) as { payments: Payment[] }
    expect(listJson.payments.map((p) => p.callbackUrl)).toEqual([masked, maskedToken])

    const replay = await pay(['callback', 'replay', first, '--url', sb.url])
    expect(replay.code).toBe(0)
    expect(replay.stdout).toContain(`→ ${masked}: HTTP 200`)

    const inspector = await sb.client.raw({ method: 'GET', path: `/inspect/payments/${first}`, headers: { accept: 'text/html' } })
    expect(inspector.status).toBe(200)
    expect(inspector.text).toContain(masked)
    const requests = await sb.client.raw({ method: 'GET', path: '/_sandbox/requests' })
    expect(requests.text).toContain(masked)

    for (const text of [table.stdout, bundle.stdout, show.stdout, replay.stdout, inspector.text, requests.text, JSON.stringify(showJson), JSON.stringify(listJson)]) {
      expect(text).not.toContain('s3cret')
      expect(text).not.toContain('tok_8fJ2kq')
    }

    const file = join(await tempDir(), 'backup.json')
    const exported = await pay(['sandbox', 'export', file, '--url', sb.url])
    expect(exported.code).toBe(0)
    const backup = await readFile(file, 'utf8')
    expect(backup).toContain(withPassword)
    expect(backup).toContain(withToken)
    expect(backup).toContain('https://shop:s3cret@shop.example/thanks')
  })
})

describe('scenario reports print inert', () => {
  async function hostileScenario(): Promise<string> {
    const dir = await tempDir()
    // The file name itself is hostile too.
    const file = join(dir, `evil${CLIPBOARD}.json`)
    const scenario = {
      version: 1,
      name: `Name ${HOSTILE}`,
      steps: [
        { title: `Title ${HOSTILE}`, create: { as: 'order', merchant: 'sandbox', amount: 5, callbackUrl: 'http://127.0.0.1:9/cb', description: HOSTILE } },
        // Fails, and its message quotes the hostile text it expected.
        { verify: { payment: 'order' }, expect: { message: `\u009b\u202e${FAKE_LINE}` } },
      ],
    }
    await writeFile(file, JSON.stringify(scenario))
    return file
  }

  test('human reporter: names, titles, file names and failure messages written out', async () => {
    const file = await hostileScenario()
    const r = await pay(['scenario', 'run', file, '--start'], { timeoutMs: 30_000 })
    expect(r.code).toBe(6)
    expectInert(r.stdout, r.stderr)
    expect(r.stdout).toContain('Name A\\x1b[2J\\x1b]52;c;aGk=\\x07B\\r\\x1b[2K✔ all payments verified')
    expect(r.stdout).toContain('evil\\x1b]52;c;aGk=\\x07.json')
    expect(r.stdout).toContain('1. Title A\\x1b[2J')
    // The message quotes the expected text as JSON (\u001b), with C1 and bidi controls written out too.
    expect(r.stdout).toContain('expected message "\\x9b\\u202e\\r\\u001b[2K✔ all payments verified"')
  })

  test('JUnit reporter: written out, and nothing XML 1.0 forbids', async () => {
    const file = await hostileScenario()
    const r = await pay(['scenario', 'run', file, '--start', '--reporter', 'junit'], { timeoutMs: 30_000 })
    expect(r.code).toBe(6)
    expectInert(r.stdout, r.stderr)
    expect(r.stdout).not.toMatch(/[^\u0009\u000a\u000d\u0020-\ud7ff\ue000-\ufffd\u{10000}-\u{10ffff}]/u)
    expect(r.stdout).toContain('name="Name A\\x1b[2J\\x1b]52;c;aGk=\\x07B\\r\\x1b[2K✔ all payments verified')
    expect(r.stdout).toContain('<failure message="')
  })
})
