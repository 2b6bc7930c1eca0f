import { execFile } from 'node:child_process'
import { readdirSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join, resolve } from 'node:path'
import { promisify } from 'node:util'
import { Ajv } from 'ajv'
import { describe, expect, it } from 'vitest'
import { parseScenario } from '../../src/scenario/parse.js'
import { scenarioSchema, scenarioSchemaJson, STEP_KINDS } from '../../src/scenario/schema.js'
import { ROOT } from '../helpers.js'

const SHIPPED = join(ROOT, 'schemas', 'scenario.schema.json')
const FIXTURES = join(ROOT, 'fixtures', 'scenarios')

type Schema = { [key: string]: unknown }

/** Every field of the schema (a property of an object) with its path; the if/then/else conditions are left out. */
function fields(schema: Schema, path = ''): Array<[string, Schema]> {
  const found: Array<[string, Schema]> = []
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'if' || key === 'then' || key === 'else' || typeof value !== 'object' || value === null) continue
    if (key === 'properties') {
      for (const [name, field] of Object.entries(value as Record<string, Schema>)) {
        found.push([`${path}.${name}`, field], ...fields(field, `${path}.${name}`))
      }
    } else if (Array.isArray(value)) value.forEach((item, i) => found.push(...fields(item as Schema, `${path}/${key}/${i}`)))
    else if (key !== 'examples') found.push(...fields(value as Schema, `${path}/${key}`))
  }
  return found
}

describe('the scenario schema', () => {
  it('is a valid draft-07 schema that Ajv compiles in strict mode', () => {
    const ajv = new Ajv({ strict: true, allowUnionTypes: true })
    ajv.addVocabulary(['errorMessage'])
    expect(ajv.validateSchema(scenarioSchema), JSON.stringify(ajv.errors)).toBe(true)
    expect(() => ajv.compile(scenarioSchema)).not.toThrow()
    // Editors see what Ajv sees: an unknown keyword other than errorMessage would fail here.
    expect(() => new Ajv({ strict: true, allowUnionTypes: true }).compile(scenarioSchema)).toThrow(/unknown keyword: "errorMessage"/)
  })

  it('is shipped as schemas/scenario.schema.json, current with src/scenario/schema.ts', () => {
    expect(readFileSync(SHIPPED, 'utf8')).toBe(scenarioSchemaJson())
  })

  it('resolves as pay-sandbox/schemas/scenario.schema.json and is in the package', async () => {
    expect(createRequire(join(ROOT, 'package.json')).resolve('pay-sandbox/schemas/scenario.schema.json')).toBe(SHIPPED)
    const { stdout } = await promisify(execFile)('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: ROOT })
    const [pack] = JSON.parse(stdout) as Array<{ files: Array<{ path: string }> }>
    expect(pack!.files.map((f) => f.path)).toContain('schemas/scenario.schema.json')
  }, 60_000)

  it('gives every step and every field a title and a description, for editors to show', () => {
    const steps = (scenarioSchema.properties.steps.items.oneOf as readonly Schema[]).map((s) => s.required)
    expect(steps).toEqual(STEP_KINDS.map((k) => [k]))
    const undocumented = fields(scenarioSchema as unknown as Schema)
      .filter(([, field]) => typeof field.title !== 'string' || typeof field.description !== 'string')
      .map(([path]) => path)
    expect(undocumented).toEqual([])
  })

  it('is what every shipped scenario names, and every one of them passes it', () => {
    const files = readdirSync(FIXTURES)
    expect(files.filter((f) => /\.ya?ml$/.test(f)).length).toBeGreaterThan(0)
    for (const name of files) {
      const text = readFileSync(join(FIXTURES, name), 'utf8')
      const ref = name.endsWith('.json') ? (JSON.parse(text) as { $schema: string }).$schema : /^# yaml-language-server: \$schema=(\S+)\n/.exec(text)?.[1]
      expect(ref && resolve(dirname(join(FIXTURES, name)), ref), name).toBe(SHIPPED)
      expect(parseScenario(text, name), name).toHaveProperty('scenario')
    }
  })
})
