import { afterAll, beforeAll, expect, test } from 'vitest'
import { type Sandbox, startSandbox } from '../../src/index.js'

/** Wrong input to the lab's routes: a 4xx JSON error naming the problem, never a 5xx, and nothing moved. */
let sb: Sandbox
beforeAll(async () => {
  sb = await startSandbox()
})
afterAll(() => sb.stop())

const deep = (n: number): unknown => (n === 0 ? 1 : { a: deep(n - 1) })
const huge = 'x'.repeat(200_000)

const bodies: Array<[string, unknown]> = [
  ['/_sandbox/clock/advance', { ms: '3600000' }],
  ['/_sandbox/clock/advance', { ms: 1e300 }],
  ['/_sandbox/clock/advance', { ms: -5 }],
  ['/_sandbox/clock/advance', { ms: deep(2000) }],
  ['/_sandbox/clock/advance', [1, 2]],
  ['/_sandbox/clock/set', { time: '2030-01-01T00:00:00Z\r\nX-Injected: 1' }],
  ['/_sandbox/clock/set', { time: huge }],
  ['/_sandbox/clock/set', { time: 20300101 }],
  ['/_sandbox/clock/set', { time: '\u0000\u202e' }],
  ['/_sandbox/clock/reset', { now: true }],
  ['/_sandbox/chain/mine', { blocks: '3' }],
  ['/_sandbox/chain/mine', { blocks: 1_000_000_000 }],
  ['/_sandbox/chain/mine', { blocks: 0.5 }],
  ['/_sandbox/chain/mine', { blocks: deep(2000) }],
  ['/_sandbox/chain/mine', null],
]

test.each(bodies.map(([path, body], i) => [i, path, body] as const))('%i: POST %s with a wrong body is a 4xx JSON error', async (_i, path, body) => {
  const before = await sb.client.clock()
  const res = await sb.client.raw({ method: 'POST', path, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
  expect(res.status, res.text.slice(0, 300)).toBeGreaterThanOrEqual(400)
  expect(res.status).toBeLessThan(500)
  const error = JSON.parse(res.text) as { error: string; message: string }
  expect(error.error).toMatch(/^[a-z_]+$/)
  expect(error.message.length).toBeLessThan(1000)
  expect(error.message).not.toMatch(/[\u0000-\u001f\u202e]/)
  const after = await sb.client.clock()
  expect(after.offsetMs).toBe(before.offsetMs)
})

// A query too long for Node's parser is 431 in the same shape, and the keep-alive client's next request still works.
test.each([
  ['since', 'yesterday\r\n'],
  ['since', huge],
  ['ignore', 'no-such-check'],
  ['ignore', huge],
  ['trackId', '../../etc/passwd'],
  ['strict', 'maybe'],
])('GET /_sandbox/audit?%s=<wrong> is a 4xx JSON error', async (name, value) => {
  const res = await sb.client.raw({ method: 'GET', path: `/_sandbox/audit?${new URLSearchParams({ [name]: value })}` })
  expect(res.status, res.text.slice(0, 300)).toBeGreaterThanOrEqual(400)
  expect(res.status).toBeLessThan(500)
  expect((JSON.parse(res.text) as { error: string }).error).toMatch(/^[a-z_]+$/)
})
