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

// The bundle's own copy of oclif: the one its commands were built with.
const { execute } = await import('../dist/bundle/cli.js')
await execute({ dir: import.meta.url })
