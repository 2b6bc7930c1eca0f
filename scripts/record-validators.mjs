// Compiles the checks of a data file's records (the lists' fast validators of src/domain/record-schema.ts) ahead of time with
// Ajv's standalone code, so that a start runs them without loading or running the schema compiler. Written to
// src/domain/record-validators.ts (kept in the repository, so that the sources always compile) and to its compiled
// twin in dist. A start uses them only if they were made from the schemas it has (a digest): otherwise it compiles
// the schemas itself, as before.
import { writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join, resolve } from 'node:path'
import ajvModule from 'ajv'
import standaloneCode from 'ajv/dist/standalone/index.js'

const root = resolve(import.meta.dirname, '..')
const { listSchemas, listSchemasDigest, recordsSchema } = await import(join(root, 'dist/src/domain/record-schema.js'))
const { formatsAjv } = await import(join(root, 'dist/src/domain/export-schema.js'))

const schemas = listSchemas()
const ajv = formatsAjv({ messages: false }, { inlineRefs: false, code: { source: true, esm: true, formats: ajvModule._`formatChecks` } })
// The definitions every schema carries are compiled once, as a schema of their own that the others refer to: which
// only changes where a failing check's error would point, and these checks only say pass or fail.
const DEFS = 'records.json'
ajv.addSchema({ $id: DEFS, $defs: recordsSchema.$defs })
const shared = (schema) =>
  Array.isArray(schema)
    ? schema.map(shared)
    : typeof schema === 'object' && schema !== null
      ? Object.fromEntries(
          Object.entries(schema)
            .filter(([key]) => key !== '$defs')
            .map(([key, value]) => [key, key === '$ref' && value.startsWith('#/$defs/') ? `${DEFS}${value}` : shared(value)]),
        )
      : schema
// The lists a data file holds. A journal's lines (read after a stop that was not clean) are compiled when met.
const names = Object.keys(schemas)
for (const name of names) ajv.addSchema(shared(schemas[name]), name)
const exportNames = Object.fromEntries(names.map((name, i) => [`v${i}`, name]))
let code = standaloneCode(ajv, exportNames)

// Ajv's runtime helpers (ucs2length, for string lengths) are required by package path: they are small functions of
// their own, written into the module as they are, so that it imports nothing a loader could take two ways.
const require = createRequire(import.meta.url)
const helpers = new Map()
code = code.replace(/require\("(ajv\/dist\/runtime\/[a-z0-9_]+)"\)\.default/gi, (_, path) => {
  if (!helpers.has(path)) helpers.set(path, `runtime${helpers.size}`)
  return `${helpers.get(path)}.default`
})
if (/require\(/.test(code)) throw new Error('record-validators: the standalone code requires something not handled here')
code = code.replace(/^"use strict";/, '')

const text = [
  '// Made by scripts/record-validators.mjs from the schemas of record-schema.ts (`npm run build`): do not edit.',
  '// @ts-nocheck',
  '/* eslint-disable */',
  "import { formatChecks } from './export-schema.js'",
  ...[...helpers].map(([path, name]) => {
    const helper = require(path).default
    const source = helper.toString()
    if (typeof helper !== 'function' || /\brequire\b/.test(source)) throw new Error(`record-validators: ${path} is not a function of its own`)
    return `const ${name} = { default: ${source} }`
  }),
  code.trim(),
  `export const PRECOMPILED_DIGEST/*: string*/ = ${JSON.stringify(listSchemasDigest())}`,
  `export const PRECOMPILED/*: Readonly<Record<string, (data: unknown) => boolean>>*/ = {${names.map((name, i) => `${JSON.stringify(name)}: v${i}`).join(', ')}}`,
  '',
].join('\n')
writeFileSync(join(root, 'src/domain/record-validators.ts'), text.replaceAll(/\/\*(: [^*]+)\*\//g, '$1'))
writeFileSync(join(root, 'dist/src/domain/record-validators.js'), text.replace('// @ts-nocheck\n', '').replaceAll(/\/\*(: [^*]+)\*\//g, ''))
console.log(`record validators: ${names.length} compiled ahead of time`)
