import { randomBytes } from 'node:crypto'
import type { Update } from '@grammyjs/types'
import { SandboxError } from '../domain/outcomes.js'
import type { BotRecord, ChatRecord, Markup, MessageRecord } from '../domain/telegram-records.js'
import type { Change, SharedEntries } from '../store/store.js'
import { SharedListReader } from '../store/shared-reader.js'
import type { EmulatorCore } from './core.js'
import { formatText } from './entities.js'
import { badRequest } from './errors.js'
import { isInline } from './markup.js'
import { DEFAULT_CHAT_ID, simulatedUser, toMessage } from './messages.js'
import type { Params } from './params.js'
import type { Updates } from './updates.js'

/** The simulated customer's side: what the user writes and presses, and the callback queries a press opens. */

export type PressResult =
  | { kind: 'callback'; callbackQueryId: string; data: string; answer?: { text?: string; showAlert: boolean; url?: string } }
  | { kind: 'url'; url: string }
  | { kind: 'text'; message: MessageRecord }

interface CallbackQuery {
  botId: number
  chatId: number
  messageId: number
  at: number
  answered?: { text?: string; showAlert: boolean; url?: string }
  waiters: Array<() => void>
}

/** Telegram accepts answers to a callback query for a limited time. */
const CALLBACK_QUERY_TTL_MS = 15 * 60_000

/** What instances of a team sandbox tell each other of callback queries: a press, and the bot's answer. */
type QueryNews =
  | { t: 'query'; id: string; botId: number; chatId: number; messageId: number; at: number }
  | { t: 'answer'; id: string; answered: NonNullable<CallbackQuery['answered']> }

/** Presses and answers the instances keep telling each other (queries live 15 minutes; far fewer come in that time). */
const QUERY_NEWS_KEEP = 10_000

export class Customer {
  private readonly callbacks = new Map<string, CallbackQuery>()
  /**
   * In a team sandbox, callback queries are told to the other instances (like the data file's sandbox keeps them in
   * memory only, they are not part of the state): the bot may answer through any instance.
   */
  private readonly news: SharedEntries | undefined
  private readonly newsReader: SharedListReader | undefined

  constructor(
    private readonly core: EmulatorCore,
    private readonly updates: Updates,
  ) {
    this.news = core.store.sharedEntries('callback-queries', QUERY_NEWS_KEEP)
    // Unreadable news, or the database is away: an answer to a query not heard of says it is unknown.
    this.newsReader = this.news && new SharedListReader(this.news, QUERY_NEWS_KEEP, (row) => this.heard(JSON.parse(row.text) as QueryNews), () => {})
    this.news?.onAppended(() => void this.readNews())
  }

  /** Takes in what other instances told of callback queries since the last read. */
  private readNews(): Promise<void> {
    return this.newsReader?.read() ?? Promise.resolve()
  }

  private heard(news: QueryNews): void {
    if (news.t === 'query') {
      if (!this.callbacks.has(news.id)) this.callbacks.set(news.id, { botId: news.botId, chatId: news.chatId, messageId: news.messageId, at: news.at, waiters: [] })
      return
    }
    const query = this.callbacks.get(news.id)
    if (!query || query.answered) return
    this.answered(query, news.answered)
  }

  /** A query is answered: the press waiting for it goes on, and the chat shows the answer. */
  private answered(query: CallbackQuery, answer: NonNullable<CallbackQuery['answered']>): void {
    query.answered = answer
    for (const wake of query.waiters.splice(0)) wake()
    this.core.emit(query.botId, query.chatId, { type: 'answer', ...answer })
  }

  /** The simulated user writes to the bot: the message is stored, then the bot gets its update. */
  sendAsUser(input: { bot: BotRecord; chatId?: number; text: string; firstName?: string }): Promise<MessageRecord> {
    const chatId = input.chatId ?? DEFAULT_CHAT_ID
    if (!Number.isSafeInteger(chatId) || chatId <= 0) throw new SandboxError('invalidField', `chat must be a positive whole number (got ${chatId})`)
    const text = input.text
    if (text.trim() === '') throw new SandboxError('invalidField', 'text must not be empty')
    if (text.length > 4096) throw new SandboxError('invalidField', `text is ${text.length} characters; Telegram allows 4096`)
    const { bot } = input
    return this.core.underChat(bot.id, chatId, async () => {
      const unit: Change[] = []
      let chat = this.core.store.telegram.getChat(bot.id, chatId)
      if (!chat) {
        chat = { botId: bot.id, chatId, user: simulatedUser(chatId, input.firstName ? { firstName: input.firstName } : {}), createdAt: this.core.stamp(), lastMessageId: 0 }
        unit.push({ k: 'tg', v: { t: 'chat', v: chat } })
      }
      const formatted = formatText(text)
      const record: MessageRecord = {
        botId: bot.id,
        chatId,
        messageId: this.core.nextMessageId(chat),
        from: 'user',
        date: this.core.unixNow(),
        text: formatted.text,
        ...(formatted.entities.length ? { entities: formatted.entities } : {}),
      }
      unit.push({ k: 'tg', v: { t: 'message', v: record } })
      const update = this.updates.enqueue(bot, { message: toMessage(bot, chat, record) } as Omit<Update, 'update_id'>)
      if (update) unit.push(update)
      // The chat page hears of the message, and the bot of its update, from the store's change feed.
      await this.core.store.commit(unit)
      return record
    })
  }

