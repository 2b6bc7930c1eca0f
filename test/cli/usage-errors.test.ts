import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import { pay, sandbox, tempDir } from '../helpers.js'

/** A usage error: exit 2, JSON code `usage`, and a message naming what is wrong. */
async function expectUsage(args: string[], names: string | RegExp): Promise<void> {
  const r = await pay([...args, '--json'], { timeoutMs: 10_000 })
  expect(r.code, r.stderr).toBe(2)
  const error = (JSON.parse(r.stdout) as { error: { code: string; message: string; exit: number } }).error
  expect(error).toMatchObject({ code: 'usage', exit: 2 })
  expect(error.message).toMatch(names)
}

describe('an empty argument is a usage error naming it, not a crash or a request for a list', () => {
  test.each([
    [['callback', 'show', ''], 'deliveryId'],
    [['callback', 'replay', ''], 'ref'],
    [['payment', 'show', ''], 'trackId'],
    [['payment', 'wait', '', '--status', 'paid'], 'trackId'],
    [['payment', 'simulate', '', '--outcome', 'paid'], 'trackId'],
    [['payment', 'verify', ''], 'trackId'],
    [['open', ''], 'trackId'],
    [['merchant', 'disable', ''], 'key'],
    [['sandbox', 'export', ''], 'file'],
    [['scenario', 'run', 'fixtures/scenarios/paid.json', ''], 'files'],
  ])('pay %j', async (args, name) => {
    const sb = await sandbox()
    await expectUsage([...args, '--url', sb.url], new RegExp(`^the ${name} argument is empty`))
  })
})

test('a scenario file nested 200,000 levels deep is refused naming the file (exit 2), not a stack overflow', async () => {
  const dir = await tempDir()
  const file = join(dir, 'deep.json')
  const deep = `${'['.repeat(200_000)}${']'.repeat(200_000)}`
  const create = { as: 'order', merchant: 'sandbox', amount: 1, callbackUrl: 'http://127.0.0.1:9/cb', description: '@' }
  await writeFile(file, JSON.stringify({ version: 1, name: 'deep', steps: [{ create }] }).replace('"@"', deep))
  const r = await pay(['scenario', 'run', file, '--url', 'http://127.0.0.1:9'])
  expect(r.code).toBe(2)
  expect(r.stderr).toContain(`${file}: arrays and objects nested more than 64 levels deep`)
  expect(r.stderr).not.toContain('call stack')
})

describe('every duration is capped: beyond its maximum, a usage error naming the flag', () => {
  const HUGE = '99999999999999999999m'
  // Nothing answers at this URL: a command that does not check the flag first fails otherwise (3) or waits.
  const nowhere = ['--url', 'http://127.0.0.1:9']

  test.each([
    [['sandbox', 'stop', '--timeout', HUGE, ...nowhere], '--timeout', '24h'],
    [['sandbox', 'wait', '--timeout', HUGE, ...nowhere], '--timeout', '24h'],
    [['sandbox', 'wait', '--timeout', '25h', ...nowhere], '--timeout', '24h'],
    [['payment', 'wait', 'x', '--status', 'paid', '--timeout', HUGE, ...nowhere], '--timeout', '24h'],
    [['payment', 'wait', 'x', '--status', 'paid', '--interval', HUGE, ...nowhere], '--interval', '24h'],
    [['callback', 'replay', 'dlv_x', '--timeout', '2m', ...nowhere], '--timeout', '1m'],
    [['callback', 'replay', '--file', 'none.json', '--to', 'http://127.0.0.1:9/cb', '--timeout', HUGE], '--timeout', '1m'],
    [['sandbox', 'start', '--port', '0', '--callback-timeout', HUGE], '--callback-timeout', '1m'],
    [['sandbox', 'start', '--port', '0', '--callback-schedule', `1s,${HUGE}`], '--callback-schedule', '24h'],
  ])('pay %j', async (args, flag, max) => {
    await expectUsage(args, new RegExp(`^${flag} must be .*${max}`))
  })

  test.each([
    [{ wait: 1e15 }, 'wait'],
    [{ callback: { payment: 'order', within: 1e15 } }, 'callback.within'],
  ])('a scenario step %j is refused naming the field', async (step, field) => {
    const file = join(await tempDir(), 'long.json')
    const create = { as: 'order', merchant: 'sandbox', amount: 1, callbackUrl: 'http://127.0.0.1:9/cb' }
    await writeFile(file, JSON.stringify({ version: 1, name: 'long', steps: [{ create }, step] }))
    const names = new RegExp(`step 2 \\(\\w+\\) › ${field.replace('.', '\\.')}: must be a whole number`)
    await expectUsage(['scenario', 'run', file, '--url', 'http://127.0.0.1:9'], names)
  })
})

