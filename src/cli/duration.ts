import { ExitCode, PayError } from './exit-codes.js'

/** Parses a duration flag: `30s`, `500ms`, `2m`, or a bare number of seconds. Undefined when it is not one. */
export function parseDuration(text: string): number | undefined {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m)?\s*$/.exec(text)
  if (!m) return undefined
  const value = Number(m[1])
  const unit = m[2] ?? 's'
  return Math.round(unit === 'ms' ? value : unit === 's' ? value * 1000 : value * 60_000)
}

/** A duration flag's value in milliseconds, or a usage error naming the flag. */
export function durationFlag(flag: string, text: string): number {
  const ms = parseDuration(text)
  if (ms === undefined) {
    throw new PayError(`--${flag} must be a duration such as 30s, 500ms or 2m (got ${JSON.stringify(text)})`, ExitCode.usage, {
      code: 'usage',
    })
  }
  return ms
}
