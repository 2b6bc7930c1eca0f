import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, onTestFinished, test } from 'vitest'
import { type Sandbox, startSandbox } from '../../src/index.js'
import { pay, tempDir } from '../helpers.js'

describe('the sandbox clock over HTTP and the CLI', () => {
  let sb: Sandbox
  beforeAll(async () => {
    sb = await startSandbox()
  })
  afterAll(() => sb.stop())

  test('GET /_sandbox/clock and health show real time until the clock is moved; advance stamps changes with the sandbox time', async () => {
    expect(await sb.client.clock()).toMatchObject({ real: true, aheadMs: 0, offsetMs: 0 })
    const page = async (path: string) => (await sb.client.raw({ method: 'GET', path, headers: { accept: 'text/html' } })).text
    expect(await page('/')).not.toContain('id="sandbox-clock"')
    const moved = await sb.client.advanceClock(3_600_000)
    expect(moved.clock.real).toBe(false)
    expect(moved.clock.aheadMs).toBeGreaterThanOrEqual(3_600_000)
    expect((await sb.client.health()).clock).toMatchObject({ real: false })
    // Every page's banner says the time is not real: the inspector's as the checkout page's.
    for (const path of ['/', '/inspect/payments']) expect(await page(path)).toMatch(/id="sandbox-clock"[^<]*>Sandbox clock <time[^>]*>[^<]+<\/time>, 1 h ahead of real time\./)
    const created = await sb.client.createPayment({ merchant: 'sandbox', amount: 5, callbackUrl: 'https://shop.example/cb' })
    if (created.result !== 100) throw new Error('create failed')
    const { payment } = await sb.client.getPayment(created.trackId)
    expect(Date.parse(payment.createdAt) - Date.now()).toBeGreaterThan(3_590_000)
  })

  test('set to an earlier time is 400 invalid_field naming both times, and changes nothing', async () => {
    const before = await sb.client.clock()
    const res = await sb.client.raw({ method: 'POST', path: '/_sandbox/clock/set', body: { time: '2001-01-01T00:00:00Z' } })
    expect(res.status).toBe(400)
    expect(res.json).toMatchObject({ error: 'invalid_field', message: expect.stringMatching(/^2001-01-01T00:00:00\.000Z is before the sandbox clock's time .*; the clock only moves forward/) })
    expect((await sb.client.clock()).offsetMs).toBe(before.offsetMs)
  })

  test('bodies are checked by their schema: a zero advance, a missing time, an unknown field', async () => {
    for (const [path, body] of [
      ['/_sandbox/clock/advance', { ms: 0 }],
      ['/_sandbox/clock/advance', { ms: 90_000_000 }],
      ['/_sandbox/clock/set', {}],
      ['/_sandbox/clock/set', { time: 'soon' }],
    ] as const) {
      const res = await sb.client.raw({ method: 'POST', path, body })
      expect(res.status, `${path} ${JSON.stringify(body)}`).toBe(400)
    }
  })

  test('pay clock, pay clock advance and pay clock set (exit 2 for an earlier time, with --json one error document)', async () => {
    const shown = await pay(['clock', '--url', sb.url])
    expect(shown.code).toBe(0)
    expect(shown.stdout).toMatch(/sandbox time {2}\d{4}-.*\n {2}real time {5}.*\n {2}clock {9}1h ahead of real time/)
    const advanced = await pay(['clock', 'advance', '90s', '--url', sb.url, '--json'])
    expect(advanced.code).toBe(0)
    expect(JSON.parse(advanced.stdout)).toMatchObject({ clock: { real: false }, fired: expect.any(Number) })
    const back = await pay(['clock', 'set', '2001-01-01T00:00:00Z', '--url', sb.url, '--json'])
    expect(back.code).toBe(2)
    expect(JSON.parse(back.stdout)).toMatchObject({ error: { code: 'usage', exit: 2, message: expect.stringContaining('the clock only moves forward') } })
  })

  test('pay clock reset while ahead: the offset goes and the time stands still', async () => {
    const before = await sb.client.clock()
    const reset = await pay(['clock', 'reset', '--url', sb.url, '--json'])
    expect(reset.code).toBe(0)
    const clock = JSON.parse(reset.stdout).clock
    expect(clock).toMatchObject({ offsetMs: 0, real: false })
    expect(Date.parse(clock.holdingUntil)).toBeGreaterThanOrEqual(Date.parse(before.now))
    const later = await sb.client.clock()
    expect(later.now).toBe(clock.holdingUntil)
  })
})

test('the clock offset is saved in the data file and comes back after a restart', async () => {
  const dataFile = join(await tempDir(), 'data.json')
  const first = await startSandbox({ dataFile })
  await first.client.setClock('2031-06-01T00:00:00.000Z')
  await first.stop()
  const second = await startSandbox({ dataFile })
  onTestFinished(() => second.stop())
  const clock = await second.client.clock()
  expect(Date.parse(clock.now)).toBeGreaterThanOrEqual(Date.parse('2031-06-01T00:00:00.000Z'))
  expect(Date.parse(clock.now)).toBeLessThan(Date.parse('2031-06-01T00:01:00.000Z'))
})
