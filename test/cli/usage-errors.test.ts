import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import { pay, sandbox, tempDir } from '../helpers.js'

/** A usage error: exit 2, JSON code `usage` (or the code of scenario file problems), and a message naming what is wrong. */
async function expectUsage(args: string[], names: string | RegExp, code = 'usage'): Promise<void> {
  const r = await pay([...args, '--json'], { timeoutMs: 10_000 })
  expect(r.code, r.stderr).toBe(2)
  const error = (JSON.parse(r.stdout) as { error: { code: string; message: string; exit: number } }).error
  expect(error).toMatchObject({ code, exit: 2 })
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
    await expectUsage(['scenario', 'run', file, '--url', 'http://127.0.0.1:9'], names, 'invalid_scenario')
  })
})
