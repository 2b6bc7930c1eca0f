// The generated reference pages are what `npm run docs` makes now: a command's flag, description or example, or
// a route's schema, changed without regenerating them fails here.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect, test } from 'vitest'
import { apiReference, servedDocument } from '../../scripts/docs/api.mjs'
import { commandsReference } from '../../scripts/docs/commands.mjs'
import { ROOT } from '../helpers.js'

const committed = (file: string) => readFileSync(join(ROOT, 'docs', 'reference', file), 'utf8')

test('docs/reference/commands.md is what the commands define now (else: npm run build && npm run docs)', async () => {
  const made = await commandsReference(ROOT)
  expect(made).toContain('### pay payment create')
  expect(committed('commands.md') === made, 'docs/reference/commands.md is stale: run npm run build && npm run docs').toBe(true)
})

test('docs/reference/openapi.md is what the OpenAPI document the sandbox serves says now (else: npm run docs)', { timeout: 30_000 }, async () => {
  const made = apiReference(await servedDocument(ROOT))
  expect(made).toContain('### POST /api/v1/request')
  expect(committed('openapi.md') === made, 'docs/reference/openapi.md is stale: run npm run build && npm run docs').toBe(true)
})
