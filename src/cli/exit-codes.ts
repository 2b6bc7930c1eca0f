/** Exit codes of every `pay` command, in one table (the tables of the README and docs/reference/exit-codes.md are checked against it). */
export const ExitCode = {
  ok: 0,
  /** Anything unexpected. */
  error: 1,
  /** A flag or argument is missing or invalid, or an input file is unreadable; the JSON code is always `usage`. */
  usage: 2,
  /** No sandbox answered at the URL. */
  unreachable: 3,
  /** The spec API answered with a failure result (103–109, or 203 Invalid track ID). */
  specFailure: 4,
  /** The control API refused the request: unknown trackId, merchant, delivery or fault rule; a move the payment cannot make; a conflict; a host or origin it does not answer. */
  rejected: 5,
  /** An expectation was not met: `--expect`, a wait that timed out, a failed scenario step, a failed audit. */
  expectationFailed: 6,
  /** The sandbox (or `callback listen`) could not start: data file unusable or in use, PostgreSQL store unreachable or its schema newer, port taken, disk full, too few file descriptors. */
  startFailed: 7,
  /** A callback was not delivered (a replay, or `pay trigger`'s first attempt): refused, timed out, answered non-2xx, or not tried within `--wait`. */
  callbackFailed: 8,
  /** No such command. */
  unknownCommand: 127,
} as const
export type ExitCodeValue = (typeof ExitCode)[keyof typeof ExitCode]

export const exitCodeDescriptions: Record<ExitCodeValue, string> = {
  0: 'success',
  1: 'unexpected error',
  2: 'usage: a flag or argument is missing or invalid, a flag does nothing with the others given, or an input file cannot be read',
  3: 'no sandbox answered at the URL',
  4: 'the spec API answered with a failure result (103–109, or 203 "Invalid track ID")',
  5: 'the control API refused the request (unknown trackId, merchant, delivery or fault rule; a move the payment cannot make; a conflict; a host or origin it does not answer)',
  6: 'an expectation was not met (--expect, a wait that timed out, a failed scenario step, a failed audit)',
  7: 'the sandbox or the callback listener could not start (data file unusable or in use, PostgreSQL store unreachable or its schema newer than pay, port taken, disk full, too few file descriptors)',
  8: 'a callback was not delivered: a replay, or the first attempt of pay trigger (connection refused, timeout, a non-2xx answer, or no attempt within --wait)',
  127: 'no such command (the message names the closest one)',
}

/** A failure the CLI reports on stderr (and as JSON under --json) and exits with. Every usage error has the code `usage`. */
export class PayError extends Error {
  readonly exit: ExitCodeValue
  readonly code: string
  readonly suggestions: string[]
  /** The message's lines were made inert one by one, so its newlines are kept; otherwise they are escaped. */
  readonly multiline: boolean
  constructor(message: string, exit: ExitCodeValue, options: { code?: string; suggestions?: string[]; multiline?: boolean } = {}) {
    super(message)
    this.name = 'PayError'
    this.exit = exit
    this.code = exit === ExitCode.usage ? 'usage' : (options.code ?? 'error')
    this.suggestions = options.suggestions ?? []
    this.multiline = options.multiline ?? false
  }
}
