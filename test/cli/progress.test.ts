import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import type { SandboxClient } from '../../src/client/index.js'
import { eventually } from '../callbacks/receiver.js'
import { pay, sandbox, tempDir } from '../helpers.js'
import { terminal } from './tty.js'

const SPINNER = /[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]/

async function pending(client: SandboxClient): Promise<string> {
  const created = await client.createPayment({ merchant: 'sandbox', amount: 3, callbackUrl: 'http://127.0.0.1:9/cb' })
  if (created.result !== 100) throw new Error(JSON.stringify(created))
  return created.trackId
}

/** Resolves once `payment wait` has looked at the payment `times` times: it is in its waiting loop. */
async function looked(client: SandboxClient, trackId: string, times: number): Promise<void> {
  await eventually(async () => {
    const { requests } = await client.listRequests({ method: 'GET' })
    return requests.filter((r) => r.path === `/_sandbox/payments/${trackId}`).length >= times ? true : undefined
  }, 15_000)
}

describe('long waits show a spinner at a terminal, and nowhere else', () => {
  test('payment wait: a spinner naming what it waits for, cleared once the payment gets there', async () => {
    const sb = await sandbox()
    const trackId = await pending(sb.client)
    const tty = await terminal(['payment', 'wait', trackId, '--status', 'paid', '--timeout', '60s', '--url', sb.url])
    const screen = await tty.waitFor(/waiting for/)
    expect(screen).toMatch(new RegExp(`${SPINNER.source} waiting for ${trackId}: paid \\(up to 60s\\)`))
    await sb.client.simulate(trackId, { outcome: 'paid' })
    const done = await tty.waitFor(/\[exit \d+\]/)
    expect(done).toContain(`✔ Payment ${trackId} is paid`)
    expect(done).toContain('[exit 0]')
    expect(done).not.toMatch(/waiting for/)
  })

  test('sandbox wait: a spinner until the timeout, then only the error', async () => {
    const tty = await terminal(['sandbox', 'wait', '--url', 'http://127.0.0.1:9', '--timeout', '3s'])
    expect(await tty.waitFor(/waiting for/)).toMatch(new RegExp(`${SPINNER.source} waiting for a sandbox at http://127\\.0\\.0\\.1:9 \\(up to 3s\\)`))
    const done = await tty.waitFor(/\[exit \d+\]/)
    expect(done).toContain('[exit 6]')
    expect(done).toContain('Error: no sandbox answered at http://127.0.0.1:9 within 3s')
    expect(done).not.toMatch(/waiting for/)
  })

  test('with --json at a terminal: no spinner while it waits', async () => {
    const sb = await sandbox()
    const trackId = await pending(sb.client)
    const tty = await terminal(['payment', 'wait', trackId, '--status', 'paid', '--timeout', '60s', '--url', sb.url, '--json'])
    await looked(sb.client, trackId, 5)
    const screen = await tty.screen()
    expect(screen).not.toMatch(SPINNER)
    expect(screen).not.toContain('waiting for')
    await sb.client.simulate(trackId, { outcome: 'paid' })
    expect(await tty.waitFor(/\[exit \d+\]/)).toContain('[exit 0]')
  })

  test('not at a terminal: stderr holds the error and nothing else', async () => {
    const sb = await sandbox()
    const trackId = await pending(sb.client)
    const r = await pay(['payment', 'wait', trackId, '--status', 'paid', '--timeout', '300ms', '--url', sb.url])
    expect(r.code).toBe(6)
    expect(r.stderr).toBe(`Error: payment ${trackId} is still pending after 300ms (waiting for paid)\n`)
    const scenario = await pay(['scenario', 'run', 'fixtures/scenarios/paid.json', '--start'])
    expect(scenario.code, scenario.stderr).toBe(0)
    expect(scenario.stderr).toBe('')
    expect(scenario.stdout).not.toMatch(SPINNER)
  })

  test('scenario run at a terminal: a line per step, with a spinner on the step running, gone at the end', async () => {
    const file = join(await tempDir(), 'slow.json')
    await writeFile(file, JSON.stringify({ version: 1, name: 'slow', steps: [{ merchant: { as: 'shop' } }, { title: 'a pause', wait: 5000 }] }))
    const tty = await terminal(['scenario', 'run', file, '--start'])
    const running = await tty.waitFor(new RegExp(`${SPINNER.source} slow: step 2 of 2`))
    expect(running).toMatch(/✔ 1\. /)
    const done = await tty.waitFor(/\[exit \d+\]/, 30_000)
    expect(done).toContain('[exit 0]')
    expect(done).not.toMatch(SPINNER)
  }, 40_000)
})
