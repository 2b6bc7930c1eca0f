import { readdir, readFile, stat } from 'node:fs/promises'
import { join } from 'node:path'
import { parseScenario } from './parse.js'
import type { Scenario } from './types.js'

/** Reads scenario files (a folder stands for its *.json files, by name); every problem of every file is collected. */
export async function loadScenarios(paths: string[]): Promise<{ scenarios: Scenario[]; problems: string[] }> {
  const scenarios: Scenario[] = []
  const problems: string[] = []
  for (const file of await expand(paths, problems)) {
    let text: string
    try {
      text = await readFile(file, 'utf8')
    } catch (error) {
      problems.push(`${file}: cannot read: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`)
      continue
    }
    const parsed = parseScenario(text, file)
    if ('problems' in parsed) problems.push(...parsed.problems)
    else scenarios.push(parsed.scenario)
  }
  return { scenarios, problems }
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
    const names = (await readdir(path)).filter((n) => n.endsWith('.json')).sort()
    if (names.length === 0) problems.push(`${path}: folder has no .json scenario files`)
    files.push(...names.map((n) => join(path, n)))
  }
  return files
}
