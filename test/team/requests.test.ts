/**
 * A team sandbox's request log is one list: each instance's answered requests, in one order, read through any
 * instance (`GET /_sandbox/requests`, `pay logs tail --follow`), bounded as one sandbox's log is.
 */
import { spawn } from 'node:child_process'
import { describe, expect, onTestFinished, test } from 'vitest'
import { BIN, ROOT, sandbox } from '../helpers.js'
import { freshDatabase } from './postgres.js'

const post = (url: string, body: unknown) => fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })

interface Logged {
  seq: number
  path: string
  trackId?: string
}

describe('the request log of a team sandbox', () => {
  test('requests answered by either instance are listed by both, in one order; pay logs tail --follow on one prints those the other answers', async () => {
    const url = await freshDatabase()
    const a = await sandbox({ store: url })
    const b = await sandbox({ store: url, requestLog: { capacity: 50 } })
    const follow = spawn(process.execPath, [BIN, 'logs', 'tail', '--follow', '--json', '--url', b.url], { cwd: ROOT, env: { ...process.env, NO_COLOR: '1' } })
    onTestFinished(() => {
      follow.kill('SIGKILL')
    })
    let followed = ''
    follow.stdout.on('data', (c: Buffer) => (followed += c.toString()))
    // Following once it prints a request made now (through the other instance).
    await expect.poll(async () => (await fetch(`${a.url}/_sandbox/merchants`), followed.includes('/_sandbox/merchants')), { timeout: 20_000, interval: 200 }).toBe(true)

    const trackIds: string[] = []
    for (let i = 0; i < 30; i++) {
      const res = await post(`${(i % 2 ? a : b).url}/api/v1/request`, { merchant: 'sandbox', amount: 1 + i, callbackUrl: 'http://127.0.0.1:9/cb' })
      trackIds.push(((await res.json()) as { trackId: string }).trackId)
    }
    // One order for both: the order the entries reached the shared list. An entry is sent once its request is
    // answered, so two answered one after the other by two instances may reach it in either order.
    const orders: string[][] = []
    for (const at of [a, b]) {
      const listed = (await (await fetch(`${at.url}/_sandbox/requests?path=/api/v1/request`)).json()) as { requests: Logged[] }
      orders.push(listed.requests.map((r) => r.trackId!))
      expect([...orders.at(-1)!].sort()).toEqual([...trackIds].sort())
      const seqs = listed.requests.map((r) => r.seq)
      expect(seqs).toEqual([...seqs].sort((x, y) => x - y))
    }
    expect(orders[1]).toEqual(orders[0])
    // The follower on b prints a's requests too, as they are answered.
    await expect.poll(() => trackIds.filter((trackId) => followed.includes(trackId)).length, { timeout: 10_000 }).toBe(30)
    // b keeps its own bound: the newest 50.
    for (let i = 0; i < 60; i++) await post(`${a.url}/api/v1/verify`, { merchant: 'sandbox', trackId: trackIds[0] })
    const kept = (await (await fetch(`${b.url}/_sandbox/requests`)).json()) as { requests: Logged[]; oldestSeq: number; latestSeq: number }
    expect(kept.requests.length).toBeLessThanOrEqual(50)
    expect(kept.latestSeq - kept.oldestSeq + 1).toBe(kept.requests.length)
  })
})
