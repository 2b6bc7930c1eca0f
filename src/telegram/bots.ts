import type { BotCommand } from '@grammyjs/types'
import { SandboxError } from '../domain/outcomes.js'
import type { BotRecord } from '../domain/telegram-records.js'
import type { EmulatorCore } from './core.js'
import { badRequest, unauthorized } from './errors.js'
import type { Params } from './params.js'
import { defaultUsername, parseToken, TOKEN_RULE, USERNAME } from './token.js'

/** The bots the emulator knows: registered by token on first use or by name, found by token, @username or id. */
export class Bots {
  constructor(private readonly core: EmulatorCore) {}

  /** The bot behind a token, registered on first use; Telegram's 401 answers otherwise. */
  async authorize(token: string): Promise<BotRecord> {
    const parsed = parseToken(token)
    if (!parsed) throw unauthorized(`invalid token specified; the sandbox takes any token of the form ${TOKEN_RULE}`)
    const known = this.core.store.telegram.getBot(parsed.id)
    if (known) {
      if (known.token !== token) {
        throw unauthorized(`bot ${parsed.id} is known to the sandbox by another token (the first one it was used with); use that token, or another bot id`)
      }
      return known
    }
    return this.registerBot({ token })
  }

  /** Registers a bot (or renames one already known by this token). */
  registerBot(input: { token: string; username?: string; firstName?: string }): Promise<BotRecord> {
    const parsed = parseToken(input.token)
    if (!parsed) {
      throw new SandboxError('invalidField', `token must be ${TOKEN_RULE}`)
    }
    if (input.username !== undefined && !USERNAME.test(input.username)) {
      throw new SandboxError('invalidField', `username must be 5 to 32 letters, digits or "_", start with a letter and end in "bot" (got ${JSON.stringify(input.username)})`)
    }
    return this.core.underBot(parsed.id, async () => {
      const known = this.core.store.telegram.getBot(parsed.id)
      if (known && known.token !== input.token) {
        throw new SandboxError('conflict', `bot ${parsed.id} is already registered with another token`)
      }
      const username = input.username ?? known?.username ?? defaultUsername(parsed.id)
      const other = this.core.store.telegram.listBots().find((b) => b.id !== parsed.id && b.username.toLowerCase() === username.toLowerCase())
      if (other) throw new SandboxError('conflict', `username ${username} belongs to bot ${other.id}`)
      if (known && input.username === undefined && input.firstName === undefined) return known
      const bot: BotRecord = {
        ...(known ?? { id: parsed.id, token: input.token, createdAt: this.core.stamp(), lastUpdateId: 0 }),
        username,
        firstName: input.firstName ?? known?.firstName ?? `Sandbox bot ${parsed.id}`,
      }
      await this.core.store.putTelegram({ t: 'bot', v: bot })
      return this.core.store.telegram.getBot(parsed.id)!
    })
  }

  /** The bot's setMyCommands. */
  async setCommands(bot: BotRecord, p: Params): Promise<boolean> {
    const value = p.json('commands', 'bot commands')
    if (!Array.isArray(value)) throw badRequest('Expected an Array of BotCommand')
    if (value.length > 100) throw badRequest('too many commands specified')
    const commands: BotCommand[] = value.map((c) => {
      const o = (typeof c === 'object' && c !== null ? c : {}) as Record<string, unknown>
      const command = typeof o.command === 'string' ? o.command.replace(/^\//, '') : ''
      const description = typeof o.description === 'string' ? o.description : ''
      if (!/^[a-z0-9_]{1,32}$/.test(command)) throw badRequest('BOT_COMMAND_INVALID')
      if (description.trim() === '' || description.length > 256) throw badRequest('BOT_COMMAND_DESCRIPTION_INVALID')
      return { command, description }
    })
    await this.core.saveBot(bot.id, (b) => ({ ...b, commands }))
    return true
  }

  /** A bot by token, username (with or without @) or id. */
  findBot(ref: string): BotRecord {
    const bots = this.core.store.telegram.listBots()
    const name = ref.replace(/^@/, '').toLowerCase()
    const bot = bots.find((b) => b.token === ref || String(b.id) === ref || b.username.toLowerCase() === name)
    if (bot) return bot
    const shown = bots.length === 0 ? 'none yet: a bot appears once it calls the Bot API, or with `pay chat bot add`' : bots.map((b) => `@${b.username}`).join(', ')
    throw new SandboxError('notFound', `no bot ${ref.includes(':') ? ref.slice(0, ref.indexOf(':')) + ':***' : JSON.stringify(ref)}; bots: ${shown}`)
  }

  listBots(): BotRecord[] {
    return this.core.store.telegram.listBots()
  }
}
