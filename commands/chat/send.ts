import { Args } from '@oclif/core'
import { ClientCommand } from '../../src/cli/base.js'
import { chatFlags, messageLines } from '../../src/cli/chat.js'
import type { ChatMessage } from '../../src/client/index.js'

export default class ChatSend extends ClientCommand {
  static override summary = "Send a message to a bot as the sandbox's simulated customer"
  static override description =
    'The message is saved, shown on the chat page (/chat) and handed to the bot as a `message` update, by getUpdates or its webhook. A leading /command is marked as a bot_command, as Telegram does.'

  static override examples = [
    '<%= config.bin %> <%= command.id %> /buy',
    '<%= config.bin %> <%= command.id %> "/start promo" --bot @shop_bot --chat 42',
  ]

  static override args = { text: Args.string({ description: 'the text to send', required: true }) }
  static override flags = { ...chatFlags }

  async run(): Promise<{ bot: { id: number; username: string }; chat: number; message: ChatMessage }> {
    const { args, flags } = await this.parse(ChatSend)
    const sent = await this.client(flags.url).chatSend({ text: args.text, chat: flags.chat, ...(flags.bot !== undefined ? { bot: flags.bot } : {}) })
    this.log(messageLines(sent.message))
    return sent
  }
}
