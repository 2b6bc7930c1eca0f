// Writes schemas/scenario.schema.json (for editors and the package) from the compiled schema in
// src/scenario/schema.ts. Run by `npm run build`; a test checks the committed file is current.
import { mkdir, writeFile } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import { scenarioSchemaJson } from '../dist/src/scenario/schema.js'

const dir = join(resolve(import.meta.dirname, '..'), 'schemas')
await mkdir(dir, { recursive: true })
await writeFile(join(dir, 'scenario.schema.json'), scenarioSchemaJson())
console.log('schemas/scenario.schema.json written')
