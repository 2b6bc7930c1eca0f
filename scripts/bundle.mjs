// Bundles the CLI into ES modules: the entry bin/run.js calls (oclif), and each command as a file of its own
// (dist/bundle/commands/payment/verify.js is `payment:verify`, oclif's pattern strategy), which oclif imports when
// that command runs: a command loads a few files instead of a few hundred, and not the other commands' code. What
// commands share (oclif, the client, the server, prompts) is in chunks beside them, loaded on first use.
import { readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { join, relative, resolve } from 'node:path'
import { build } from 'esbuild'

const root = resolve(import.meta.dirname, '..')
const compiled = join(root, 'dist')
const out = join(compiled, 'bundle')

function files(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    return statSync(path).isDirectory() ? files(path) : path.endsWith('.js') ? [path] : []
  })
}

// `dist/commands/payment/verify.js` is the command `payment:verify`, as oclif's pattern strategy names it.
const commands = files(join(compiled, 'commands'))
  .map((file) => ({ file, id: relative(join(compiled, 'commands'), file).replace(/\.js$/, '').replace(/\/index$/, '').split('/').join(':') }))
  .sort((a, b) => a.id.localeCompare(b.id))
const entry = join(compiled, 'cli-entry.js')
writeFileSync(
  entry,
  [
    "export { flush, handle, run } from '@oclif/core'",
    '',
  ].join('\n'),
)

// Built beside the old bundle and swapped in, so a `pay` started meanwhile finds one whole bundle or the other.
const next = `${out}.next-${process.pid}`
rmSync(next, { recursive: true, force: true })
const result = await build({
  entryPoints: {
    cli: entry,
    ...Object.fromEntries(commands.map((c) => [relative(compiled, c.file).replace(/\.js$/, ''), c.file])),
    'not-found': join(compiled, 'src', 'cli', 'not-found.js'),
    help: join(compiled, 'src', 'cli', 'help.js'),
  },
  outdir: next,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  // Smaller source is less to parse at every start (PAY_BUNDLE_MINIFY=0 for a readable CPU profile). Names are not
  // minified, so functions and classes keep theirs (stack traces, error names) without esbuild's keepNames, which
  // names each function as it is made: a property defined at every closure made, in the hot path of every request.
  minifyWhitespace: process.env.PAY_BUNDLE_MINIFY !== "0",
  minifySyntax: process.env.PAY_BUNDLE_MINIFY !== "0",
  logLevel: 'warning',
  // PAY_BUNDLE_META=<file> writes esbuild's account of which inputs went into which chunk.
  metafile: Boolean(process.env.PAY_BUNDLE_META),
  // The server's packages (fastify and its plugins, Ajv, lowdb, yaml) are bundled: resolving and loading their few
  // hundred files one by one was a fifth of `pay sandbox start`. None of them reads a file of its own at run time.
  // Kept as packages: what a start never loads (PostgreSQL's driver, the QR code, the OpenAPI document's maker, which
  // reads its own package.json), pino (Fastify loads it only for a logger, which the sandbox never asks for), and
  // what only tests and tools use.
  external: ['typescript', 'ts-node', 'pg', '@fastify/swagger', 'pino', 'qrcode', 'playwright-core', 'fast-check'],
  // Bundled CommonJS (oclif and its dependencies) needs `require` for Node's own modules, and oclif finds its own
  // package.json from `__dirname`: looked up when oclif first asks (a lookup costs ~15 ms at every start).
  // PAY_BUNDLE tells code that may `require` a bundled package (src/server/app.ts) that it runs from the bundle.
  define: { __dirname: '__payOclif.dir', PAY_BUNDLE: 'true' },
  banner: {
    js: [
      "import { createRequire as __payRequire } from 'node:module'",
      'const require = __payRequire(import.meta.url)',
      "import { dirname as __payDirname } from 'node:path'",
      "const __payOclif = { get dir() { return (this.cached ??= __payDirname(require.resolve('@oclif/core/package.json')) + '/lib') } }",
    ].join('; '),
  },
})
if (process.env.PAY_BUNDLE_META) writeFileSync(process.env.PAY_BUNDLE_META, JSON.stringify(result.metafile))
rmSync(entry)
const old = `${out}.old-${process.pid}`
try {
  renameSync(out, old)
} catch {
  // no bundle yet
}
renameSync(next, out)
rmSync(old, { recursive: true, force: true })
console.log(`bundle: ${commands.length} commands in ${relative(root, out)}`)
