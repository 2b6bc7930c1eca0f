import { ClientCommand } from '../src/cli/base.js'

export default class Dashboard extends ClientCommand {
  static override summary = "Open the sandbox's inspector in the browser: payments, requests and callbacks as they happen (prints the URL when no browser can be opened)"
  static override examples = ['<%= config.bin %> <%= command.id %>', '<%= config.bin %> <%= command.id %> --url http://127.0.0.1:9000']

  async run(): Promise<{ url: string; opened: boolean }> {
    const { flags } = await this.parse(Dashboard)
    const client = this.client(flags.url)
    await client.health()
    const url = `${client.url}/`
    const { openInBrowser } = await import('../src/cli/browser.js')
    const opened = await openInBrowser(url, (line) => this.logToStderr(line))
    this.log(url)
    return { url, opened }
  }
}
