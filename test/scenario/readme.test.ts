import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { parseScenario } from '../../src/scenario/parse.js'
import { ROOT } from '../helpers.js'

describe('the reference page docs/reference/scenarios.md', () => {
  const section = readFileSync(join(ROOT, 'docs', 'reference', 'scenarios.md'), 'utf8')
  const blocks = (lang: string) => [...section.matchAll(new RegExp(`\`\`\`${lang}\\n([\\s\\S]*?)\`\`\``, 'g'))].map((m) => m[1]!)

  it('shows a YAML and a JSON example that are the same valid scenario', () => {
    const [yamlExample] = blocks('yaml')
    const [jsonExample] = blocks('json')
    const yamlScenario = parseScenario(yamlExample!, 'paid.yaml')
    const jsonScenario = parseScenario(jsonExample!, 'paid.json')
    expect(yamlScenario).toHaveProperty('scenario')
    expect({ ...(yamlScenario as { scenario: object }).scenario, file: 'paid.json' }).toEqual((jsonScenario as { scenario: object }).scenario)
  })

  it('shows HTTP steps and variables in files pay takes as they are', () => {
    // After the first example and the example of mistakes.
    const files = blocks('yaml').slice(2).filter((b) => b.startsWith('version: 1'))
    expect(files.length).toBeGreaterThanOrEqual(2)
    for (const text of files) {
      expect(parseScenario(text, 'example.yaml', { env: { PAY_MERCHANT_KEY: 'sandbox' } }), text).toHaveProperty('scenario')
    }
    expect(files.some((text) => text.includes('- http:'))).toBe(true)
  })

  it('shows the messages pay prints for its example of mistakes', () => {
    const [, mistakes] = blocks('yaml')
    const messages = blocks('text').find((b) => b.startsWith('my-flow.yaml:'))
    expect(parseScenario(mistakes!, 'my-flow.yaml')).toEqual({ problems: messages!.trimEnd().split('\n') })
  })
})
