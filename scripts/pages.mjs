// Builds the pages' scripts for the browser: each `src/<feature>/browser/<name>.ts` becomes one self-contained
// script, `dist/pages/<name>.js`, which the server inlines in its pages under the CSP's hash of it. They are
// built from their own sources, never from the server's build: what the CLI bundle adds to its code (esbuild's
// name helpers under keepNames) would not exist in the page.
import { mkdirSync, readdirSync, renameSync, writeFileSync } from 'node:fs'
import { basename, join, relative, resolve } from 'node:path'
import { build } from 'esbuild'

const root = resolve(import.meta.dirname, '..')
const out = join(root, 'dist', 'pages')

const entries = readdirSync(join(root, 'src'), { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .flatMap((d) => {
    const dir = join(root, 'src', d.name, 'browser')
    try {
      return readdirSync(dir).filter((f) => f.endsWith('.ts')).map((f) => join(dir, f))
    } catch {
      return []
    }
  })
  .sort()

const names = entries.map((file) => basename(file, '.ts'))
const twice = names.filter((name, i) => names.indexOf(name) !== i)
if (twice.length > 0) throw new Error(`two page scripts named ${twice.join(', ')}: each name is one file in dist/pages`)

const result = await build({
  entryPoints: Object.fromEntries(entries.map((file, i) => [names[i], file])),
  bundle: true,
  write: false,
  outdir: out,
  format: 'iife',
  platform: 'browser',
  target: 'es2020',
  minify: true,
  legalComments: 'none',
  logLevel: 'warning',
})

mkdirSync(out, { recursive: true })
for (const file of result.outputFiles) {
  if (/<\/script|<!--/i.test(file.text)) throw new Error(`${relative(root, file.path)} contains text that would end an inline script early`)
  // Written beside and renamed, so a sandbox starting meanwhile reads one whole script or the other.
  const next = `${file.path}.next-${process.pid}`
  writeFileSync(next, file.text)
  renameSync(next, file.path)
}
console.log(`pages: ${names.join(', ')} in ${relative(root, out)}`)
