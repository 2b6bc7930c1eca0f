import type { BotRecord, ChatRecord, FileRecord, Markup, MessageRecord } from '../domain/telegram-records.js'
import type { Applied, Store } from '../store/store.js'
import { BotMessages } from './bot-messages.js'
import { Bots } from './bots.js'
import { type ChatEvent, Described, EmulatorCore } from './core.js'
import { Customer, type PressResult } from './customer.js'
import { notFound } from './errors.js'
import { Files } from './files.js'
import { botUser, privateChat } from './messages.js'
import { Params } from './params.js'
import { Updates } from './updates.js'

export interface TelegramOptions {
  now?: () => Date
  /** Waits before each webhook retry; the last one repeats. Default 1 s, 2 s, 4 s … 60 s. */
  webhookRetryMs?: number[]
  /** Time a webhook has to answer. Default 10 s. */
  webhookTimeoutMs?: number
  /**
   * URL buttons may lead to loopback addresses and dot-less names, which Telegram refuses (`Wrong HTTP URL`):
   * for testing a bot's button to a local checkout page. Default off, as on Telegram.
   */
  allowLocalUrls?: boolean
}

const DEFAULT_RETRY_MS = [1_000, 2_000, 4_000, 8_000, 16_000, 32_000, 60_000]

type Handler = (bot: BotRecord, p: Params, signal: AbortSignal | undefined) => Promise<unknown>

/**
 * The Telegram Bot API emulator: bots known by token, private chats with simulated users, the updates queue
 * with long polling or a webhook, and the methods a payment bot needs. Every change is written to the store and
 * only then answered, shown on the chat page or handed to the bot. This class holds the table of Bot API
 * methods and what the chat page, the control API and the CLI ask of the emulator; the work is done in its parts.
 */
export class TelegramService {
  private readonly core: EmulatorCore
  private readonly bots: Bots
  private readonly updates: Updates
  private readonly files: Files
  private readonly customer: Customer
  private readonly handlers: Record<string, Handler>

  constructor(store: Store, options: TelegramOptions = {}) {
    const core = new EmulatorCore(store, options.now ?? (() => new Date()))
    const bots = new Bots(core)
    const updates = new Updates(
      core,
      {
        retryMs: options.webhookRetryMs?.length ? options.webhookRetryMs : DEFAULT_RETRY_MS,
        timeoutMs: options.webhookTimeoutMs ?? 10_000,
      },
      (botId, reply) => this.webhookReply(botId, reply),
    )
    const files = new Files(core)
    const messages = new BotMessages(core, files, { allowLocalUrls: options.allowLocalUrls === true })
    const customer = new Customer(core, updates)
    this.core = core
    this.bots = bots
    this.updates = updates
    this.files = files
    this.customer = customer
    store.onApplied((applied) => this.applied(applied))
    this.handlers = {
      getme: async (bot) => botUser(bot),
      logout: async () => true,
      close: async () => true,
      getupdates: (bot, p, signal) => updates.getUpdates(bot, p, signal),
      setwebhook: (bot, p) => updates.setWebhook(bot, p),
      deletewebhook: (bot, p) => updates.deleteWebhook(bot, p),
      getwebhookinfo: async (bot) => updates.webhookInfo(bot),
      sendmessage: (bot, p) => messages.sendMessage(bot, p),
      sendphoto: (bot, p) => messages.sendPhoto(bot, p),
      editmessagetext: (bot, p) => messages.editMessage(bot, p, 'text'),
      editmessagecaption: (bot, p) => messages.editMessage(bot, p, 'caption'),
      editmessagereplymarkup: (bot, p) => messages.editMessage(bot, p, 'markup'),
      deletemessage: (bot, p) => messages.deleteMessage(bot, p),
      answercallbackquery: async (bot, p) => customer.answerCallbackQuery(bot, p),
      sendchataction: async (bot, p) => messages.sendChatAction(bot, p),
      setmycommands: (bot, p) => bots.setCommands(bot, p),
      getmycommands: async (bot) => bot.commands ?? [],
      deletemycommands: (bot) => core.saveBot(bot.id, (b) => ({ ...b, commands: [] })).then(() => true),
      getchat: async (bot, p) => privateChat(core.requireChat(bot, p)),
      getfile: async (bot, p) => files.getFile(bot, p),
    }
  }

