import { Args, Flags } from '@oclif/core'
import { ClientCommand } from '../../../src/cli/base.js'
import { fields } from '../../../src/cli/format.js'
import type { ChatBot } from '../../../src/client/index.js'
import { ExitCode } from '../../../src/cli/exit-codes.js'
import { maskToken, parseToken, TOKEN_RULE } from '../../../src/telegram/token.js'

export default class ChatBotAdd extends ClientCommand {
  static override summary = 'Register a bot token with the Bot API emulator, with a username'
  static override description =
    'Any token of the form <bot id>:<secret> (a positive whole number, a colon, 1 to 100 letters, digits, "_" or "-") works without this; add one to give it a username its getMe answers, or to find it by name with --bot.'

  static override examples = [
    '<%= config.bin %> <%= command.id %> 123456789:AAE_example_secret_of_35_characters --username shop_bot',
    '<%= config.bin %> <%= command.id %> 123456:TEST-token --username test_shop_bot',
  ]

  static override args = { token: Args.string({ description: "the bot's token", required: true }) }
  static override flags = {
    username: Flags.string({ description: 'its username, ending in "bot"' }),
    name: Flags.string({ description: 'its display name (first_name in getMe)' }),
  }

  async run(): Promise<{ bot: ChatBot }> {
    const { args, flags } = await this.parse(ChatBotAdd)
    if (!parseToken(args.token)) this.fail(`token must be ${TOKEN_RULE} (got ${JSON.stringify(maskToken(args.token))})`, ExitCode.usage, { code: 'usage' })
    const bot = await this.client(flags.url).addBot({
      token: args.token,
      ...(flags.username !== undefined ? { username: flags.username } : {}),
      ...(flags.name !== undefined ? { firstName: flags.name } : {}),
    })
    this.log(fields([['id', bot.id], ['username', `@${bot.username}`], ['name', bot.firstName], ['token', maskToken(bot.token)]]))
    return { bot }
  }
}
