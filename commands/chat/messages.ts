import { Flags } from '@oclif/core'
import { ClientCommand } from '../../src/cli/base.js'
import { chatFlags, messageLines } from '../../src/cli/chat.js'
import { sleep } from '../../src/cli/detach.js'
import { durationFlag } from '../../src/cli/duration.js'
import { ExitCode } from '../../src/cli/exit-codes.js'
import type { ChatMessage } from '../../src/client/index.js'

export default class ChatMessages extends ClientCommand {
  static override summary = 'Show the messages of a chat with a bot, oldest first'
  static override description = `With --follow, keeps printing new messages as the sandbox saves them; --until <regex> stops at the first bot message since the customer's last message whose text matches (exit 0; one that came before the command started counts), and --timeout gives up (exit 6 when --until was not met).
--json prints one JSON document when the command ends: {"messages": [...]} (with --until, also "matched").`

  static override examples = [
    '<%= config.bin %> <%= command.id %>',
    '<%= config.bin %> <%= command.id %> --follow',
    '<%= config.bin %> <%= command.id %> --follow --until "Payment received" --timeout 30s --json',
  ]

  static override flags = {
    ...chatFlags,
    limit: Flags.integer({ description: 'only the newest N', min: 1 }),
    follow: Flags.boolean({ char: 'f', description: 'keep printing new messages' }),
    until: Flags.string({ description: 'with --follow: stop at the first bot message since the customer\'s last one that matches this regular expression', dependsOn: ['follow'] }),
    timeout: Flags.string({ description: 'with --follow: stop after this long (e.g. 30s, 2m)', dependsOn: ['follow'] }),
    interval: Flags.string({ description: 'with --follow: how often to look', default: '250ms' }),
  }

  async run(): Promise<{ messages: ChatMessage[]; matched?: ChatMessage }> {
    const { flags } = await this.parse(ChatMessages)
    let pattern: RegExp | undefined
    if (flags.until !== undefined) {
      try {
        pattern = new RegExp(flags.until)
      } catch (error) {
        this.fail(`--until is not a regular expression: ${(error as Error).message}`, ExitCode.usage, { code: 'usage' })
      }
    }
    const deadline = flags.timeout !== undefined ? Date.now() + durationFlag('timeout', flags.timeout) : Infinity
    const intervalMs = Math.max(20, durationFlag('interval', flags.interval))
    const client = this.client(flags.url)
    const ref = { chat: flags.chat, ...(flags.bot !== undefined ? { bot: flags.bot } : {}) }
    const first = await client.chatMessages({ ...ref, ...(flags.limit !== undefined ? { limit: flags.limit } : {}) })
    const messages = [...first.messages]
    const show = (m: ChatMessage) => {
      if (!this.jsonEnabled()) this.log(messageLines(m))
    }
    messages.forEach(show)
    // A reply that came before this command started counts: the bot's messages since the customer's last one.
    const matches = (m: ChatMessage) => pattern !== undefined && m.from === 'bot' && pattern.test(m.text ?? m.caption ?? '')
    const lastCustomer = messages.findLastIndex((m) => m.from === 'user')
    const early = flags.follow ? messages.slice(lastCustomer + 1).find(matches) : undefined
    if (early) return { messages: [], matched: early }
    if (!flags.follow) {
      if (messages.length === 0) this.log(`No messages in chat ${first.chat} with @${first.bot.username} yet.`)
      return { messages }
    }
    let last = messages.at(-1)?.messageId ?? 0
    const seen: ChatMessage[] = []
    while (Date.now() < deadline) {
      await sleep(Math.min(intervalMs, Math.max(0, deadline - Date.now())))
      const next = await client.chatMessages({ ...ref, after: last })
      for (const m of next.messages) {
        last = Math.max(last, m.messageId)
        seen.push(m)
        show(m)
        if (matches(m)) return { messages: seen, matched: m }
      }
    }
    if (pattern) {
      this.fail(`no bot message matching /${flags.until}/ within ${flags.timeout}`, ExitCode.expectationFailed, { code: 'timeout' })
    }
    return { messages: seen }
  }
}
