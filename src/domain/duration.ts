/** Durations as typed in flags and environment variables: `500ms`, `1.5s`, `2m`, `1h`, or a bare number of seconds. Pure. */

/**
 * The longest duration any flag takes. Nothing in a sandbox needs to wait longer, and Node's timers fire at
 * once beyond about 24.8 days, so a larger value would not wait at all (or, as a deadline, forever).
 */
export const MAX_DURATION_MS = 24 * 60 * 60 * 1000

const UNIT_MS: Readonly<Record<string, number>> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }

/** Milliseconds, or undefined when `text` is not a duration (a bare number is seconds, as curl's --max-time). */
export function parseDuration(text: string): number | undefined {
  const match = /^\s*(\d+(?:\.\d+)?|\.\d+)\s*(ms|s|m|h)?\s*$/i.exec(text)
  if (!match) return undefined
  const value = Number(match[1]) * UNIT_MS[(match[2] ?? 's').toLowerCase()]!
  return Number.isFinite(value) ? Math.round(value) : undefined
}

const EXAMPLES = [
  { text: '500ms', ms: 500 },
  { text: '30s', ms: 30_000 },
  { text: '2m', ms: 120_000 },
  { text: '1h', ms: 3_600_000 },
]

export interface DurationRange {
  /** Default 0. */
  min?: number
  /** Default MAX_DURATION_MS. */
  max?: number
}

/** The value of a duration setting in milliseconds, or what is wrong with it, naming the setting (e.g. `--timeout`). */
export function readDuration(name: string, text: string, range: DurationRange = {}): { ms: number } | { problem: string } {
  const min = range.min ?? 0
  const max = range.max ?? MAX_DURATION_MS
  const ms = parseDuration(text)
  if (ms !== undefined && ms >= min && ms <= max) return { ms }
  const examples = EXAMPLES.filter((e) => e.ms >= min && e.ms <= max).map((e) => e.text)
  return {
    problem: `${name} must be a duration from ${formatDuration(min)} to ${formatDuration(max)}${examples.length > 0 ? `, e.g. ${examples.join(', ')}` : ''}; a bare number is seconds (got ${JSON.stringify(text)})`,
  }
}

/** `1500` → `1.5s`, `250` → `250ms`, `86400000` → `24h`: for messages and console lines. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)}ms`
  if (ms < 60_000) return `${Number((ms / 1000).toFixed(1))}s`
  if (ms < 3_600_000) return `${Number((ms / 60_000).toFixed(1))}m`
  return `${Number((ms / 3_600_000).toFixed(1))}h`
}
