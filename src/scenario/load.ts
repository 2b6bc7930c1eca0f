import { open, readdir, stat } from 'node:fs/promises'
import { extname, join } from 'node:path'
import { parseScenario } from './parse.js'
import { SOURCE_LIMITS, TOO_LARGE } from './source.js'
import type { Scenario } from './types.js'

const EXTENSIONS = ['.json', '.yaml', '.yml']

/**
 * Reads scenario files, JSON or YAML (a folder stands for its *.json, *.yaml and *.yml files, by name); every
 * problem of every file is collected.
 */
export async function loadScenarios(paths: string[]): Promise<{ scenarios: Scenario[]; problems: string[] }> {
  const scenarios: Scenario[] = []
  const problems: string[] = []
  for (const file of await expand(paths, problems)) {
    const read = await readCapped(file)
    if ('problem' in read) {
      problems.push(`${file}: ${read.problem}`)
      continue
    }
    const parsed = parseScenario(read.text, file)
    if ('problems' in parsed) problems.push(...parsed.problems)
    else scenarios.push(parsed.scenario)
  }
  return { scenarios, problems }
}

/** The file's text, never more than the limit plus one byte of it: a huge file is refused, not read whole. */
async function readCapped(file: string): Promise<{ text: string } | { problem: string }> {
  let handle
  try {
    handle = await open(file, 'r')
    const buffer = Buffer.alloc(SOURCE_LIMITS.bytes + 1)
    let length = 0
    for (;;) {
      const { bytesRead } = await handle.read(buffer, length, buffer.length - length)
      length += bytesRead
      if (bytesRead === 0 || length === buffer.length) break
    }
    if (length > SOURCE_LIMITS.bytes) return { problem: TOO_LARGE }
    return { text: buffer.toString('utf8', 0, length) }
  } catch (error) {
    return { problem: `cannot read: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}` }
  } finally {
    await handle?.close()
  }
}

async function expand(paths: string[], problems: string[]): Promise<string[]> {
  const files: string[] = []
  for (const path of paths) {
    let isDir = false
    try {
      isDir = (await stat(path)).isDirectory()
    } catch {
      // reported when read
    }
    if (!isDir) {
      files.push(path)
      continue
    }
    const names = (await readdir(path)).filter((n) => EXTENSIONS.includes(extname(n).toLowerCase())).sort()
    if (names.length === 0) problems.push(`${path}: folder has no ${EXTENSIONS.join(', ')} scenario files`)
    files.push(...names.map((n) => join(path, n)))
  }
  return files
}
