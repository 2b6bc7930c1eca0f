import { type DurationRange, readDuration } from '../domain/duration.js'
import { usage } from './usage.js'

/** A duration flag's value in milliseconds (at most 24h unless `range` says less), or a usage error naming the flag. */
export function durationFlag(flag: string, text: string, range: DurationRange = {}): number {
  const read = readDuration(`--${flag}`, text, range)
  if ('problem' in read) throw usage(read.problem)
  return read.ms
}
