import { brief } from '../domain/brief.js'
import { nearest } from '../domain/nearest.js'
import { ExitCode, PayError } from './exit-codes.js'

/** A usage error: exit 2, JSON code `usage`. */
export function usage(message: string, options: { suggestions?: string[]; multiline?: boolean } = {}): PayError {
  return new PayError(message, ExitCode.usage, options)
}

interface FlagDefinition {
  type?: string
  options?: readonly string[]
}

/** The parts of an oclif parse error this module reads. */
export interface OclifParseError extends Error {
  /** NonExistentFlagsError: the flags as typed (`--amout`, `--amout=5`). */
  flags?: unknown
  parse?: { input?: { flags?: Record<string, FlagDefinition> } }
}

const ANSI = /\u001b\[[0-9;]*m/g

/**
 * oclif's parse errors (unknown or invalid flags, missing arguments) as usage errors in the words of the other
 * usage errors: the flag named first, what it allows, what was typed; a mistyped flag gets the closest one.
 */
export function fromParseError(err: OclifParseError, bin: string): PayError {
  const flags = err.parse?.input?.flags ?? {}
  const text = err.message.replace(ANSI, '').replace(/\n\s*See more help with --help\s*$/, '')
  const help = `${bin} --help lists the flags`

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
    const reasons = failed[1]!.split('\n').map((reason) => {
      const missing = /^\s*Missing required flag ([\w-]+)\s*$/.exec(reason)?.[1]
      if (missing === undefined) return reason.trim()
      const options = flags[missing]?.options
      return `missing required flag --${missing}${options ? ` (one of ${options.join(', ')})` : ''}`
    })
    return usage(reasons.join('\n'), { multiline: reasons.length > 1, suggestions: [help] })
  }

  // The rest (missing or unexpected arguments) name what was typed, on lines of their own.
  return usage(text, { multiline: true, suggestions: ['see --help'] })
}
