import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import ts from 'typescript'
import { expect, test } from 'vitest'
import { ROOT } from '../helpers.js'

/*
 * The types of bodies, answers and scenario steps are read from their JSON schemas, and types written by hand
 * beside a schema are held to it: a schema changed without its type fails to compile. Each row changes one
 * field of a real schema (in memory) and compiles the file that must then fail, as `npm run build` would.
 */

const config = ts.parseJsonConfigFileContent(ts.readConfigFile(join(ROOT, 'tsconfig.build.json'), ts.sys.readFile).config, ts.sys, ROOT)
const options: ts.CompilerOptions = { ...config.options, noEmit: true, incremental: false }

let previous: ts.Program | undefined

/** The errors of `files` when `schemaFile` has `from` replaced by `to` (or as they are, with no change). */
function errorsOf(files: string[], change?: { schemaFile: string; from: string; to: string }): string[] {
  const host = ts.createCompilerHost(options)
  const read = host.readFile.bind(host)
  if (change) {
    const text = readFileSync(join(ROOT, change.schemaFile), 'utf8')
    // The field this row changes must be there, once: otherwise the row would test nothing.
    expect(text.split(change.from).length - 1, `${change.schemaFile} has ${change.from} once`).toBe(1)
    const changed = text.replace(change.from, change.to)
    host.readFile = (name) => (name === join(ROOT, change.schemaFile) ? changed : read(name))
  }
  // Every file of the build, as `npm run build` compiles them (some declare what others use); only `files` are checked.
  const program = ts.createProgram(config.fileNames, options, host, previous)
  previous = program
  return files
    .flatMap((file) => ts.getPreEmitDiagnostics(program, program.getSourceFile(join(ROOT, file))))
    .map((d) => `${d.file ? `${d.file.fileName.slice(ROOT.length + 1)}: ` : ''}${ts.flattenDiagnosticMessageText(d.messageText, '\n').split('\n')[0]}`)
}

const rows = [
  {
    what: 'a route answer the clock builds (ClockView is its schema\'s type)',
    schemaFile: 'src/clock/schemas.ts',
    from: "aheadMs: { type: 'integer'",
    to: "aheadMs: { type: 'string'",
    fails: 'src/clock/sandbox-clock.ts',
  },
  {
    what: 'a request body a handler reads (simulate\'s amount)',
    schemaFile: 'src/http/schemas.ts',
    from: "    amount: { type: 'number' },\n    // Checked by the service",
    to: "    amount: { type: 'string' },\n    // Checked by the service",
    fails: 'src/server/routes/sandbox.ts',
  },
  {
    what: 'a domain type the answer schema documents (the verify journal)',
    schemaFile: 'src/http/schemas.ts',
    from: "count: { type: 'integer', description: 'verify calls in all' }",
    to: "count: { type: 'string', description: 'verify calls in all' }",
    fails: 'src/http/schemas.ts',
  },
  {
    what: 'the audit report the rules make',
    schemaFile: 'src/audit/schemas.ts',
    from: "    strict: { type: 'boolean' },\n    at:",
    to: "    strict: { type: 'string' },\n    at:",
    fails: 'src/audit/schemas.ts',
  },
  {
    what: 'a bot as the chat routes show it',
    schemaFile: 'src/telegram/chat-schemas.ts',
    from: "pendingUpdates: { type: 'integer'",
    to: "pendingUpdates: { type: 'string'",
    fails: 'src/telegram/chat-routes.ts',
  },
  {
    what: 'a scenario step the runner reads (a receiver\'s failStatus)',
    schemaFile: 'src/scenario/schema.ts',
    from: "          type: 'integer',\n          minimum: 400,",
    to: "          type: 'string',\n          minimum: 400,",
    fails: 'src/scenario/run.ts',
  },
]

test('the files the rows below break compile as they are', { timeout: 180_000 }, () => {
  expect(errorsOf(rows.map((row) => row.fails))).toEqual([])
})

test.each(rows)('a schema changed without its type fails to compile: $what', { timeout: 180_000 }, (row) => {
  const errors = errorsOf([row.fails], row)
  expect(errors.length, errors.join('\n')).toBeGreaterThan(0)
  expect(errors.every((e) => e.startsWith(row.fails)), errors.join('\n')).toBe(true)
})
