import { existsSync, readFileSync } from 'node:fs'

/** The package version, from the nearest package.json above this file (works from src/ and dist/src/). */
function readVersion(): string {
  for (const up of ['../package.json', '../../package.json']) {
    const url = new URL(up, import.meta.url)
    if (existsSync(url)) return (JSON.parse(readFileSync(url, 'utf8')) as { version: string }).version
  }
  return '0.0.0'
}

export const version: string = readVersion()
