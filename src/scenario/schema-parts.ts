/*
 * Pieces the scenario schema's steps share: text fields, titles, names, durations, limits.
 */

export const LIMITS = { waitMs: 60_000, withinMs: 120_000, failFirst: 100, steps: 500, depth: 64, blocks: 1000 } as const

export const NAME = '^[A-Za-z_][A-Za-z0-9_-]*$'

export const text = (max: number, what: string, examples: readonly string[]) =>
  ({
    type: 'string',
    minLength: 1,
    maxLength: max,
    pattern: '\\S',
    description: what,
    errorMessage: `must be a non-empty string of at most ${max} characters`,
    examples,
  }) as const

export const title = {
  title: 'Step title',
  ...text(200, 'Shown for this step in reports instead of the title made from the step.', ['verify before paying → 202 (not completed yet)']),
} as const

export const bindName = (what: string, example: string) =>
  ({
    title: 'Name (as)',
    description: `${what} Later steps refer to it by this name, e.g. \${${example}.…}. Letters, digits, _ and -; unique in the file.`,
    type: 'string',
    pattern: NAME,
    maxLength: 100,
    errorMessage: 'must be a name of letters, digits, _ or - starting with a letter or _',
    examples: [example],
  }) as const

/** A value sent as is after ${…} references are replaced: any JSON, so invalid input can be tested too. */
export const sent = (title: string, what: string, examples: readonly unknown[]) =>
  ({ title, description: `${what} Any JSON value is sent as written (after \${…} references), so invalid input can be tested.`, examples }) as const

export const durationText = {
  type: 'string',
  pattern: '^[0-9]+(\\.[0-9]+)?(ms|s|m|h)?$',
  errorMessage: 'must be a duration such as 500ms, 30s, 15m or 1h (at most 24h)',
  examples: ['10s', '15m'],
} as const

