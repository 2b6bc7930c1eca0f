import { type DurationRange, readDuration } from '../domain/duration.js'
import { ExitCode, PayError } from './exit-codes.js'

/** A duration flag's value in milliseconds (at most 24h unless `range` says less), or a usage error naming the flag. */
export function durationFlag(flag: string, text: string, range: DurationRange = {}): number {
  const read = readDuration(`--${flag}`, text, range)
  if ('problem' in read) throw new PayError(read.problem, ExitCode.usage, { code: 'usage' })
  return read.ms
}
