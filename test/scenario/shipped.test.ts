import { readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { parse } from 'yaml'
import { type Sandbox, type SandboxOptions, startSandbox } from '../../src/index.js'
import { loadScenarios } from '../../src/scenario/load.js'
import { parseScenarioOrThrow } from '../../src/scenario/parse.js'
import { runScenario, type ScenarioReport } from '../../src/scenario/run.js'
import type { Scenario } from '../../src/scenario/types.js'
import { ROOT } from '../helpers.js'

const DIR = join(ROOT, 'fixtures', 'scenarios')
const FILES = readdirSync(DIR)
  .filter((n) => /\.(json|ya?ml)$/.test(n))
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

  const YAML_FILES = FILES.filter((f) => !f.endsWith('.json'))
  it.each(YAML_FILES)('%s runs as its JSON twin does', async (file) => {
    const text = readFileSync(join(ROOT, file), 'utf8')
    const fromYaml = parseScenarioOrThrow(text, 'twin.yaml')
    const fromJson = parseScenarioOrThrow(JSON.stringify(parse(text)), 'twin.json')
    expect({ ...fromYaml, file: 'twin.json' }).toEqual(fromJson)
    const shape = (r: ScenarioReport) => r.steps.map((s) => [s.number, s.kind, s.title, s.outcome, s.message])
    const [a, b] = [await runScenario(fromYaml, { client: sb.client }), await runScenario(fromJson, { client: sb.client })]
    expect(shape(a)).toEqual(shape(b))
    expect(a.ok && b.ok).toBe(true)
  })
})
