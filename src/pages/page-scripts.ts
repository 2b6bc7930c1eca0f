import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { PACKAGE_ROOT } from '../version.js'

/** The pages' scripts: `src/<feature>/browser/<name>.ts`, built for the browser into `dist/pages/<name>.js`. */
export const PAGE_SCRIPTS = ['checkout', 'inspector', 'chat'] as const
export type PageScriptName = (typeof PAGE_SCRIPTS)[number]

export interface PageScript {
  /** The built script, inlined in the page as it is. */
  source: string
  /** Its CSP source expression: `'sha256-…'`. */
  hash: string
}

/** A page's script is not in the package: it was not built. */
export class PageScriptMissingError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'PageScriptMissingError'
  }
}

const loaded = new Map<PageScriptName, PageScript>()

/**
 * A page's script, read once from the package's `dist/pages`: the same files whether the server runs from the
 * CLI bundle, the compiled library or the sources under test.
 */
export function pageScript(name: PageScriptName): PageScript {
  let script = loaded.get(name)
  if (script) return script
  const file = join(PACKAGE_ROOT ?? '.', 'dist', 'pages', `${name}.js`)
  let source: string
  try {
    source = readFileSync(file, 'utf8')
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? String(error)
    throw new PageScriptMissingError(`the ${name} page's script cannot be read (${code}): ${file}; build the package first (npm run build)`)
  }
  script = { source, hash: `'sha256-${createHash('sha256').update(source).digest('base64')}'` }
  loaded.set(name, script)
  return script
}

/** Reads every page's script, so that a package that was not built fails to start rather than serve a page. */
export function loadPageScripts(): void {
  for (const name of PAGE_SCRIPTS) pageScript(name)
}
