import { describe, expect, test } from 'vitest'
import type { Sandbox } from '../../src/index.js'
import { pay, sandbox } from '../helpers.js'
import { closedPortUrl, eventually } from '../callbacks/receiver.js'
import { terminal } from './tty.js'

const DESCRIPTION = `order ${'with a very long description '.repeat(8)}end`

async function longPayments(sb: Sandbox, callbackUrl: string): Promise<string[]> {
  const ids: string[] = []
  for (const amount of [10, 20]) {
    const body = await sb.client.createPayment({ merchant: 'sandbox', amount, callbackUrl, description: DESCRIPTION })
    if (body.result !== 100) throw new Error(JSON.stringify(body))
    ids.push(body.trackId)
  }
  return ids
}

const width = (line: string) => Array.from(line).length

describe('human tables fit the terminal; pipes, show and --json keep the full text', () => {
  test('COLUMNS=90: every line fits, descriptions are cut with …, trackIds are whole', async () => {
    const sb = await sandbox()
    const ids = await longPayments(sb, 'http://127.0.0.1:9/cb')
    const r = await pay(['payment', 'list', '--url', sb.url], { env: { COLUMNS: '90' } })
    expect(r.code).toBe(0)
    const lines = r.stdout.trimEnd().split('\n')
    for (const line of lines) expect(width(line), line).toBeLessThanOrEqual(90)
    for (const id of ids) expect(lines.find((l) => l.startsWith(id))).toMatch(/ order w.*…$/)
    expect(r.stdout).not.toContain(DESCRIPTION)
  })

  test('a pipe with no COLUMNS gets every character; so does show, and --json, at any width', async () => {
    const sb = await sandbox()
    const [id] = await longPayments(sb, 'http://127.0.0.1:9/cb')
    const piped = await pay(['payment', 'list', '--url', sb.url], { env: { COLUMNS: '' } })
    expect(piped.stdout).toContain(DESCRIPTION)
    const shown = await pay(['payment', 'show', id!, '--url', sb.url], { env: { COLUMNS: '40' } })
    expect(shown.stdout).toContain(DESCRIPTION)
    const json = await pay(['payment', 'list', '--url', sb.url, '--json'], { env: { COLUMNS: '40' } })
    expect(JSON.parse(json.stdout).payments[0].description).toBe(DESCRIPTION)
  })

  test('at a 100-column terminal the table fits its width', async () => {
    const sb = await sandbox()
    const ids = await longPayments(sb, 'http://127.0.0.1:9/cb')
    const tty = await terminal(['payment', 'list', '--url', sb.url], { COLUMNS: '' }, { columns: 100, rows: 20 })
    const screen = await tty.waitFor(/\[exit \d+\]/)
    expect(screen).toContain('[exit 0]')
    // A row wider than the pane would wrap: its first screen line would not end in the cut description.
    for (const id of ids) expect(screen.split('\n').find((l) => l.startsWith(id))).toMatch(/ order w.*…$/)
  })

  test('callback URLs and errors shrink before ids; payment show and callback list print the same rows', async () => {
    const sb = await sandbox({ callbacks: { retries: 0 } })
    const closed = await closedPortUrl()
    const long = `${closed}/${'callback/'.repeat(12)}end`
    const created = await sb.client.createPayment({ merchant: 'sandbox', amount: 5, callbackUrl: long })
    if (created.result !== 100) throw new Error(JSON.stringify(created))
    await sb.client.simulate(created.trackId, { outcome: 'paid' })
    const [delivery] = await eventually(async () => {
      const list = await sb.client.listDeliveries({ trackId: created.trackId })
      return list[0]?.state === 'failed' ? list : undefined
    })

    const env = { COLUMNS: '100' }
    const list = await pay(['callback', 'list', '--track-id', created.trackId, '--url', sb.url], { env })
    const rows = list.stdout.trimEnd().split('\n')
    expect(rows[0]).toMatch(/^ID\s+TRACK ID\s+STATUS\s+STATE\s+ATTEMPTS\s+LAST\s+URL$/)
    for (const line of rows) expect(width(line), line).toBeLessThanOrEqual(100)
    const cells = rows[1]!.split(/\s{2,}/)
    expect(cells.slice(0, 5)).toEqual([delivery!.id, created.trackId, 'paid', 'failed', '1/1'])
    expect(cells[5]).toMatch(/^connection.*…$/)
    expect(cells[6]).toMatch(/^http:\/\/127\.0.*…$/)

    const show = await pay(['payment', 'show', created.trackId, '--url', sb.url], { env })
    const callbacks = show.stdout.split('Callbacks\n')[1]!.trimEnd().split('\n')
    expect(callbacks[0]).toMatch(/^ID\s+STATUS\s+STATE\s+ATTEMPTS\s+LAST\s+URL$/)
    // The same renderer: the row of callback list without its TRACK ID column.
    expect(callbacks[1]!.split(/\s{2,}/)).toEqual([cells[0], ...cells.slice(2, 5), ...callbacks[1]!.split(/\s{2,}/).slice(4)])
    expect(callbacks[1]!.split(/\s{2,}/)[4]).toMatch(/^connection/)

    const wide = await pay(['callback', 'list', '--track-id', created.trackId, '--url', sb.url], { env: { COLUMNS: '' } })
    expect(wide.stdout).toContain(long)
    expect(wide.stdout).toContain(delivery!.attempts[0]!.error)
  })
})
