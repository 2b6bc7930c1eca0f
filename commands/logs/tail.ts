import { Flags } from '@oclif/core'
import chalk from 'chalk'
import { ClientCommand } from '../../src/cli/base.js'
import { sleep } from '../../src/cli/detach.js'
import { ExitCode } from '../../src/cli/exit-codes.js'
import { paint } from '../../src/cli/format.js'
import { requestLine } from '../../src/cli/requests.js'
import { usage } from '../../src/cli/usage.js'
import { type FollowEnd, type RequestEntry, SandboxUnreachableError } from '../../src/client/index.js'
import { inertJson } from '../../src/domain/display.js'
import { FILTER_KEYS, FILTER_RULES, parseFilterItems } from '../../src/inspector/request-filter.js'

export default class LogsTail extends ClientCommand {
  static override summary = 'Show the requests the sandbox answered, newest last; --follow prints them as they come'
  static override description = `The sandbox keeps the last 1,000 requests it answered, in memory only (not in the data file): method, path, HTTP status, result or error, trackId, time taken, and for the spec and control API the first 2 KB of the body.
--filter key=value (repeatable; all must match): ${FILTER_KEYS.map((k) => FILTER_RULES[k].example).join(', ')}. path matches the start of the path; status takes 404 or 4xx.
--json prints one JSON object per line (NDJSON), one per request: with --follow a stream of lines, unlike other commands' single document.
With --follow: Ctrl-C ends it (exit 0); when the sandbox stops gracefully it says so and exits 0; when the sandbox cannot be reached, or goes away without stopping, exit 3.`

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
    const print = (entry: RequestEntry) => {
      if (stop.signal.aborted) return
      if (this.jsonEnabled()) process.stdout.write(`${inertJson(JSON.stringify(entry))}\n`)
      else process.stdout.write(`${requestLine(entry).text}\n`)
    }
    // A closed pipe (`| head`) ends the command quietly, as Ctrl-C does.
    process.stdout.on('error', () => stop.abort())

    const first = await client.listRequests({ ...filter, limit: Math.max(1, flags.limit) })
    if (flags.limit > 0) first.requests.forEach(print)
    if (!flags.follow) {
      if (first.requests.length === 0 && !this.jsonEnabled()) process.stderr.write('No requests in the log yet.\n')
      return
    }

    const onSignal = () => stop.abort()
    process.once('SIGINT', onSignal)
    process.once('SIGTERM', onSignal)
    let after = first.latestSeq
    let ended: FollowEnd
    try {
      for (;;) {
        try {
          ended = await client.followRequests({ ...filter, after }, (event) => {
            if (event.type === 'request') {
              after = Math.max(after, event.entry.seq)
              print(event.entry)
            } else if (!stop.signal.aborted) {
              const missed = event.to - event.from + 1
              process.stderr.write(`${paint(chalk.yellow, `… ${missed} requests were let go before they could be shown (the log keeps the last ${first.capacity})`).text}\n`)
            }
          }, stop.signal)
        } catch (error) {
          if (error instanceof SandboxUnreachableError) {
            this.fail(`the sandbox at ${client.url} went away without stopping gracefully (${error.reason})`, ExitCode.unreachable, { code: 'unreachable' })
          }
          throw error
        }
        if (ended !== 'ended') break
        // The stream broke (a reader that fell behind is dropped, or the sandbox died): try again from the last one shown.
        await sleep(200)
      }
    } finally {
      process.off('SIGINT', onSignal)
      process.off('SIGTERM', onSignal)
    }
    if (ended === 'stopped') process.stderr.write(`The sandbox at ${client.url} stopped.\n`)
  }
}