  /**
   * The simulated user presses a button: an inline callback button becomes a callback_query update (waiting up
   * to `waitMs` for the bot's answer), a URL button gives its URL, a reply-keyboard button sends its text.
   * `button` is the button's text; `messageId` picks the message (default: the newest with that button).
   */
  async press(input: { bot: BotRecord; chatId?: number; button: string; messageId?: number; waitMs?: number }): Promise<PressResult> {
    const chatId = input.chatId ?? DEFAULT_CHAT_ID
    const { bot } = input
    const chat = this.core.store.telegram.getChat(bot.id, chatId)
    if (!chat) throw new SandboxError('notFound', `no chat ${chatId} with @${bot.username}; send it a message first`)
    const messages = this.core.store.telegram.listMessages(bot.id, chatId).filter((m) => m.from === 'bot')
    const candidates = input.messageId === undefined ? messages.reverse() : messages.filter((m) => m.messageId === input.messageId)
    for (const message of candidates) {
      const markup = message.replyMarkup
      if (!markup) continue
      if (isInline(markup)) {
        const button = markup.inline_keyboard.flat().find((b) => b.text === input.button)
        if (!button) continue
        if ('url' in button && button.url) return { kind: 'url', url: button.url }
        if ('callback_data' in button && button.callback_data !== undefined) {
          return this.callbackQuery(bot, chat, message, button.callback_data, input.waitMs ?? 0)
        }
        throw new SandboxError('invalidField', `button "${input.button}" is a kind the sandbox does not emulate (only url and callback_data)`)
      }
      if ('keyboard' in markup && input.messageId === undefined && markup === this.currentKeyboard(bot.id, chatId)) {
        if (markup.keyboard.flat().some((b) => (typeof b === 'string' ? b : b.text) === input.button)) {
          return { kind: 'text', message: await this.sendAsUser({ bot, chatId, text: input.button }) }
        }
      }
    }
    throw new SandboxError('notFound', `no button "${input.button}" in ${input.messageId === undefined ? `chat ${chatId}` : `message ${input.messageId}`}`)
  }

  /** The reply keyboard the user sees: the newest bot message that set or removed one. */
  currentKeyboard(botId: number, chatId: number): Markup | undefined {
    const messages = this.core.store.telegram.listMessages(botId, chatId)
    for (let i = messages.length - 1; i >= 0; i--) {
      const markup = messages[i]!.replyMarkup
      if (markup && ('keyboard' in markup || 'remove_keyboard' in markup)) return 'keyboard' in markup ? markup : undefined
    }
    return undefined
  }

  /** A callback_query update for the bot; waits up to `waitMs` (at most 10 s) for its answer. */
  private async callbackQuery(bot: BotRecord, chat: ChatRecord, message: MessageRecord, data: string, waitMs: number): Promise<PressResult> {
    const id = `${bot.id}${randomBytes(8).readBigUInt64BE() % 10n ** 12n}`
    const query: CallbackQuery = { botId: bot.id, chatId: chat.chatId, messageId: message.messageId, at: this.core.now().getTime(), waiters: [] }
    this.callbacks.set(id, query)
    this.forgetOldCallbacks()
    // Told before the bot hears of it: it may answer through another instance.
    if (this.news) {
      const told: QueryNews = { t: 'query', id, botId: query.botId, chatId: query.chatId, messageId: query.messageId, at: query.at }
      await this.news.append([JSON.stringify(told)])
    }
    await this.core.store.retrying(async () => {
      const update = this.updates.enqueue(bot, {
        callback_query: {
          id,
          from: chat.user,
          message: toMessage(bot, chat, message),
          chat_instance: String(BigInt(bot.id) * 1000003n + BigInt(chat.chatId)),
          data,
        },
      } as Omit<Update, 'update_id'>)
      if (update) await this.core.store.commit([update])
    })
    if (waitMs > 0 && !query.answered) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.min(waitMs, 10_000))
        query.waiters.push(() => {
          clearTimeout(timer)
          resolve()
        })
      })
    }
    return { kind: 'callback', callbackQueryId: id, data, ...(query.answered ? { answer: query.answered } : {}) }
  }

  /** The bot's answerCallbackQuery: the answer is shown to the user and handed to a press waiting for it. */
  async answerCallbackQuery(bot: BotRecord, p: Params): Promise<boolean> {
    const id = p.string('callback_query_id')
    // Pressed through another instance: told since the last read.
    if (!this.callbacks.has(id)) await this.readNews()
    const query = this.callbacks.get(id)
    const now = this.core.now().getTime()
    if (!query || query.botId !== bot.id || query.answered || now - query.at > CALLBACK_QUERY_TTL_MS) {
      throw badRequest('query is too old and response timeout expired or query ID is invalid')
    }
    const text = p.string('text')
    if (text.length > 200) throw badRequest('MESSAGE_TOO_LONG')
    const url = p.string('url')
    const answer = { showAlert: p.bool('show_alert'), ...(text ? { text } : {}), ...(url ? { url } : {}) }
    this.answered(query, answer)
    if (this.news) {
      const told: QueryNews = { t: 'answer', id, answered: answer }
      await this.news.append([JSON.stringify(told)])
    }
    return true
  }

  private forgetOldCallbacks(): void {
    const now = this.core.now().getTime()
    for (const [id, q] of this.callbacks) if (now - q.at > CALLBACK_QUERY_TTL_MS) this.callbacks.delete(id)
  }
}
