import { ClientCommand } from '../src/cli/base.js'
import { trackIdArg } from '../src/cli/track-id.js'

export default class Open extends ClientCommand {
  static override summary = "Open a payment's checkout page in the browser (prints the URL when no browser can be opened)"
  static override examples = [
    '<%= config.bin %> <%= command.id %> Xq2w7Zb1Vh0Kc9LmN3pR4s',
    '<%= config.bin %> <%= command.id %> http://127.0.0.1:8787/pay/Xq2w7Zb1Vh0Kc9LmN3pR4s',
    '<%= config.bin %> <%= command.id %> Xq2w7Zb1Vh0Kc9LmN3pR4s --json',
  ]

  static override args = {
    trackId: trackIdArg(),
  }

  async run(): Promise<{ url: string; opened: boolean }> {
    const { args, flags } = await this.parse(Open)
    const client = this.client(flags.url)
    // An unknown trackId is reported here rather than as a 404 page in the browser.
    const { payment } = await client.getPayment(args.trackId)
    const url = await client.checkoutUrlOf(payment.trackId)
    const { openInBrowser } = await import('../src/cli/browser.js')
    const opened = await openInBrowser(url, (line) => this.logToStderr(line))
    this.log(url)
    return { url, opened }
  }
}
