import { expect, test } from 'vitest'
import { formatDuration, MAX_DURATION_MS, parseDuration, readDuration } from '../../src/domain/duration.js'

test.each([
  ['500ms', 500],
  ['30s', 30_000],
  ['1.5s', 1_500],
  ['.5s', 500],
  ['2m', 120_000],
  ['1h', 3_600_000],
  ['24h', MAX_DURATION_MS],
  [' 10 S ', 10_000],
  ['7', 7_000],
  ['0', 0],
])('parseDuration(%j) = %i ms', (text, ms) => {
  expect(parseDuration(text)).toBe(ms)
})

test.each(['', 'soon', '-1s', '1d', '1e3s', '1s2', `${'9'.repeat(400)}s`])('parseDuration(%j) is not a duration', (text) => {
  expect(parseDuration(text)).toBeUndefined()
})

test.each([
  ['99999999999999999999m', {}],
  ['24.1h', {}],
  ['86400001ms', {}],
  ['61s', { max: 60_000 }],
  ['0', { min: 1 }],
])('readDuration refuses %j beyond its range, naming the setting and the range', (text, range) => {
  const read = readDuration('--timeout', text, range)
  expect(read).toEqual({ problem: expect.stringMatching(/^--timeout must be a duration from \S+ to \S+/) })
  expect((read as { problem: string }).problem).toContain(JSON.stringify(text))
})

test('the examples in a message fit the range', () => {
  expect(readDuration('--callback-timeout', '2m', { min: 1, max: 60_000 })).toEqual({
    problem: '--callback-timeout must be a duration from 1ms to 1m, e.g. 500ms, 30s; a bare number is seconds (got "2m")',
  })
})

test.each([
  [250, '250ms'],
  [1_500, '1.5s'],
  [90_000, '1.5m'],
  [MAX_DURATION_MS, '24h'],
])('formatDuration(%i) = %s', (ms, text) => {
  expect(formatDuration(ms)).toBe(text)
})
