import { describe, expect, it } from 'vitest'
import { parseScenario, parseScenarioOrThrow } from '../../src/scenario/parse.js'
import { cpuMs } from '../cpu.js'

const FILE = 'flow.yaml'

function problemsOf(text: string, file = FILE): string[] {
  const parsed = parseScenario(text, file)
  if ('scenario' in parsed) throw new Error('expected problems, the file was accepted')
  return parsed.problems
}

/** A scenario whose steps are given as YAML lines; the first step is on line 4. */
const yaml = (...steps: string[]) => ['version: 1', 'name: flow', 'steps:', ...steps].join('\n')

describe('YAML scenario files', () => {
  it('parse to the same scenario as JSON, with the YAML conveniences (comments, anchors, block strings)', () => {
    const fromYaml = parseScenarioOrThrow(
      yaml(
        '  # a merchant of its own',
        '  - merchant: { as: shop }',
        '  - create: &order',
        '      as: order',
        '      merchant: ${shop.key}',
        '      amount: 10',
        '      callbackUrl: https://merchant.example/cb',
        '    title: >-',
        '      first',
        '      order',
        '  - verify: { payment: order }',
        '    expect: { result: 202, amount: 10, refNumber: false }',
      ),
      FILE,
    )
    const create = { as: 'order', merchant: '${shop.key}', amount: 10, callbackUrl: 'https://merchant.example/cb' }
    const fromJson = parseScenarioOrThrow(
      JSON.stringify({
        version: 1,
        name: 'flow',
        steps: [{ merchant: { as: 'shop' } }, { create, title: 'first order' }, { verify: { payment: 'order' }, expect: { result: 202, amount: 10, refNumber: false } }],
      }),
      'flow.json',
    )
    expect({ ...fromYaml, file: 'flow.json' }).toEqual(fromJson)
  })

  it('names the line and column of a schema error (the field itself for an unknown one)', () => {
    const text = yaml(
      '  - merchant: { as: shop }',
      '  - receiver:',
      '      as: hook',
      '  - create:',
      '      as: order',
      '      merchant: ${shop.key}',
      '      amout: 10',
      '      callbackUrl: ${hook.url}',
    )
    expect(problemsOf(text)).toEqual([
      'flow.yaml:10:7: step 3 (create) › create.amout: unknown field (did you mean "amount"?); allowed: as, merchant, amount, callbackUrl, returnUrl, description, mobile',
    ])
  })

  const rows: Array<[string, string[], string]> = [
    ['a wrong type', ['  - wait: soon'], 'flow.yaml:4:11: step 1 (wait) › wait: must be a whole number of milliseconds from 0 to 60000, got "soon"'],
    ['a number out of range', ['  - receiver: { as: hook, failStatus: 200 }'], 'flow.yaml:4:39: step 1 (receiver) › receiver.failStatus: must be a whole number from 400 to 599, got 200'],
    ['an unknown step kind', ['  - wait: 1', '  - pay: { amount: 1 }'], 'flow.yaml:5:5: step 2: needs one of receiver, merchant, disable, enable, create, simulate, verify, callback, wait, clock, mine, verifies, audit, fault, chat, http (unknown: pay)'],
    ['a missing field', ['  - simulate:', '      payment: order'], 'flow.yaml:5:7: step 1 (simulate) › simulate.outcome: missing'],
    [
      'a reference to a later step',
      ['  - verify: { trackId: "${order.trackId}", merchant: sandbox }', '  - create: { as: order, merchant: sandbox, amount: 1 }'],
      'flow.yaml:4:24: step 1 (verify) › verify.trackId: ${order.trackId} refers to "order", which no earlier step defines (defined so far: sandbox)',
    ],
    ['a payment no step creates', ['  - merchant: { as: shop }', '  - simulate: { payment: shop, outcome: paid }'], 'flow.yaml:5:26: step 2 (simulate) › simulate.payment: "shop" is step 1, a merchant step, not a create step'],
    ['a name used twice', ['  - merchant: { as: shop }', '  - receiver:', '      as: shop'], 'flow.yaml:6:11: step 2 (receiver) › receiver.as: "shop" is already the name of step 1'],
    ['a repeat with no count', ['  - create: { merchant: sandbox, description: "${repeat:a}" }'], 'flow.yaml:4:47: step 1 (create) › create.description: ${repeat:a}: write ${repeat:TEXT:COUNT}, e.g. ${repeat:a:513}'],
    ['a syntax error', ['  - create: { as: order', '  - wait: 1'], 'flow.yaml:5:3: not valid YAML: Flow map in block collection must be sufficiently indented and end with a }'],
    ['a key given twice', ['  - receiver: { as: a, as: b }'], 'flow.yaml:4:24: not valid YAML: Map keys must be unique'],
    ['a tag', ['  - wait: !!binary aGk='], 'flow.yaml:4:11: !!binary: scenario files use no YAML tags or directives'],
    ['a custom tag', ['  - wait: !js/function "x"'], 'flow.yaml:4:11: !js/function: scenario files use no YAML tags or directives'],
    ['a number JSON cannot carry', ['  - create: { merchant: sandbox, amount: .nan }'], 'flow.yaml:4:42: NaN is not a JSON number'],
    ['a chat pattern that is no regular expression', ['  - chat: { send: /buy }', '  - chat:', '      expect: "Pay [here"'], 'flow.yaml:6:15: step 2 (chat) › chat.expect: is not a valid regular expression: /Pay [here/: Unterminated character class'],
    [
      'both payment and trackId',
      ['  - merchant: { as: shop }', '  - create: { as: order, merchant: "${shop.key}", amount: 1 }', '  - simulate:', '      payment: order', '      trackId: "${order.trackId}"', '      outcome: paid'],
      'flow.yaml:7:7: step 3 (simulate) › simulate: give "payment" or "trackId", not both',
    ],
  ]
  it.each(rows)('names the line of %s', (_label, steps, message) => {
    expect(problemsOf(yaml(...steps)), JSON.stringify(problemsOf(yaml(...steps)))).toContain(message)
  })

  it('takes one document', () => {
    expect(problemsOf(`${yaml('  - wait: 1')}\n---\n${yaml('  - wait: 2')}`)[0]).toMatch(/^flow\.yaml:5:1: not valid YAML: Source contains multiple documents/)
  })

  it('refuses a billion laughs quickly, without expanding it', () => {
    const lol = ['a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]', ...'bcdefghi'.split('').map((n, i) => `${n}: &${n} [${Array(9).fill(`*${'abcdefgh'[i]}`).join(', ')}]`)]
    const started = process.cpuUsage()
    const problems = problemsOf(yaml('  - create:', '      merchant: sandbox', '      description:', ...lol.map((l) => `        ${l}`)))
    expect(cpuMs(started)).toBeLessThan(1000)
    expect(problems).toEqual(['flow.yaml: aliases expand too much (Excessive alias count indicates a resource exhaustion attack); a scenario needs few, if any'])
  })

  it('keeps a few aliases', () => {
    const parsed = parseScenarioOrThrow(
      yaml('  - receiver: { as: hook }', '  - callback: { receiver: hook, match: &paid { status: paid } }', '  - callback: { receiver: hook, match: *paid }'),
      FILE,
    )
    expect(parsed.steps.map((s) => s.kind === 'callback' && s.match)).toEqual([false, { status: 'paid' }, { status: 'paid' }])
  })

  it('leaves __proto__ an ordinary key: refused where fields are known, kept as data where any is allowed', () => {
    expect(problemsOf(`__proto__: { polluted: true }\n${yaml('  - wait: 1')}`)).toEqual([
      'flow.yaml:1:1: __proto__: unknown field; allowed: version, name, description, vars, steps',
    ])
    const scenario = parseScenarioOrThrow(
      yaml('  - merchant: { as: shop }', '  - create: { as: order, merchant: "${shop.key}", amount: 1 }', '  - callback: { payment: order, match: { __proto__: { polluted: true }, status: paid } }'),
      FILE,
    )
    const step = scenario.steps[2]
    expect(step?.kind === 'callback' && step.match).toEqual({ ['__proto__']: { polluted: true }, status: 'paid' })
    expect(step?.kind === 'callback' && Object.getPrototypeOf(step.match)).toBe(Object.prototype)
    expect(({} as { polluted?: unknown }).polluted).toBeUndefined()
  })

  it('refuses nesting 200,000 levels deep quickly, naming the file, and still reads the next file', () => {
    const deep = 200_000
    const started = process.cpuUsage()
    const flow = `${yaml('  - create:', '      merchant: sandbox', '      description: ')}${'['.repeat(deep)}${']'.repeat(deep)}`
    expect(problemsOf(flow)).toEqual(['flow.yaml:6:84: arrays and objects nested more than 64 levels deep; a scenario needs far fewer'])
    const block = `${yaml('  - create:', '      merchant: sandbox', '      description:')}\n        ${'- '.repeat(deep)}x`
    expect(problemsOf(block)).toEqual(['flow.yaml:7:129: nested too deep: a value starts past column 128; a scenario needs far less indentation'])
    const map = `${yaml('  - create:', '      merchant: sandbox', '      description:')}\n${Array.from({ length: 200 }, (_, i) => `${' '.repeat(8 + i)}k:`).join('\n')}`
    expect(problemsOf(map)[0]).toMatch(/^flow\.yaml:\d+:129: nested too deep/)
    expect(cpuMs(started)).toBeLessThan(5000)
    expect(parseScenarioOrThrow(yaml('  - wait: 1'), FILE).steps).toHaveLength(1)
  })

  it('refuses a JSON file nested 200,000 levels deep, and one larger than 1 MiB', () => {
    const deep = `{"version": 1, "name": "x", "steps": [{"wait": ${'['.repeat(200_000)}${']'.repeat(200_000)}}]}`
    expect(problemsOf(deep, 'deep.json')).toEqual(['deep.json: arrays and objects nested more than 64 levels deep; a scenario needs far fewer'])
    const big = JSON.stringify({ version: 1, name: 'x', steps: [{ create: { description: 'x'.repeat(1024 * 1024) } }] })
    expect(problemsOf(big, 'big.json')).toEqual(['big.json: larger than 1 MiB; a scenario needs far less (${repeat:TEXT:COUNT} makes long strings)'])
  })
})
