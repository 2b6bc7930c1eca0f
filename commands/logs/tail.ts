import { Flags } from '@oclif/core'
import chalk from 'chalk'
import { ClientCommand } from '../../src/cli/base.js'
import { sleep } from '../../src/cli/detach.js'
import { ExitCode } from '../../src/cli/exit-codes.js'
import { grouped, paint } from '../../src/cli/format.js'
import { requestLine } from '../../src/cli/requests.js'
import { usage } from '../../src/cli/usage.js'
import { type FollowEnd, type RequestEntry, SandboxUnreachableError } from '../../src/client/index.js'
import { inertJson } from '../../src/domain/display.js'
import { KEPT_BYTES } from '../../src/inspector/request-entry.js'
import { FILTER_KEYS, FILTER_RULES, parseFilterItems } from '../../src/inspector/request-filter.js'
import { REQUEST_LOG_LIMITS } from '../../src/inspector/request-log.js'

/** How long `--follow` tries to open a cut stream again before it says the sandbox went away. */
const RECONNECT_WINDOW_MS = 5000
/** The wait between two tries. */
const RETRY_MS = 250
const MB = 1024 * 1024

export default class LogsTail extends ClientCommand {
  static override summary = 'Show the requests the sandbox answered, newest last; --follow prints them as they come'
  static override description = `The sandbox keeps the last ${grouped(REQUEST_LOG_LIMITS.capacity)} requests it answered (fewer when they would take more than ${REQUEST_LOG_LIMITS.maxBytes / MB} MB), in memory only (not in the data file): method, path, HTTP status, result or error, trackId, time taken, and for the spec and control API the first ${KEPT_BYTES.body / 1024} KB of the body. A text longer than it keeps (path or query over ${KEPT_BYTES.path} bytes, trackId over ${KEPT_BYTES.trackId} bytes, body over ${KEPT_BYTES.body} bytes) is shown cut, with its whole size.
--filter key=value (repeatable; all must match): ${FILTER_KEYS.map((k) => FILTER_RULES[k].example).join(', ')}. path matches the start of the path; status takes 404 or 4xx.
--json prints one JSON object per line (NDJSON), one per request: with --follow a stream of lines, unlike other commands' single document.
With --follow: when output is read slower than requests come, the sandbox waits for it; what its log let go meanwhile is reported ("skipped N requests while catching up" on stderr; with --json a line {"type":"skipped","from","to","requests"}) and following goes on. A cut stream is opened again where it stopped. Ctrl-C ends it (exit 0); when the sandbox stops gracefully it says so and exits 0; when the sandbox cannot be reached, or goes away without stopping and is not back within ${RECONNECT_WINDOW_MS / 1000} s, exit 3.`

  static override examples = [
    '<%= config.bin %> <%= command.id %>',
    '<%= config.bin %> <%= command.id %> --follow',
    '<%= config.bin %> <%= command.id %> -f --filter path=/api/v1/verify --filter result=203',
    '<%= config.bin %> <%= command.id %> --filter status=4xx --limit 100',
    '<%= config.bin %> <%= command.id %> -f --json --filter trackId=Xq2w7Zb1Vh0Kc9LmN3pR4s',
  ]

  static override flags = {
    follow: Flags.boolean({ char: 'f', description: 'keep printing requests as they are answered' }),
    filter: Flags.string({ description: `only requests matching key=value (${FILTER_KEYS.join(', ')}); repeatable`, multiple: true }),
    limit: Flags.integer({ description: 'how many of the latest requests to print first (0 with --follow: only new ones)', min: 0, max: 1000, default: 20 }),
  }

  /** One line per JSON value, here and for errors: the output is NDJSON. */
  override logJson(json: unknown): void {
    process.stdout.write(`${inertJson(JSON.stringify(json))}\n`)
  }

  async run(): Promise<void> {
    const { flags } = await this.parse(LogsTail)
    const parsed = parseFilterItems(flags.filter ?? [])
    if ('problem' in parsed) throw usage(parsed.problem)
    const filter = parsed.filter
    const client = this.client(flags.url)
    const stop = new AbortController()
    /** Writes to stdout; when it is full, a promise that settles once it has room (or the command is stopping). */
    const write = (text: string): void | Promise<void> => {
      if (stop.signal.aborted || process.stdout.write(text)) return
      return new Promise((resolve) => {
        const done = () => {
          process.stdout.off('drain', done)
          stop.signal.removeEventListener('abort', done)
          resolve()
        }
        process.stdout.once('drain', done)
        stop.signal.addEventListener('abort', done, { once: true })
      })
    }
    const print = (entry: RequestEntry) => write(`${this.jsonEnabled() ? inertJson(JSON.stringify(entry)) : requestLine(entry).text}\n`)
    // A closed pipe (`| head`) ends the command quietly, as Ctrl-C does.
    process.stdout.on('error', () => stop.abort())

    const first = await client.listRequests({ ...filter, limit: Math.max(1, flags.limit) })
    if (flags.limit > 0) first.requests.forEach(print)
    if (!flags.follow) {
      if (first.requests.length === 0 && !this.jsonEnabled()) process.stderr.write('No requests in the log yet.\n')
      return
    }

    const filtered = Object.keys(filter).length > 0
    const skipped = (from: number, to: number) => {
      if (stop.signal.aborted) return
      const requests = to - from + 1
      if (this.jsonEnabled()) return write(`${JSON.stringify({ type: 'skipped', from, to, requests })}\n`)
      const count = filtered ? `up to ${requests} matching requests` : `${requests} requests`
      const kept = `it keeps the last ${grouped(first.capacity)}${first.maxBytes ? `, at most ${Math.round(first.maxBytes / MB)} MB` : ''}`
      process.stderr.write(`${paint(chalk.yellow, `… skipped ${count} while catching up: the sandbox's log let them go before they could be shown (${kept})`).text}\n`)
    }

    const onSignal = () => stop.abort()
    process.once('SIGINT', onSignal)
    process.once('SIGTERM', onSignal)
    let after = first.latestSeq
    let ended: FollowEnd
    // When the stream was last lost (undefined while it is open): the sandbox has RECONNECT_WINDOW_MS to come back.
    let lostAt: number | undefined
    try {
      for (;;) {
        try {
          ended = await client.followRequests(
            { ...filter, after },
            (event) => {
              if (event.type === 'gap') return skipped(event.from, event.to)
              after = Math.max(after, event.entry.seq)
              return print(event.entry)
            },
            { signal: stop.signal, onOpen: () => (lostAt = undefined) },
          )
        } catch (error) {
          if (!(error instanceof SandboxUnreachableError)) throw error
          lostAt ??= Date.now()
          if (Date.now() - lostAt >= RECONNECT_WINDOW_MS) {
            this.fail(`the sandbox at ${client.url} went away without stopping gracefully (${error.reason}; tried again for ${RECONNECT_WINDOW_MS / 1000} s)`, ExitCode.unreachable, { code: 'unreachable' })
          }
          await sleep(RETRY_MS)
          continue
        }
        if (ended !== 'ended') break
        // The stream was cut: open it again after the last request shown.
        lostAt ??= Date.now()
        await sleep(RETRY_MS)
      }
    } finally {
      process.off('SIGINT', onSignal)
      process.off('SIGTERM', onSignal)
    }
    if (ended === 'stopped') process.stderr.write(`The sandbox at ${client.url} stopped.\n`)
  }
}
