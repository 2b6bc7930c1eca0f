import { brief } from '../domain/brief.js'
import { nearest } from '../domain/nearest.js'
import { ExitCode, PayError } from './exit-codes.js'

/** A usage error: exit 2, JSON code `usage`. */
export function usage(message: string, options: { suggestions?: string[]; multiline?: boolean } = {}): PayError {
  return new PayError(message, ExitCode.usage, options)
}

interface FlagDefinition {
  type?: string
  description?: string
  options?: readonly string[]
}

interface ArgDefinition {
  name?: string
  description?: string
  options?: readonly string[]
}

/** The parts of an oclif parse error this module reads. */
export interface OclifParseError extends Error {
  /** NonExistentFlagsError: the flags as typed (`--amout`, `--amout=5`). */
  flags?: unknown
  /** RequiredArgsError: the arguments missing. */
  args?: unknown
  parse?: { input?: { flags?: Record<string, FlagDefinition> } }
}

/** What a usage error can point to about the command that refused: its words, flags and examples. */
export interface CommandFacts {
  /** `pay payment create`. */
  command: string
  flags: Record<string, FlagDefinition>
  /** The command's examples as written in it (`<%= config.bin %> <%= command.id %> …`). */
  examples: ReadonlyArray<string | { command: string }>
}

/** An example as shown: its `<%= config.bin %> <%= command.id %>` filled in. */
export function fillExample(example: string | { command: string }, command: string): string {
  const [bin = '', ...id] = command.split(' ')
  const text = typeof example === 'string' ? example : example.command
  return text.replaceAll('<%= config.bin %>', bin).replaceAll('<%= command.id %>', id.join(' '))
}

/**
 * A missing required flag, the same for every command, terminal or not: the flag with what it takes, one of the
 * command's own examples that sets it, and where its help is.
 */
export function missingFlag(flag: string, facts: CommandFacts): PayError {
  const definition = facts.flags[flag]
  const choices = definition?.options ? ` (one of ${definition.options.join(', ')})` : ''
  const what = definition?.description ? ` — ${definition.description}` : ''
  const sets = new RegExp(`(^|\\s)--${flag}(=|\\s|$)`)
  const example = facts.examples.map((e) => fillExample(e, facts.command)).find((e) => sets.test(e))
  return usage(`missing required flag --${flag}${choices}${what}`, { suggestions: pointers(facts, example) })
}

/** Missing required arguments: each with what it takes, the command's first example, and where its help is. */
export function missingArguments(args: ArgDefinition[], facts: CommandFacts): PayError {
  const named = args.map((a) => `${a.name ?? 'argument'}${a.options ? ` (one of ${a.options.join(', ')})` : ''}${a.description ? ` — ${a.description}` : ''}`)
  const example = facts.examples.map((e) => fillExample(e, facts.command)).find((e) => e.startsWith(`${facts.command} `))
  const message = named.length === 1 ? `missing required argument ${named[0]}` : `missing required arguments:\n  ${named.join('\n  ')}`
  return usage(message, { multiline: named.length > 1, suggestions: pointers(facts, example) })
}

function pointers(facts: CommandFacts, example: string | undefined): string[] {
  return [...(example !== undefined ? [`example: ${example}`] : []), `see: ${facts.command} --help`]
}

const ANSI = /\u001b\[[0-9;]*m/g

/**
 * oclif's parse errors (unknown or invalid flags, missing arguments) as usage errors in the words of the other
 * usage errors: the flag named first, what it allows, what was typed; a mistyped flag gets the closest one.
 */
export function fromParseError(err: OclifParseError, facts: CommandFacts): PayError {
  const flags = err.parse?.input?.flags ?? facts.flags
  const text = err.message.replace(ANSI, '').replace(/\n\s*See more help with --help\s*$/, '')
  const help = `${facts.command} --help lists the flags`

  if (Array.isArray(err.flags)) {
    const typed = err.flags.map((f) => String(f).split('=')[0]!)
    const known = Object.keys(flags).map((name) => `--${name}`)
    const guesses = typed.map((t) => [t, nearest(t, known)] as const)
    const named = guesses.map(([t, near]) => (near ? `${t} (did you mean ${near}?)` : t)).join(', ')
    return usage(`unknown flag${typed.length === 1 ? '' : 's'} ${named}`, { suggestions: [help] })
  }

  const option = /^Expected --([\w-]+)=([\s\S]*) to be one of: (.*)$/.exec(text)
  if (option) return usage(`--${option[1]} must be one of ${option[3]} (got ${brief(option[2])})`)

  const parsing = /^Parsing --([\w-]+)\s*\n\s*(?:Expected (.+?) but received: ([\s\S]*)|([\s\S]*))$/.exec(text)
  if (parsing) {
    const [, name, expected, received, other] = parsing
    return usage(expected !== undefined ? `--${name} must be ${expected} (got ${brief(received)})` : `--${name}: ${other}`)
  }

  const failed = /^The following errors? occurred:\n([\s\S]*)$/.exec(text)
  if (failed) {
    const reasons = failed[1]!.split('\n').map((reason) => reason.trim())
    const missing = reasons.map((reason) => /^Missing required flag ([\w-]+)$/.exec(reason)?.[1])
    if (reasons.length === 1 && missing[0] !== undefined) return missingFlag(missing[0], { ...facts, flags })
    const named = reasons.map((reason, i) => {
      const name = missing[i]
      const options = name !== undefined ? flags[name]?.options : undefined
      return name !== undefined ? `missing required flag --${name}${options ? ` (one of ${options.join(', ')})` : ''}` : reason
    })
    return usage(named.join('\n'), { multiline: named.length > 1, suggestions: [help] })
  }

  if (Array.isArray(err.args) && /^Missing \d+ required args?\b/.test(text)) return missingArguments(err.args as ArgDefinition[], facts)

  // The rest (unexpected arguments) name what was typed, on lines of their own.
  return usage(text, { multiline: true, suggestions: [`see: ${facts.command} --help`] })
}
