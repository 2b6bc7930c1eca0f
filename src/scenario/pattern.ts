import { Script, createContext, type Context } from 'node:vm'
import { parseTemplate, type Lookup } from './template.js'

/**
 * The pattern of a chat `expect` step: a JavaScript regular expression written as a string, case-sensitive
 * (`Pay here: .*\/pay\/`), or in slashes with flags (`/payment received/i`). A `${name.field}` in it stands for
 * that value as literal text. Pure.
 */

/** Flags a pattern may carry; g and y keep state between matches, so they have no meaning here. */
const FLAGS = /^[imsu]*$/
const LITERAL = /^\/([\s\S]+)\/([a-z]*)$/

interface Parts {
  body: string
  flags: string
}

function split(pattern: string): Parts | { problem: string } {
  const literal = LITERAL.exec(pattern)
  if (!literal) return { body: pattern, flags: '' }
  const [, body, flags] = literal as unknown as [string, string, string]
  if (!FLAGS.test(flags) || new Set(flags).size !== flags.length) return { problem: `the flags after the closing / may be i, m, s and u, each once (got "${flags}")` }
  return { body, flags }
}

/** Regular-expression syntax escaped, so that a value is matched as written (also valid under the u flag). */
function literal(text: string): string {
  return text.replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&')
}

function build(parts: Parts, value: (name: string, field: string, source: string) => string): RegExp {
  const parsed = parseTemplate(parts.body)
  if ('error' in parsed) throw new SyntaxError(parsed.error)
  const source = parsed.pieces.map((p) => (p.kind === 'text' ? p.text : p.kind === 'repeat' ? literal(p.text.repeat(p.count)) : literal(value(p.name, p.field, p.source)))).join('')
  return new RegExp(source, parts.flags)
}

/** What is wrong with a pattern, or undefined when it compiles (references are checked elsewhere). */
export function patternProblem(pattern: string): string | undefined {
  const parts = split(pattern)
  if ('problem' in parts) return parts.problem
  if ('error' in parseTemplate(parts.body)) return undefined
  try {
    build(parts, () => 'x')
    return undefined
  } catch (error) {
    return `is not a valid regular expression: ${(error as Error).message.replace(/^Invalid regular expression: /, '')}`
  }
}

/** The pattern as a RegExp, its references replaced by their values. The pattern was checked by patternProblem. */
export function patternRegExp(pattern: string, lookup: Lookup): RegExp {
  const parts = split(pattern) as Parts
  return build(parts, (name, field, source) => String(lookup(name, field, source)))
}

/** The pattern as reports show it: in slashes, with its flags. */
export function shownPattern(pattern: string): string {
  return LITERAL.test(pattern) && FLAGS.test(LITERAL.exec(pattern)![2]!) ? pattern : `/${pattern}/`
}

/** Longest a pattern may take on one text (CPU time): a pattern that backtracks without end fails its step instead. */
export const MATCH_MS = 200
/** Longest wait for one match on a machine too busy to run it: past this, the pattern fails however little it ran. */
const MATCH_WAIT_MS = 10_000

/** A pattern ran longer than MATCH_MS on a text. */
export class PatternTimeout extends Error {
  constructor(pattern: RegExp, length: number, what = 'a text') {
    super(`the pattern ${String(pattern)} took more than ${MATCH_MS} ms on ${what} of ${length} characters; write one that does not backtrack so much`)
    this.name = 'PatternTimeout'
  }
}

let context: Context | undefined
const exec = new Script('pattern.lastIndex = 0; pattern.exec(text)')

/**
 * The first match of the pattern in the text, run with a time limit (a scenario file is not trusted to hold a
 * pattern that ends): its whole match and groups, or null. Throws PatternTimeout (naming the text as `what`).
 *
 * The limit is MATCH_MS of CPU time. vm's timeout counts wall time, which a busy machine spends elsewhere: a run
 * stopped before it had MATCH_MS of CPU is run again with twice the time (up to MATCH_WAIT_MS), so only a pattern
 * that itself runs that long fails.
 */
export function timedExec(pattern: RegExp, text: string, what?: string): Array<string | undefined> | null {
  context ??= createContext({})
  context.pattern = pattern
  context.text = text
  try {
    for (let wait = MATCH_MS; ; wait = Math.min(2 * wait, MATCH_WAIT_MS)) {
      const before = process.cpuUsage()
      try {
        const found = exec.runInContext(context, { timeout: wait }) as RegExpExecArray | null
        return found === null ? null : Array.from(found as ArrayLike<string | undefined>)
      } catch (error) {
        if ((error as { code?: string }).code !== 'ERR_SCRIPT_EXECUTION_TIMEOUT') throw error
        const used = process.cpuUsage(before)
        if ((used.user + used.system) / 1000 >= MATCH_MS || wait >= MATCH_WAIT_MS) throw new PatternTimeout(pattern, text.length, what)
      }
    }
  } finally {
    context.text = ''
  }
}
