/**
 * The latest time the sandbox clock reaches. Every time the sandbox writes (stamps in the data file and exports,
 * pages, the CLI, the control API) is printed as `toISOString` prints it, which has four digits of year only up
 * to 9999; the import reads times only in that form. So the clock is set or advanced no later than this, and a
 * clock left running there stands still. Whatever the sandbox computes from the clock adds at most
 * MAX_DURATION_MS to it (a payment's time to live, a retry's wait, a delayed notification, a block time), which
 * leaves most of year 9999 to spare.
 */
export const CLOCK_LATEST = '9999-01-01T00:00:00.000Z'
export const CLOCK_LATEST_MS = Date.parse(CLOCK_LATEST)

/** The range a move of the clock must stay in, in words, for messages. */
export const CLOCK_RANGE = `from the sandbox's own time (the clock never goes back) to ${CLOCK_LATEST}`
