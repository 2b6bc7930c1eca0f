import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect, test } from 'vitest'
import { API_FAULTS, FAULT_SCOPE, parseCompactFault } from '../../src/domain/api-fault.js'
import { CHECK_IDS } from '../../src/audit/rules.js'
import { FAULT_CHECK_IDS } from '../../src/audit/fault-checks.js'
import { ROOT } from '../helpers.js'

const guide = readFileSync(join(ROOT, 'docs', 'unhappy-paths.md'), 'utf8')
const section = guide.split('## API faults\n')[1]!.split('\n## ')[0]!
const docs = ['README.md', 'docs/unhappy-paths.md', 'docs/reference/cli.md', 'docs/reference/scenarios.md'].map((f) => readFileSync(join(ROOT, f), 'utf8')).join('\n')

test('the guide\'s section "API faults" has a row for every fault and scope field of the tables', () => {
  const rows = [...section.matchAll(/^\| `([a-zA-Z-]+)(?:=<[a-z]+>)?`/gm)].map((m) => m[1])
  expect(rows).toEqual([...API_FAULTS.names, ...Object.keys(FAULT_SCOPE).filter((k) => k !== 'seed' && k !== 'seconds')])
  // seed goes with rate, seconds with retry-after.
  expect(section).toContain('| `rate`, `seed` |')
  expect(section).toContain('(`--seconds`, default 5)')
})

test('every rule the docs write in the compact form is one', () => {
  const rules = [...docs.matchAll(/`((?:create|verify|checkout|all):[^`\s]+)`/g)].map((m) => m[1]!)
  expect(rules.length).toBeGreaterThanOrEqual(5)
  for (const rule of rules) expect(parseCompactFault(rule), rule).toHaveProperty('input')
})

test('the audit table names every API fault check', () => {
  const audit = readFileSync(join(ROOT, 'docs', 'reference', 'clock-chain-audit.md'), 'utf8').split('## `pay audit`\n')[1]!.split('\n## ')[0]!
  for (const id of FAULT_CHECK_IDS) expect(audit).toMatch(new RegExp(`^\\| \`${id}\` \\| (FAIL|WARN) \\|`, 'm'))
  for (const id of CHECK_IDS) expect(audit, id).toContain(`| \`${id}\` |`)
})
