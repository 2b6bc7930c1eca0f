// Writes the generated reference pages: docs/reference/commands.md (from the commands' definitions) and
// docs/reference/openapi.md (from the OpenAPI document the built sandbox serves). Run after `npm run build`;
// test/docs/reference.test.ts fails when either file is not what this writes now.
import { writeFile } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import { apiReference, servedDocument } from './docs/api.mjs'
import { commandsReference } from './docs/commands.mjs'

const root = resolve(import.meta.dirname, '..')
const pages = {
  'docs/reference/commands.md': () => commandsReference(root),
  'docs/reference/openapi.md': async () => apiReference(await servedDocument(root)),
}
for (const [file, make] of Object.entries(pages)) {
  const text = await make()
  await writeFile(join(root, file), text)
  console.log(`${file}: ${text.length} bytes`)
}
