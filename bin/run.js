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

// The bundle's own copy of oclif: the one its commands were built with. Node loads its pieces all at once: with
// few file descriptors (`ulimit -n`) that alone can fail, before any command can say so itself.
let cli
try {
  cli = await import('../dist/bundle/cli.js')
} catch (error) {
  if (error?.code !== 'EMFILE' && error?.code !== 'ENFILE') throw error
  process.stderr.write(`Error: too many open files (${error.code}) to load pay; raise the limit of open files, e.g. \`ulimit -n 1024\`, and run it again\n`)
  // 7 (could not start) for the commands that start a server, as their own failures to start are; else 1.
  const starting = ['sandbox start', 'sandbox exec', 'callback listen'].includes(process.argv.slice(2, 4).join(' '))
  process.exit(starting ? 7 : 1)
}
await cli.execute({ dir: import.meta.url })