describe('one rule for usage errors: exit 2, code usage, a message naming the flag and what it allows, before any request', () => {
  const long = 'X'.repeat(5000)
  const cases: Array<[string[], string | RegExp]> = [
    [['payment', 'simulate', '@', '--outcome', 'paid', '--asset', 'DOGE'], '--asset must be one of BTC, ETH, USDT-TRC20, LTC, TRX (got "DOGE")'],
    [['payment', 'simulate', '@', '--outcome', 'paid', '--asset', long], `--asset must be one of BTC, ETH, USDT-TRC20, LTC, TRX (got "${'X'.repeat(56)}…)`],
    [['payment', 'simulate', '@', '--outcome', 'paid', '--amount', '0'], /^--amount must be a number greater than 0 .* \(got "0"\)$/],
    [['payment', 'simulate', '@', '--outcome', 'paid', '--amount', '1e13'], /^--amount must be a number greater than 0 and at most 1e12 \(got "1e13"\)$/],
    [['payment', 'simulate', '@', '--outcome', 'failed', '--amount', '3'], '--amount does nothing with --outcome failed: the customer pays nothing'],
    [['payment', 'simulate', '@', '--outcome', 'failed', '--asset', 'ETH'], '--asset does nothing with --outcome failed: the customer pays nothing'],
    [['payment', 'create', '--amount', 'ten', '--callback-url', 'http://x.test/cb'], '--amount must be a number, e.g. 25.5 (got "ten")'],
    [['payment', 'create', '--amout', '5', '--callback-url', 'http://x.test/cb'], 'unknown flag --amout (did you mean --amount?)'],
    [['payment', 'verify', '@', '--expect', '999'], '--expect must be one of 100, 103, 104, 202, 203 (got "999")'],
    [['payment', 'wait', '@'], 'give --status <state>, --verified, or both'],
    [['payment', 'wait', '@', '--status', 'paid', '--interval', '0'], /^--interval must be .*10ms/],
    [['payment', 'list', '--merchant', 'has space'], /^--merchant: merchant key must be 1 to 128 letters/],
    [['payment', 'list', 'extra'], 'unexpected argument extra: pay payment list takes none'],
    [['merchant', 'create', '--key', 'has space'], '--key: merchant key must be 1 to 128 letters, digits or . _ ~ - (got "has space")'],
    [['merchant', 'create', '--name', ''], /^--name is empty — expected merchant name/],
    [['merchant', 'create', '--name', '   '], /^--name: merchant name must be text of 1 to 200 characters, not only spaces/],
    [['merchant', 'disable', 'has space'], /^the key argument: merchant key must be/],
    [['callback', 'list', '--limit', '200000'], '--limit must be an integer less than or equal to 100000 (got "200000")'],
    [['callback', 'list', '--track-id', ''], /^--track-id is empty/],
    [['callback', 'replay', 'dlv_x', '--timeout', '2s'], /^--timeout applies only with --file/],
    [['callback', 'replay', '--file', 'x.json', '--to', 'http://127.0.0.1:9/cb', '--url', '@'], /^--url does nothing with --file/],
    [['scenario', 'run', 'fixtures/scenarios/paid.json', '--start', '--url', '@'], /^--url does nothing with --start/],
    [['scenario', 'run', 'fixtures/scenarios/paid.json', '--reporter', 'junit'], /^--reporter junit does nothing with --json/],
    [['sandbox', 'start', '--host', '', '--port', '0'], /^--host is empty/],
    [['sandbox', 'start', '--data', '', '--port', '0'], /^--data is empty/],
    [['sandbox', 'export', '-'], /^--json does nothing with -/],
  ]
  test.each(cases.map(([args, message]) => [args.join(' ').slice(0, 90), args, message] as const))('pay %s', async (_title, args, message) => {
    const sb = await sandbox()
    const body = await sb.client.createPayment({ merchant: 'sandbox', amount: 5, callbackUrl: 'http://127.0.0.1:9/cb' })
    if (body.result !== 100) throw new Error(JSON.stringify(body))
    const filled = args.map((a) => (a === '@' ? (args.includes('--url') ? sb.url : body.trackId) : a))
    const withUrl = filled.includes('--url') || filled[0] === 'sandbox' ? filled : [...filled, '--url', sb.url]
    await expectUsage(withUrl, typeof message === 'string' ? new RegExp(`^${message.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`) : message)
    // Nothing reached the sandbox: the payment is untouched and no merchant was made.
    expect((await sb.client.getPayment(body.trackId)).payment.status).toBe('pending')
    expect((await sb.client.listMerchants()).map((m) => m.key)).toEqual(['sandbox'])
  })

  test.each([
    [['--url', 'notaurl'], {}, '--url must be the http:// address of a sandbox, with no path, e.g. http://127.0.0.1:8787 (got "notaurl")'],
    [['--url', 'https://127.0.0.1:8787'], {}, /^--url must be the http:\/\/ address/],
    [['--url', 'http://127.0.0.1:8787/dashboard'], {}, /^--url must be .*with no path/],
    [[], { PAY_SANDBOX_URL: 'localhost:8787' }, /^PAY_SANDBOX_URL must be the http:\/\/ address of a sandbox/],
  ])('a sandbox address %j %j that cannot be one', async (args, env, message) => {
    const r = await pay(['payment', 'list', ...args, '--json'], { env })
    expect(r.code, r.stderr).toBe(2)
    const error = (JSON.parse(r.stdout) as { error: { code: string; message: string } }).error
    expect(error.code).toBe('usage')
    expect(error.message).toMatch(message)
  })
})
