import { existsSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

/**
 * The package's folder: the nearest one above this file with a package.json (this file is in src/, dist/src/ or,
 * bundled, dist/bundle/). Undefined only if the file was moved out of any package.
 */
function findRoot(): string | undefined {
  for (let dir = dirname(fileURLToPath(import.meta.url)); ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return dir
    if (dirname(dir) === dir) return undefined
  }
}

export const PACKAGE_ROOT: string | undefined = findRoot()

/** The package version, from its package.json. */
export const version: string =
  PACKAGE_ROOT !== undefined ? (JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { version: string }).version : '0.0.0'