  /**
   * The store's change feed, whichever instance made the change: a chat's messages reach its page and followers, a
   * new update the bot's long poll or webhook, a webhook's change its sender.
   */
  private applied(applied: readonly Applied[]): void {
    for (const { change, before } of applied) {
      if (change.k !== 'tg') continue
      const c = change.v
      if (c.t === 'message') {
        const m = c.v
        this.core.emit(m.botId, m.chatId, { type: before === undefined ? 'message' : m.deleted ? 'delete' : 'edit', messageId: m.messageId })
      } else if (c.t === 'update') {
        this.updates.wake(c.v.botId)
      } else if (c.t === 'bot') {
        this.updates.webhookChanged(c.v.id, before as BotRecord | undefined, c.v)
      }
    }
  }

  // ── the Bot API ───────────────────────────────────────────────────────

  /** Runs a method for the bot with this token; throws BotApiError with Telegram's answer when it fails. */
  async call(token: string, method: string, params: Params, signal?: AbortSignal): Promise<{ result: unknown; description?: string }> {
    const bot = await this.authorize(token)
    const handler = this.handlers[method.toLowerCase()]
    if (!handler) throw notFound()
    const value = await handler(bot, params, signal)
    return value instanceof Described ? { result: value.result, description: value.description } : { result: value }
  }

  /** The bot behind a token, registered on first use; Telegram's 401 answers otherwise. */
  authorize(token: string): Promise<BotRecord> {
    return this.bots.authorize(token)
  }

  /** A method call in a webhook's answer is run like any other; Telegram reports nothing about it. */
  private async webhookReply(botId: number, reply: Record<string, unknown>): Promise<void> {
    const bot = this.core.store.telegram.getBot(botId)
    const { method, ...rest } = reply
    const handler = bot && typeof method === 'string' ? this.handlers[method.toLowerCase()] : undefined
    if (!bot || !handler || method === 'getUpdates') return
    await handler(bot, Params.fromJson(rest), undefined).catch(() => {})
  }

  // ── the customer's side: the chat page, the control API, the CLI ──────

  /** Registers a bot (or renames one already known by this token). */
  registerBot(input: { token: string; username?: string; firstName?: string }): Promise<BotRecord> {
    return this.bots.registerBot(input)
  }

  /** A bot by token, username (with or without @) or id. */
  findBot(ref: string): BotRecord {
    return this.bots.findBot(ref)
  }

  listBots(): BotRecord[] {
    return this.bots.listBots()
  }

  listChats(botId: number): ChatRecord[] {
    return this.core.store.telegram.listChats(botId)
  }

  messages(botId: number, chatId: number): MessageRecord[] {
    return this.core.store.telegram.listMessages(botId, chatId)
  }

  pendingUpdateCount(botId: number): number {
    return this.updates.pendingUpdateCount(botId)
  }

  file(fileId: string): FileRecord | undefined {
    return this.files.file(fileId)
  }

  /** A file by the path getFile gave, for `/telegram/file/bot<token>/<path>`. */
  fileByPath(botId: number, path: string): FileRecord | undefined {
    return this.files.fileByPath(botId, path)
  }

  /** The simulated user writes to the bot: the message is stored, then the bot gets its update. */
  sendAsUser(input: { bot: BotRecord; chatId?: number; text: string; firstName?: string }): Promise<MessageRecord> {
    return this.customer.sendAsUser(input)
  }

  /** The simulated user presses a button (see Customer.press). */
  press(input: { bot: BotRecord; chatId?: number; button: string; messageId?: number; waitMs?: number }): Promise<PressResult> {
    return this.customer.press(input)
  }

  /** The reply keyboard the user sees: the newest bot message that set or removed one. */
  currentKeyboard(botId: number, chatId: number): Markup | undefined {
    return this.customer.currentKeyboard(botId, chatId)
  }

  /** Listens to a chat's durable changes; returns the function that stops listening. */
  subscribe(botId: number, chatId: number, listener: (event: ChatEvent) => void): () => void {
    return this.core.subscribe(botId, chatId, listener)
  }

  /** This instance leads: webhook delivery of the updates saved (before a restart, or by another instance) resumes. */
  resume(): void {
    this.updates.resume()
  }

  /** Another instance leads now: it sends to webhooks. */
  standDown(): void {
    this.updates.standDown()
  }

  /** Ends long polls (with no updates) and webhook senders, so the server can close. */
  close(): void {
    this.updates.close()
  }
}
