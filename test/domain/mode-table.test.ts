import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import {
  CALLBACK_MODE_CHOICES,
  CALLBACK_MODES,
  chaosPick,
  FAULT_NAMES,
  formatCallbackMode,
  parseCallbackMode,
  planOf,
  seededRandom,
  writeCallbackMode,
} from '../../src/domain/fault.js'
import { API_FAULTS } from '../../src/domain/api-fault.js'
import { ROOT } from '../helpers.js'

describe('the callback mode table', () => {
  test.each(CALLBACK_MODES.rows.map((r) => [r.name, r] as const))('%s: its example parses, matches the pattern, and writes back to itself', (_, row) => {
    const parsed = parseCallbackMode(row.example)
    if ('problem' in parsed) throw new Error(parsed.problem)
    expect(parsed.mode.mode).toBe(row.name)
    expect(row.example).toMatch(new RegExp(CALLBACK_MODES.pattern))
    expect(formatCallbackMode(parsed.mode)).toBe(row.example)
    expect(parseCallbackMode(writeCallbackMode(parsed.mode))).toEqual(parsed)
    expect(CALLBACK_MODES.rule).toContain(CALLBACK_MODES.usage(row))
  })

  test('the bounds of an argument are the parser\'s: one past each end is refused', () => {
    expect(parseCallbackMode('duplicate=2')).toEqual({ mode: { mode: 'duplicate', copies: 2 } })
    expect(parseCallbackMode('duplicate=20')).toEqual({ mode: { mode: 'duplicate', copies: 20 } })
    for (const text of ['duplicate=1', 'duplicate=21', 'delay=0', 'delay=24.1h', 'drop=1', 'delay', 'lose', 'delay=1s=2']) {
      expect(parseCallbackMode(text), text).toEqual({ problem: `callback mode must be ${CALLBACK_MODES.rule} (got ${JSON.stringify(text)})` })
    }
  })

  test('the checkout page offers every mode, each value one the API takes', () => {
    expect(CALLBACK_MODE_CHOICES.map(([value]) => value)).toEqual(CALLBACK_MODES.rows.map((r) => r.example))
    for (const [value] of CALLBACK_MODE_CHOICES) expect(parseCallbackMode(value)).toHaveProperty('mode')
  })

  test('deliveries read what a fault does, not its name', () => {
    expect(planOf(undefined)).toEqual({ lost: false, held: false, waitMs: 0, copies: 1 })
    expect(planOf({ mode: 'send' })).toEqual(planOf(undefined))
    expect(planOf({ mode: 'drop', reason: 'x' })).toMatchObject({ lost: true, held: false })
    expect(planOf({ mode: 'delay', delayMs: 1500, reason: 'x' })).toMatchObject({ waitMs: 1500, copies: 1 })
    expect(planOf({ mode: 'duplicate', copies: 3, reason: 'x' })).toMatchObject({ copies: 3, waitMs: 0 })
    expect(planOf({ mode: 'reorder', reason: 'x' })).toMatchObject({ held: true, lost: false })
    // Stored data can hold anything: a count that is not one sends once.
    expect(planOf({ mode: 'duplicate', copies: 'many' as unknown as number, reason: 'x' }).copies).toBe(1)
  })

  test('chaos never holds back a final payment\'s notification, and picks only faults', () => {
    const random = seededRandom(1)
    for (let i = 0; i < 500; i++) {
      const final = i % 2 === 0
      const mode = chaosPick(random, 1, final)
      expect(FAULT_NAMES).toContain(mode.mode)
      if (final) expect(planOf(mode).held).toBe(false)
    }
  })

  test('the callback faults table of docs/reference/callbacks.md has one row per mode, in the table\'s order', () => {
    const page = readFileSync(join(ROOT, 'docs', 'reference', 'callbacks.md'), 'utf8')
    const section = page.split('## Callback faults\n')[1]!.split('\n#')[0]!
    const documented = [...section.matchAll(/^\| `([a-z-]+)(?:=<[a-z]+>)?` \|/gm)].map((m) => m[1])
    expect(documented).toEqual(CALLBACK_MODES.names)
  })
})

describe('a mode table carries modes of another kind (the spec API\'s faults) in the same shape', () => {
  test('parse, write back, pattern and rule come from the rows', () => {
    expect(API_FAULTS.parse('html=503')).toEqual({ mode: { mode: 'html', status: 503 } })
    expect(API_FAULTS.parse('retry-after=503')).toEqual({ mode: { mode: 'retry-after', status: 503 } })
    expect(API_FAULTS.parse('timeout')).toEqual({ mode: { mode: 'timeout' } })
    expect(API_FAULTS.parse('html=500')).toHaveProperty('problem')
    expect(API_FAULTS.parse('status=600')).toHaveProperty('problem')
    expect(API_FAULTS.write({ mode: 'delay', delayMs: 1500 })).toBe('delay=1500ms')
    expect(API_FAULTS.show({ mode: 'delay', delayMs: 1500 })).toBe('delay=1.5s')
    const pattern = new RegExp(API_FAULTS.pattern)
    for (const row of API_FAULTS.rows) expect(row.example).toMatch(pattern)
    expect('reset=1').not.toMatch(pattern)
  })
})
