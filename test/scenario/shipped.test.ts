import { readdirSync } from 'node:fs'
import { join, relative } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type Sandbox, type SandboxOptions, startSandbox } from '../../src/index.js'
import { loadScenarios } from '../../src/scenario/load.js'
import { runScenario } from '../../src/scenario/run.js'
import type { Scenario } from '../../src/scenario/types.js'
import { ROOT } from '../helpers.js'

const DIR = join(ROOT, 'fixtures', 'scenarios')
const FILES = readdirSync(DIR)
  .filter((n) => n.endsWith('.json'))
  .sort()
  .map((n) => relative(ROOT, join(DIR, n)))

/** Every shipped scenario passes against one real sandbox: they are independent of each other and of order. */
describe('shipped scenarios (fixtures/scenarios)', () => {
  let sb: Sandbox
  let scenarios: Scenario[]
  beforeAll(async () => {
    const options: SandboxOptions = { callbacks: { retries: 5, timeoutMs: 2_000, scheduleMs: [100, 200, 400] } }
    sb = await startSandbox(options)
    const loaded = await loadScenarios(FILES.map((f) => join(ROOT, f)))
    expect(loaded.problems).toEqual([])
    scenarios = loaded.scenarios
  })
  afterAll(() => sb?.stop())

  it('are all valid, and cover every spec failure result and callback recovery', () => {
    expect(scenarios.length).toBe(FILES.length)
    const createResults = new Set(scenarios.flatMap((s) => s.steps.flatMap((st) => (st.kind === 'create' && 'result' in st.expect ? [st.expect.result] : []))))
    const verifyResults = new Set(scenarios.flatMap((s) => s.steps.flatMap((st) => (st.kind === 'verify' && st.expect.result !== undefined ? [st.expect.result] : []))))
    for (const code of [100, 103, 104, 105, 106, 107, 108, 109]) expect(createResults, `create → ${code}`).toContain(code)
    for (const code of [100, 103, 104, 202, 203]) expect(verifyResults, `verify → ${code}`).toContain(code)
    const recovery = scenarios.flatMap((s) => s.steps).filter((st) => st.kind === 'callback' && (st.attempts ?? 1) > 1)
    expect(recovery.length).toBeGreaterThan(0)
  })

  it.each(FILES)('%s passes', async (file) => {
    const scenario = scenarios.find((s) => relative(ROOT, s.file) === file)!
    const report = await runScenario(scenario, { client: sb.client })
    const failures = report.steps.filter((s) => s.outcome !== 'passed').map((s) => `${s.number}. ${s.title}: ${s.outcome} ${s.message ?? ''}`)
    expect(failures).toEqual([])
  })
})
