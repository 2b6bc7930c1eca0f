import { readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { expect, test } from 'vitest'
import { exitCodeDescriptions } from '../src/cli/exit-codes.js'
import { SpecMessage } from '../src/domain/outcomes.js'
import { ROOT } from './helpers.js'

const readme = readFileSync(join(ROOT, 'README.md'), 'utf8')

test('CI runs the README test command verbatim', () => {
  const command = /```sh\n(npm ci && npm test)\b/.exec(readme)?.[1]
  expect(command).toBe('npm ci && npm test')
  const ci = readFileSync(join(ROOT, '.ci', 'run'), 'utf8')
  expect(ci.split('\n')).toContain(command)
})

test('the exit code table is the one in src/cli/exit-codes.ts', () => {
  const section = readme.split('### Exit codes\n')[1]!.split('\n#')[0]!
  const rows = [...section.matchAll(/^\| (\d+) \| (.+) \|$/gm)].map((m) => [Number(m[1]), m[2]])
  expect(Object.fromEntries(rows)).toEqual(exitCodeDescriptions)
})

test('every command is documented', () => {
  const dir = join(ROOT, 'commands')
  const walk = (d: string): string[] =>
    readdirSync(d, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(join(d, e.name)) : [join(d, e.name)]))
  const ids = walk(dir)
    .filter((f) => f.endsWith('.ts'))
    .map((f) => relative(dir, f).replace(/\.ts$/, '').split('/').join(' ').replace(/ index$/, ''))
  expect(ids.length).toBeGreaterThan(20)
  for (const id of ids) expect(readme, `pay ${id}`).toContain(`pay ${id}`)
})

test("the spec's messages appear in the README exactly as the server sends them", () => {
  for (const message of Object.values(SpecMessage)) expect(readme).toContain(message)
})
