import { Args, Flags } from '@oclif/core'
import chalk from 'chalk'
import { ClientCommand } from '../../src/cli/base.js'
import { replayLine } from '../../src/cli/deliveries.js'
import { durationFlag } from '../../src/cli/duration.js'
import { ExitCode } from '../../src/cli/exit-codes.js'
import { paint } from '../../src/cli/format.js'
import { trackIdFrom } from '../../src/cli/track-id.js'
import { usage } from '../../src/cli/usage.js'
import { MAX_TIMEOUT_MS } from '../../src/callbacks/schedule.js'
import type { Delivery } from '../../src/client/index.js'
import { brief } from '../../src/domain/brief.js'
import { shownDelivery } from '../../src/domain/display.js'

export default class CallbackReplay extends ClientCommand {
  static override summary = 'Send a recorded callback again, to its URL or another'
  static override description = `Sends the same JSON body once more (one attempt, no retries) and records it as a new delivery with replayOf set. The argument is a delivery id, or a trackId (or checkout URL) meaning that payment's latest delivery. Through the sandbox, a replay waits as long as the sandbox's --callback-timeout.
With --file, the deliveries come from a file written by \`pay callback list --json\` and this command sends them itself, in file order, with the sandbox's sending code: no sandbox needs to run (so --url is refused). --to is required then, so a file never sends to the URLs inside it; --timeout applies only then. An argument picks deliveries from the file by delivery id or trackId.
Exits 8 when a replay was not delivered (connection refused, timeout or a non-2xx answer).`

  static override examples = [
    '<%= config.bin %> <%= command.id %> dlv_3cosjY6QVuE1',
    '<%= config.bin %> <%= command.id %> Xq2w7Zb1Vh0Kc9LmN3pR4s --to http://localhost:3000/callback',
    '<%= config.bin %> <%= command.id %> --file deliveries.json --to http://localhost:3000/callback',
    '<%= config.bin %> <%= command.id %> dlv_3cosjY6QVuE1 --file deliveries.json --to http://localhost:3000/callback --timeout 10s',
  ]

  static override args = {
    ref: Args.string({
      description: 'delivery id, or trackId (or checkout URL) for its latest delivery (with --file: a filter)',
      ignoreStdin: true,
      parse: async (input) => trackIdFrom(input, 'the ref argument'),
    }),
  }

  static override flags = {
    to: Flags.string({ description: 'send to this URL instead of the recorded one (required with --file)' }),
    file: Flags.string({ description: 'replay deliveries from this export (pay callback list --json) without a sandbox' }),
    timeout: Flags.string({ description: 'with --file: time allowed per delivery, from 1ms to 1m, e.g. 500ms, 5s (a bare number is seconds) [default: 5s]' }),
  }

  async run(): Promise<{ deliveries: Delivery[] }> {
    const { args, flags } = await this.parse(CallbackReplay)
    if (flags.to !== undefined) this.checkTo(flags.to)
    const timeoutMs = durationFlag('timeout', flags.timeout ?? '5s', { min: 1, max: MAX_TIMEOUT_MS })
    if (flags.file === undefined && flags.timeout !== undefined) {
      this.refuseTogether('timeout', "applies only with --file; a replay through the sandbox waits as long as the sandbox's --callback-timeout")
    }
    if (flags.file !== undefined && this.typedFlag('url')) {
      this.refuseTogether('url', 'does nothing with --file: the deliveries in the file are sent by this command, without a sandbox')
    }
    const sent = flags.file !== undefined ? await this.fromFile(flags.file, flags.to, timeoutMs, args.ref) : await this.viaSandbox(flags.url, args.ref, flags.to)
    const deliveries = sent.map(shownDelivery)
    const failed = deliveries.filter((d) => d.state !== 'delivered').length
    if (failed > 0) {
      const what = deliveries.length === 1 ? 'the replay was not delivered' : `${failed} of ${deliveries.length} replays were not delivered`
      this.failWithResult(what, ExitCode.callbackFailed)
    }
    return { deliveries }
  }

  private checkTo(to: string): void {
    let url: URL | undefined
    try {
      url = new URL(to)
    } catch {
      url = undefined
    }
    if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
      throw usage(`--to must be an absolute http or https URL, e.g. http://localhost:3000/callback (got ${brief(to)})`)
    }
  }

  private async viaSandbox(url: string, ref: string | undefined, to: string | undefined): Promise<Delivery[]> {
    if (ref === undefined) {
      throw usage('missing the delivery id or trackId to replay (or --file <export.json> --to <url>)', {
        suggestions: ['pay callback list shows delivery ids'],
      })
    }
    const delivery = await this.client(url).replayDelivery(ref, to !== undefined ? { to } : {})
    this.log(replayLine(delivery))
    this.log(paint(chalk.dim, `  recorded as ${delivery.id}`))
    return [delivery]
  }

  private async fromFile(file: string, to: string | undefined, timeoutMs: number, ref: string | undefined): Promise<Delivery[]> {
    const { readDeliveryExport, replayExport, ExportFileError } = await import('../../src/callbacks/export.js')
    if (to === undefined) {
      throw usage('--to is required with --file: replays from a file go to a URL you choose, never to the URLs in the file', {
        suggestions: ['e.g. --to http://localhost:3000/callback'],
      })
    }
    let exported
    try {
      exported = await readDeliveryExport(file)
    } catch (error) {
      if (error instanceof ExportFileError) throw usage(error.message)
      throw error
    }
    if (ref !== undefined) {
      exported = exported.filter((d) => d.id === ref || d.trackId === ref)
      if (exported.length === 0) throw usage(`${file}: no delivery with id or trackId ${ref}`)
    }
    return replayExport(exported, { to, timeoutMs, onResult: (d) => this.log(replayLine(d)) })
  }
}
