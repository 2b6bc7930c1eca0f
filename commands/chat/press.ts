import { Args, Flags } from '@oclif/core'
import { ClientCommand } from '../../src/cli/base.js'
import { chatFlags, messageLines } from '../../src/cli/chat.js'
import { durationFlag } from '../../src/cli/duration.js'
import { line } from '../../src/cli/format.js'
import type { ChatPress } from '../../src/client/index.js'

export default class ChatPress_ extends ClientCommand {
  static override summary = 'Press a button of a bot message, by its text'
  static override description = `A callback button becomes a callback_query update for the bot; the command waits up to --wait for the bot's answerCallbackQuery and prints its text. A URL button prints its URL (open it in a browser). A reply-keyboard button sends its text.
Without --message, the newest bot message with such a button is used.`

  static override examples = [
    '<%= config.bin %> <%= command.id %> "Check payment"',
    '<%= config.bin %> <%= command.id %> Pay --message 4 --json',
  ]

  static override args = { button: Args.string({ description: 'the text on the button', required: true }) }
  static override flags = {
    ...chatFlags,
    message: Flags.integer({ description: 'the message id of the button', min: 1 }),
    wait: Flags.string({ description: "how long to wait for the bot's answer to a callback button (up to 10s)", default: '3s' }),
  }

  async run(): Promise<ChatPress> {
    const { args, flags } = await this.parse(ChatPress_)
    const wait = Math.min(10_000, durationFlag('wait', flags.wait))
    const result = await this.client(flags.url).chatPress({
      button: args.button,
      chat: flags.chat,
      wait,
      ...(flags.bot !== undefined ? { bot: flags.bot } : {}),
      ...(flags.message !== undefined ? { messageId: flags.message } : {}),
    })
    if (result.kind === 'url') this.log(line`${result.url}`)
    else if (result.kind === 'text') this.log(messageLines(result.message))
    else if (result.answer) this.log(line`Bot answered: ${result.answer.text ?? '(no text)'}${result.answer.showAlert ? ' (alert)' : ''}`)
    else this.log(line`Pressed "${args.button}" (callback data ${result.data}); the bot did not answer within ${flags.wait}`)
    return result
  }
}
