import { ClientCommand } from '../../src/cli/base.js'
import { table } from '../../src/cli/format.js'
import type { ChatBot } from '../../src/client/index.js'
import { maskToken } from '../../src/telegram/token.js'

export default class ChatBots extends ClientCommand {
  static override summary = 'List the bots that use the Bot API emulator'
  static override description =
    'A bot appears once it calls /telegram/bot<token>/… or is added with `pay chat bot add`. Tokens are shown as <id>:*** (--json has them whole).'

  static override examples = ['<%= config.bin %> <%= command.id %>', '<%= config.bin %> <%= command.id %> --json']

  async run(): Promise<{ bots: ChatBot[] }> {
    const { flags } = await this.parse(ChatBots)
    const bots = await this.client(flags.url).listBots()
    if (bots.length === 0) {
      this.log('No bots yet. Point a bot at <sandbox URL>/telegram, or add one with `pay chat bot add <token> --username <name>`.')
    } else {
      this.log(
        table(
          ['ID', 'USERNAME', 'TOKEN', 'MODE', 'PENDING', 'CHATS'],
          bots.map((b) => [b.id, `@${b.username}`, maskToken(b.token), b.webhook ? `webhook ${b.webhook.url}` : 'polling', b.pendingUpdates, b.chats.join(', ')]),
        ),
      )
    }
    return { bots }
  }
}
