import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { XMLParser, XMLValidator } from 'fast-xml-parser'
import { describe, expect, it } from 'vitest'
import { pay, sandbox, tempDir } from '../helpers.js'

const SHIPPED = 'fixtures/scenarios'

const failing = {
  version: 1,
  name: 'designed to fail',
  steps: [
    { merchant: { as: 'shop' } },
    { create: { as: 'order', merchant: '${shop.key}', amount: 10, callbackUrl: 'https://merchant.example/cb' } },
    { verify: { payment: 'order' }, expect: { result: 100 } },
    { wait: 1 },
  ],
}

async function file(dir: string, name: string, content: unknown): Promise<string> {
  const path = join(dir, name)
  await writeFile(path, typeof content === 'string' ? content : JSON.stringify(content))
  return path
}

describe('pay scenario run', () => {
  it('--start runs every shipped scenario in a throwaway sandbox and writes a JUnit report', async () => {
    const dir = await tempDir()
    const out = join(dir, 'reports', 'scenarios.xml')
    const r = await pay(['scenario', 'run', SHIPPED, '--start', '--reporter', 'junit', '--output', out], { timeoutMs: 60_000 })
    expect(r.stderr).toBe('')
    expect(r.code).toBe(0)
    expect(r.stdout).toMatch(/^paid amount differs from the order \(fixtures\/scenarios\/amount-differs\.json\)\n {2}✔ 1\. receiver receiver \d+ ms\n/)
    expect(r.stdout).toMatch(/✔ 22 scenarios passed \(\d+ of \d+ steps passed\) in [\d.]+ s\n$/)
    const xml = await readFile(out, 'utf8')
    expect(XMLValidator.validate(xml)).toBe(true)
    const doc = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '' }).parse(xml)
    expect(doc.testsuites.testsuite).toHaveLength(22)
    expect(doc.testsuites).toMatchObject({ failures: '0', errors: '0', skipped: '0' })
  })

  it('exits 6 when an expectation fails, showing the failed step and skipping the rest', async () => {
    const dir = await tempDir()
    const path = await file(dir, 'fail.json', failing)
    const r = await pay(['scenario', 'run', path, '--start'])
    expect(r.code).toBe(6)
    expect(r.stdout).toContain('  ✖ 3. verify order → 100 ')
    expect(r.stdout).toContain('      expected result 100, got 202 — answer {"result":202,"amount":10}')
    expect(r.stdout).toContain('  - 4. wait 1 ms (skipped)')
    expect(r.stdout).toMatch(/✖ 1 of 1 scenario failed \(2 of 4 steps passed, 1 skipped\)/)
  })

  it('--reporter junit prints only XML on stdout, with the failure, and the summary on stderr', async () => {
    const dir = await tempDir()
    const path = await file(dir, 'fail.json', failing)
    const ok = join(process.cwd(), SHIPPED, 'validation-mobile.json')
    const r = await pay(['scenario', 'run', ok, path, '--start', '--reporter', 'junit'])
    expect(r.code).toBe(6)
    expect(XMLValidator.validate(r.stdout)).toBe(true)
    const doc = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '' }).parse(r.stdout)
    const [passed, failed] = doc.testsuites.testsuite
    expect(passed).toMatchObject({ name: 'validation: mobile (109)', tests: '4', failures: '0' })
    expect(failed).toMatchObject({ name: 'designed to fail', file: path, tests: '4', failures: '1', skipped: '1' })
    expect(failed.testcase[2].failure.message).toContain('expected result 100, got 202')
    expect(r.stderr).toMatch(/^Error: 1 of 2 scenarios failed/)
  })

  it('--url runs against a running sandbox; --reporter json and --json print one JSON document', async () => {
    const sb = await sandbox()
    for (const flag of [['--reporter', 'json'], ['--json']]) {
      const r = await pay(['scenario', 'run', `${SHIPPED}/invalid-key.json`, `${SHIPPED}/disabled-merchant.json`, '--url', sb.url, ...flag])
      expect(r.code).toBe(0)
      const report = JSON.parse(r.stdout)
      expect(report).toMatchObject({ ok: true, url: sb.url, totals: { scenarios: 2, failedScenarios: 0, failed: 0, skipped: 0 } })
      expect(report.scenarios.map((s: { name: string }) => s.name)).toEqual(['invalid API key', 'disabled merchant'])
    }
    // Both runs created their own merchants; the default one is untouched.
    const merchants = await sb.client.listMerchants()
    expect(merchants).toHaveLength(1 + 2 * 2)
    expect(merchants.find((m) => m.key === 'sandbox')?.enabled).toBe(true)
  })

  it('exits 2 for an invalid file, naming file, line, step and field, and runs nothing', async () => {
    const sb = await sandbox()
    const dir = await tempDir()
    const steps = [{ merchant: { as: 'shop' } }, { create: { merchant: '${shop.key}', amout: 1 } }, { verify: { trackId: '${order.trackId}', merchant: 'x' } }]
    const bad = await file(dir, 'bad.json', JSON.stringify({ version: 1, name: 'bad', steps }, null, 2))
    const r = await pay(['scenario', 'run', `${SHIPPED}/paid.json`, bad, '--url', sb.url])
    expect(r.code).toBe(2)
    expect(r.stdout).toBe('')
    expect(r.stderr).toContain('Error: 2 problems in scenario files; nothing was run:\n')
    expect(r.stderr).toContain(`${bad}:13:9: step 2 (create) › create.amout: unknown field (did you mean "amount"?)`)
    expect(r.stderr).toContain(`${bad}:18:20: step 3 (verify) › verify.trackId: \${order.trackId} refers to "order", which no earlier step defines`)
    expect(await sb.client.listPayments()).toEqual([])
    expect(await sb.client.listMerchants()).toHaveLength(1)
  })

  it('runs a folder of JSON and YAML scenarios, and names the line of a mistake in a YAML file', async () => {
    const dir = await tempDir()
    await file(dir, 'a.json', { version: 1, name: 'json one', steps: [{ wait: 1 }] })
    await file(dir, 'b.yml', 'version: 1\nname: yaml one\nsteps:\n  - wait: 1\n')
    const ok = await pay(['scenario', 'run', dir, '--start'])
    expect(ok.stdout).toMatch(/^json one \(.*a\.json\)\n.*\nyaml one \(.*b\.yml\)\n/)
    expect(ok.code).toBe(0)
    const bad = await file(dir, 'c.yaml', 'version: 1\nname: typo\nsteps:\n  - merchant: { as: shop }\n  - create:\n      merchant: ${shop.key}\n      amout: 1\n')
    const r = await pay(['scenario', 'run', dir, '--start'])
    expect(r.stderr).toContain(`${bad}:7:7: step 2 (create) › create.amout: unknown field (did you mean "amount"?)`)
    expect(r.code).toBe(2)
  })

  it('refuses YAML nested 200,000 levels deep with exit 2 naming the file, and still checks the next file', async () => {
    const dir = await tempDir()
    const head = 'version: 1\nname: deep\nsteps:\n  - create:\n      description:'
    const block = await file(dir, 'a-block.yaml', `${head}\n        ${'- '.repeat(200_000)}x\n`)
    const flow = await file(dir, 'b-flow.yaml', `${head} ${'['.repeat(200_000)}${']'.repeat(200_000)}\n`)
    const after = await file(dir, 'c-after.yaml', 'version: 1\nname: after\nsteps:\n  - wait: soon\n')
    const r = await pay(['scenario', 'run', dir, '--url', 'http://127.0.0.1:9'])
    expect(r.code).toBe(2)
    expect(r.stderr).toContain(`${block}:6:129: nested too deep`)
    expect(r.stderr).toContain(`${flow}:5:84: arrays and objects nested more than 64 levels deep`)
    expect(r.stderr).toContain(`${after}:4:11: step 1 (wait) › wait: must be a whole number`)
    expect(r.stderr).not.toMatch(/call stack|heap|RangeError/)
  })

  const usage: Array<[string, string[], RegExp, number]> = [
    ['a missing file', ['no-such-file.json', '--start'], /no-such-file\.json: cannot read: ENOENT/, 2],
    ['a file that is not JSON', ['README-not-json', '--start'], /not valid JSON/, 2],
    ['an unknown reporter', [`${SHIPPED}/paid.json`, '--reporter', 'tap'], /--reporter must be one of human, json, junit \(got "tap"\)/, 2],
    ['--output with the human reporter', [`${SHIPPED}/paid.json`, '--output', 'x.xml', '--start'], /--output needs --reporter json or junit/, 2],
    ['no sandbox at --url', [`${SHIPPED}/paid.json`, '--url', 'http://127.0.0.1:9'], /no sandbox at http:\/\/127\.0\.0\.1:9/, 3],
  ]
  it.each(usage)('refuses %s', async (_label, args, message, code) => {
    const dir = await tempDir()
    await file(dir, 'README-not-json', '# not json')
    const r = await pay(['scenario', 'run', ...args], { cwd: args.includes('README-not-json') ? dir : undefined })
    expect(r.stderr).toMatch(message)
    expect(r.code).toBe(code)
  })
})
