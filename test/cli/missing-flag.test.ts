import { describe, expect, test } from 'vitest'
import { pay } from '../helpers.js'

/** Nothing answers here: a missing flag must be refused before any request. */
const nowhere = ['--url', 'http://127.0.0.1:9']

describe('a missing required flag or argument, not at a terminal: exit 2 with what it takes, an example that sets it, and the help to see', () => {
  test('pay payment create with no flags', async () => {
    const r = await pay(['payment', 'create', ...nowhere])
    expect(r.code).toBe(2)
    expect(r.stdout).toBe('')
    expect(r.stderr).toBe(
      [
        'Error: missing required flag --amount — order amount, greater than 0 (asked for at a terminal if missing)',
        '  → example: pay payment create --amount 25.5 --callback-url http://localhost:3000/callback',
        '  → see: pay payment create --help',
        '',
      ].join('\n'),
    )
  })

  test.each([
    [['payment', 'create', '--amount', '5'], 'missing required flag --callback-url — URL that receives the callback', 'pay payment create --amount 25.5 --callback-url http://localhost:3000/callback', 'pay payment create'],
    [['payment', 'simulate', 'Xq2w7Zb1Vh0Kc9LmN3pR4s'], 'missing required flag --outcome (one of paid, unfinalized, failed, expired) — what the customer does', 'pay payment simulate Xq2w7Zb1Vh0Kc9LmN3pR4s --outcome paid', 'pay payment simulate'],
    [['payment', 'verify'], 'missing required argument trackId — trackId returned by create', 'pay payment verify Xq2w7Zb1Vh0Kc9LmN3pR4s', 'pay payment verify'],
    [['trigger'], 'missing required argument outcome — what the customer does: paid, unfinalized, failed, expired', 'pay trigger paid --callback-url http://localhost:3000/callback', 'pay trigger'],
    [['clock', 'set'], 'missing required argument time — an ISO 8601 date', 'pay clock set 2030-01-31T12:00:00Z', 'pay clock set'],
  ])('pay %j', async (args, message, example, command) => {
    const r = await pay([...args, ...nowhere])
    expect(r.code, r.stderr).toBe(2)
    const [first, ...rest] = r.stderr.trimEnd().split('\n')
    expect(first).toContain(`Error: ${message}`)
    expect(rest).toEqual([`  → example: ${example}`, `  → see: ${command} --help`])
  })

  test('--json: one error document with code usage and the flag with what it takes', async () => {
    const r = await pay(['payment', 'create', '--callback-url', 'http://localhost:3000/cb', ...nowhere, '--json'])
    expect(r.code).toBe(2)
    expect(JSON.parse(r.stdout)).toEqual({
      error: { code: 'usage', message: 'missing required flag --amount — order amount, greater than 0 (asked for at a terminal if missing)', exit: 2 },
    })
    expect(r.stderr).toContain('  → see: pay payment create --help')
  })
})
