import { open, readdir, stat } from 'node:fs/promises'
import { extname, join } from 'node:path'
import { nearest } from '../domain/nearest.js'
import { parseScenario } from './parse.js'
import { SOURCE_LIMITS, TOO_LARGE } from './source.js'
import type { Scenario } from './types.js'

const EXTENSIONS = ['.json', '.yaml', '.yml']

export interface LoadOptions {
  /** What `${env.NAME}` reads (default: this process's environment). */
  env?: Readonly<Record<string, string | undefined>>
  /** `--var name=value`: each replaces the var of that name in the files that declare it; one no file declares is a problem. */
  vars?: Readonly<Record<string, string>>
}

/**
 * Reads scenario files, JSON or YAML (a folder stands for its *.json, *.yaml and *.yml files, by name); every
 * problem of every file is collected, environment variables the files use and do not find included.
 */
export async function loadScenarios(paths: string[], options: LoadOptions = {}): Promise<{ scenarios: Scenario[]; problems: string[] }> {
  const scenarios: Scenario[] = []
  const problems: string[] = []
  const env = options.env ?? process.env
  const vars = options.vars ?? {}
  for (const file of await expand(paths, problems)) {
    const read = await readCapped(file)
    if ('problem' in read) {
      problems.push(`${file}: ${read.problem}`)
      continue
    }
    const parsed = parseScenario(read.text, file, { env, vars })
    if ('problems' in parsed) problems.push(...parsed.problems)
    else scenarios.push(parsed.scenario)
  }
  if (problems.length === 0) {
    // An override no file declares would be silently left out: a typo, most likely.
    const declared = [...new Set(scenarios.flatMap((s) => Object.keys(s.variables.vars)))]
    for (const name of Object.keys(vars).filter((n) => !declared.includes(n))) {
      const near = nearest(name, declared)
      problems.push(`--var ${name}: no scenario file declares a var "${name}" in its "vars"${near ? ` (did you mean ${near}?)` : declared.length > 0 ? ` (declared: ${declared.join(', ')})` : ''}`)
    }
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
