#!/usr/bin/env node
import { statSync, unlinkSync } from 'node:fs'

// oclif.manifest.json (written by `npm run build`) spares importing every command at start. One older than the
// last compile may miss new commands, so it is dropped and oclif reads the commands themselves.
const root = new URL('..', import.meta.url)
try {
  const manifest = new URL('oclif.manifest.json', root)
  if (statSync(manifest).mtimeMs < statSync(new URL('dist/.tsbuildinfo', root)).mtimeMs) unlinkSync(manifest)
} catch {
  // no manifest, no build info, or a read-only install: nothing to check
}

// The commands ship compiled. Under NODE_ENV=test or development (as test runners set it) oclif would otherwise
// look for TypeScript sources to run instead, loading the TypeScript compiler at every start (or warning that it
// is not installed).
globalThis.oclif = { ...globalThis.oclif, enableAutoTranspile: false }

// oclif checks the Node version against its own `engines` (Node 18 and later) as it loads, reading its package.json
// and parsing the range: a twentieth of a command's CPU. Ours asks for more (package.json), so the check can never
// say anything. It is skipped for the import only: the commands' children keep the environment they were given.
const engineWarning = process.env.OCLIF_DISABLE_ENGINE_WARNING
process.env.OCLIF_DISABLE_ENGINE_WARNING = '1'

// The bundle's own copy of oclif: the one its commands were built with. Node loads its pieces, and then the
// command's own, several files at once: with few file descriptors (`ulimit -n`) that alone can fail, before any
// command can say so itself.
const tooFewDescriptors = (error) => error?.code === 'EMFILE' || error?.code === 'ENFILE'
function refuseForDescriptors(error) {
  process.stderr.write(`Error: too many open files (${error.code}) to load pay; raise the limit of open files, e.g. \`ulimit -n 1024\`, and run it again\n`)
  // 7 (could not start) for the commands that start a server, as their own failures to start are; else 1.
  const starting = ['sandbox start', 'sandbox exec', 'callback listen'].includes(process.argv.slice(2, 4).join(' '))
  process.exit(starting ? 7 : 1)
}
let cli
try {
  cli = await import('../dist/bundle/cli.js')
} catch (error) {
  if (!tooFewDescriptors(error)) throw error
  refuseForDescriptors(error)
}
if (engineWarning === undefined) delete process.env.OCLIF_DISABLE_ENGINE_WARNING
else process.env.OCLIF_DISABLE_ENGINE_WARNING = engineWarning
// oclif's `execute`, with one more case: a command's file that cannot be loaded for want of descriptors. A command
// that runs reports its own failures (a server that cannot start exits 7 with its own message).
await cli
  .run(process.argv.slice(2), import.meta.url)
  .then((result) => {
    cli.flush()
    return result
  })
  .catch(async (error) => {
    if (tooFewDescriptors(error)) refuseForDescriptors(error)
    return cli.handle(error)
  })
