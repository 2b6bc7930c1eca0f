// Writes oclif.manifest.json from the compiled commands, as `oclif manifest` does, so `pay` reads one file at
// start instead of importing every command. Run by `npm run build`; a test checks it lists every command.
import { writeFile } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import { Plugin } from '@oclif/core'

const root = resolve(import.meta.dirname, '..')
const plugin = new Plugin({ root, type: 'core', ignoreManifest: true, errorOnManifestCreate: true, isRoot: true })
await plugin.load()
const manifest = { ...plugin.manifest }
await writeFile(join(root, 'oclif.manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`)
console.log(`oclif.manifest.json: ${Object.keys(manifest.commands).length} commands`)
