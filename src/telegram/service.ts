import { randomBytes } from 'node:crypto'
import type { BotCommand, Message, Update } from '@grammyjs/types'
import { SandboxError } from '../domain/outcomes.js'
import type { BotRecord, ChatRecord, FileRecord, Markup, MessageRecord, TelegramChange } from '../domain/telegram-records.js'
import { KeyedLock } from '../service/locks.js'
import type { Store } from '../store/store.js'
import { formatText, MAX_CAPTION_LENGTH } from './entities.js'
import {
  BotApiError,
  badRequest,
  conflict,
  CONFLICT_OTHER_GET_UPDATES,
  CONFLICT_SET_WEBHOOK,
  CONFLICT_WEBHOOK_ACTIVE,
  notFound,
  unauthorized,
} from './errors.js'
import { sniffImage } from './images.js'
import { isInline, parseMarkup } from './markup.js'
import { allows, botUser, DEFAULT_CHAT_ID, privateChat, readAllowedUpdates, simulatedUser, toMessage, updateType } from './messages.js'
import { Params, type UploadedFile } from './params.js'
import { defaultUsername, parseToken, TOKEN_RULE, USERNAME } from './token.js'
import { postUpdate } from './webhook.js'

export interface TelegramOptions {
  now?: () => Date
  /** Waits before each webhook retry; the last one repeats. Default 1 s, 2 s, 4 s … 60 s. */
  webhookRetryMs?: number[]
  /** Time a webhook has to answer. Default 10 s. */
  webhookTimeoutMs?: number
}

/** What the chat page and `pay chat messages --follow` are told, once it is durable. */
export type ChatEvent =
  | { type: 'message' | 'edit' | 'delete'; messageId: number }
  | { type: 'action'; action: string }
  | { type: 'answer'; text?: string; showAlert: boolean; url?: string }

export type PressResult =
  | { kind: 'callback'; callbackQueryId: string; data: string; answer?: { text?: string; showAlert: boolean; url?: string } }
  | { kind: 'url'; url: string }
  | { kind: 'text'; message: MessageRecord }

interface Poll {
  offset: number
  limit: number
  answer: (updates: Update[]) => void
  fail: (error: BotApiError) => void
}

interface Hook {
  running: boolean
  generation: number
  lastErrorDate?: number
  lastErrorMessage?: string
  wakeUp?: () => void
}

interface CallbackQuery {
  botId: number
  chatId: number
  messageId: number
  at: number
  answered?: { text?: string; showAlert: boolean; url?: string }
  waiters: Array<() => void>
}

const DEFAULT_RETRY_MS = [1_000, 2_000, 4_000, 8_000, 16_000, 32_000, 60_000]
const LONG_POLL_MAX_S = 50
/** Telegram accepts answers to a callback query for a limited time. */
const CALLBACK_QUERY_TTL_MS = 15 * 60_000
/** Photos up to Telegram's 10 MB; all kept files together up to this, the oldest let go first. */
export const MAX_PHOTO_BYTES = 10 * 1024 * 1024
export const MAX_STORED_FILE_BYTES = 64 * 1024 * 1024
const CHAT_ACTIONS = new Set([
  'typing', 'upload_photo', 'record_video', 'upload_video', 'record_voice', 'upload_voice', 'upload_document',
  'choose_sticker', 'find_location', 'record_video_note', 'upload_video_note',
])
const chatKey = (botId: number, chatId: number): string => `${botId}:${chatId}`

type Handler = (bot: BotRecord, p: Params, signal: AbortSignal | undefined) => Promise<unknown>

/** A method's answer with Telegram's optional description (`Webhook was set`). */
class Described {
  constructor(
    readonly result: unknown,
    readonly description: string,
  ) {}
}

/**
 * The Telegram Bot API emulator: bots known by token, private chats with simulated users, the updates queue
 * with long polling or a webhook, and the methods a payment bot needs. Every change is written to the store and
 * only then answered, shown on the chat page or handed to the bot.
 */
export class TelegramService {
  private readonly store: Store
  private readonly now: () => Date
  private readonly retryMs: number[]
  private readonly webhookTimeoutMs: number
  private readonly locks = new KeyedLock()
  private readonly polls = new Map<number, Poll>()
  private readonly hooks = new Map<number, Hook>()
  private readonly callbacks = new Map<string, CallbackQuery>()
  private readonly listeners = new Map<string, Set<(event: ChatEvent) => void>>()
  /** Last ids handed out, ahead of the durable counters while writes are in flight. */
  private readonly updateIds = new Map<number, number>()
  private readonly messageIds = new Map<string, number>()
  private readonly handlers: Record<string, Handler>
  private closed = false

  constructor(store: Store, options: TelegramOptions = {}) {
    this.store = store
    this.now = options.now ?? (() => new Date())
    this.retryMs = options.webhookRetryMs?.length ? options.webhookRetryMs : DEFAULT_RETRY_MS
    this.webhookTimeoutMs = options.webhookTimeoutMs ?? 10_000
    this.handlers = {
      getme: async (bot) => botUser(bot),
      logout: async () => true,
      close: async () => true,
      getupdates: (bot, p, signal) => this.getUpdates(bot, p, signal),
      setwebhook: (bot, p) => this.setWebhook(bot, p),
      deletewebhook: (bot, p) => this.deleteWebhook(bot, p),
      getwebhookinfo: async (bot) => this.webhookInfo(bot),
      sendmessage: (bot, p) => this.sendMessage(bot, p),
      sendphoto: (bot, p) => this.sendPhoto(bot, p),
      editmessagetext: (bot, p) => this.editMessage(bot, p, 'text'),
      editmessagecaption: (bot, p) => this.editMessage(bot, p, 'caption'),
      editmessagereplymarkup: (bot, p) => this.editMessage(bot, p, 'markup'),
      deletemessage: (bot, p) => this.deleteMessage(bot, p),
      answercallbackquery: async (bot, p) => this.answerCallbackQuery(bot, p),
      sendchataction: async (bot, p) => this.sendChatAction(bot, p),
      setmycommands: (bot, p) => this.setCommands(bot, p),
      getmycommands: async (bot) => bot.commands ?? [],
      deletemycommands: (bot) => this.saveBot(bot.id, (b) => ({ ...b, commands: [] })).then(() => true),
      getchat: async (bot, p) => privateChat(this.requireChat(bot, p)),
      getfile: async (bot, p) => this.getFile(bot, p),
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
  async authorize(token: string): Promise<BotRecord> {
    const parsed = parseToken(token)
    if (!parsed) throw unauthorized(`invalid token specified; the sandbox takes any token of the form ${TOKEN_RULE}`)
    const known = this.store.telegram.getBot(parsed.id)
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
    return this.locks.run(`bot:${parsed.id}`, async () => {
      const known = this.store.telegram.getBot(parsed.id)
      if (known && known.token !== input.token) {
        throw new SandboxError('conflict', `bot ${parsed.id} is already registered with another token`)
      }
      const username = input.username ?? known?.username ?? defaultUsername(parsed.id)
      const other = this.store.telegram.listBots().find((b) => b.id !== parsed.id && b.username.toLowerCase() === username.toLowerCase())
      if (other) throw new SandboxError('conflict', `username ${username} belongs to bot ${other.id}`)
      if (known && input.username === undefined && input.firstName === undefined) return known
      const bot: BotRecord = {
        ...(known ?? { id: parsed.id, token: input.token, createdAt: this.stamp(), lastUpdateId: 0 }),
        username,
        firstName: input.firstName ?? known?.firstName ?? `Sandbox bot ${parsed.id}`,
      }
      await this.store.putTelegram({ t: 'bot', v: bot })
      return this.store.telegram.getBot(parsed.id)!
    })
  }

  // ── updates: long polling and webhooks ────────────────────────────────

  private async getUpdates(bot: BotRecord, p: Params, signal: AbortSignal | undefined): Promise<Update[]> {
    if (bot.webhook) throw conflict(CONFLICT_WEBHOOK_ACTIVE)
    const offset = p.clampedInt('offset', 0, -(2 ** 31), 2 ** 31 - 1)
    const limit = p.clampedInt('limit', 100, 1, 100)
    const timeout = p.clampedInt('timeout', 0, 0, LONG_POLL_MAX_S)
    const allowed = readAllowedUpdates(p.json('allowed_updates', 'allowed updates'))
    if (allowed !== undefined && JSON.stringify(allowed) !== JSON.stringify(bot.allowedUpdates ?? [])) {
      await this.saveBot(bot.id, (b) => ({ ...b, allowedUpdates: allowed }))
    }
    const first = await this.confirm(bot.id, offset)
    const ready = this.store.telegram.pendingUpdates(bot.id).filter((u) => u.update.update_id >= first)
    if (ready.length > 0 || timeout === 0 || this.closed) return ready.slice(0, limit).map((u) => u.update)
    // A newer long poll replaces the one waiting: that one is told it was terminated, as on Telegram.
    this.polls.get(bot.id)?.fail(conflict(CONFLICT_OTHER_GET_UPDATES))
    return new Promise<Update[]>((resolve, reject) => {
      const finish = () => {
        clearTimeout(timer)
        signal?.removeEventListener('abort', aborted)
        if (this.polls.get(bot.id) === poll) this.polls.delete(bot.id)
      }
      const poll: Poll = {
        offset: first,
        limit,
        answer: (updates) => {
          finish()
          resolve(updates)
        },
        fail: (error) => {
          finish()
          reject(error)
        },
      }
      const timer = setTimeout(() => poll.answer([]), timeout * 1000)
      const aborted = () => poll.answer([])
      signal?.addEventListener('abort', aborted)
      this.polls.set(bot.id, poll)
    })
  }

  /** Drops the updates an offset confirms; returns the first update_id still wanted. */
  private async confirm(botId: number, offset: number): Promise<number> {
    const pending = this.store.telegram.pendingUpdates(botId)
    let below = offset
    if (offset < 0) {
      const keep = pending.at(offset)
      below = keep ? keep.update.update_id : 0
    }
    if (below > 0 && pending.some((u) => u.update.update_id < below)) {
      await this.store.putTelegram({ t: 'confirm', botId, below })
    }
    return Math.max(below, 0)
  }

  /** Tells the bot a durable update is waiting: answers its long poll or wakes its webhook sender. */
  private wake(botId: number): void {
    const bot = this.store.telegram.getBot(botId)
    if (bot?.webhook) return this.kickWebhook(botId)
    const poll = this.polls.get(botId)
    if (!poll) return
    const ready = this.store.telegram.pendingUpdates(botId).filter((u) => u.update.update_id >= poll.offset)
    if (ready.length > 0) poll.answer(ready.slice(0, poll.limit).map((u) => u.update))
  }

  private async setWebhook(bot: BotRecord, p: Params): Promise<Described> {
    const url = p.string('url')
    if (url === '') return this.deleteWebhook(bot, p)
    let parsed: URL | undefined
    try {
      parsed = new URL(url)
    } catch {
      parsed = undefined
    }
    if (!parsed || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')) throw badRequest('invalid webhook URL specified')
    const secretToken = p.string('secret_token')
    if (secretToken.length > 256) throw badRequest('secret token is too long')
    if (!/^[A-Za-z0-9_-]*$/.test(secretToken)) throw badRequest('secret token contains unallowed characters')
    const maxConnections = p.clampedInt('max_connections', 40, 1, 100)
    const allowed = readAllowedUpdates(p.json('allowed_updates', 'allowed updates'))
    const drop = p.bool('drop_pending_updates')
    const same =
      bot.webhook?.url === url && (bot.webhook.secretToken ?? '') === secretToken && bot.webhook.maxConnections === maxConnections
    if (same && !drop && allowed === undefined) return new Described(true, 'Webhook is already set')
    this.polls.get(bot.id)?.fail(conflict(CONFLICT_SET_WEBHOOK))
    const changes: Array<Promise<void>> = []
    if (drop) changes.push(this.store.putTelegram({ t: 'drop', botId: bot.id }))
    changes.push(
      this.saveBot(bot.id, (b) => ({
        ...b,
        webhook: { url, maxConnections, setAt: this.stamp(), ...(secretToken ? { secretToken } : {}) },
        ...(allowed !== undefined ? { allowedUpdates: allowed } : {}),
      })),
    )
    await Promise.all(changes)
    this.hook(bot.id).generation++
    this.kickWebhook(bot.id)
    return new Described(true, same ? 'Webhook is already set' : 'Webhook was set')
  }

  private async deleteWebhook(bot: BotRecord, p: Params): Promise<Described> {
    const drop = p.bool('drop_pending_updates')
    if (!bot.webhook && !drop) return new Described(true, 'Webhook is already deleted')
    const changes: Array<Promise<void>> = []
    if (drop) changes.push(this.store.putTelegram({ t: 'drop', botId: bot.id }))
    if (bot.webhook) changes.push(this.saveBot(bot.id, ({ webhook: _gone, ...b }) => b))
    await Promise.all(changes)
    const hook = this.hook(bot.id)
    hook.generation++
    hook.wakeUp?.()
    return new Described(true, bot.webhook ? 'Webhook was deleted' : 'Webhook is already deleted')
  }

  private webhookInfo(bot: BotRecord): Record<string, unknown> {
    const hook = this.hooks.get(bot.id)
    const info: Record<string, unknown> = {
      url: bot.webhook?.url ?? '',
      has_custom_certificate: false,
      pending_update_count: this.store.telegram.pendingUpdates(bot.id).length,
    }
    if (bot.webhook) {
      info.max_connections = bot.webhook.maxConnections
      if (hook?.lastErrorDate !== undefined) {
        info.last_error_date = hook.lastErrorDate
        info.last_error_message = hook.lastErrorMessage
      }
    }
    if (bot.allowedUpdates?.length) info.allowed_updates = bot.allowedUpdates
    return info
  }

  private hook(botId: number): Hook {
    let hook = this.hooks.get(botId)
    if (!hook) this.hooks.set(botId, (hook = { running: false, generation: 0 }))
    return hook
  }

  /**
   * Sends the bot's pending updates to its webhook, oldest first, one at a time; an update is confirmed when the
   * webhook answers 2xx and retried on a growing pause otherwise, as long as the webhook stays set.
   */
  private kickWebhook(botId: number): void {
    const hook = this.hook(botId)
    if (hook.running || this.closed) {
      hook.wakeUp?.()
      return
    }
    hook.running = true
    void (async () => {
      let failures = 0
      try {
        while (!this.closed) {
          const bot = this.store.telegram.getBot(botId)
          const next = bot?.webhook ? this.store.telegram.pendingUpdates(botId)[0] : undefined
          if (!bot?.webhook || !next) return
          const generation = hook.generation
          const result = await postUpdate(bot.webhook.url, next.update, bot.webhook.secretToken, this.webhookTimeoutMs)
          if (hook.generation !== generation) continue
          if (result.ok) {
            failures = 0
            await this.store.putTelegram({ t: 'confirm', botId, below: next.update.update_id + 1 }).catch(() => this.pause(hook, 1000))
            if (result.reply) await this.webhookReply(botId, result.reply)
          } else {
            hook.lastErrorDate = Math.floor(this.now().getTime() / 1000)
            hook.lastErrorMessage = result.error
            await this.pause(hook, this.retryMs[Math.min(failures, this.retryMs.length - 1)]!)
            failures++
          }
        }
      } finally {
        hook.running = false
      }
    })()
  }

  private pause(hook: Hook, ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms)
      timer.unref()
      function done() {
        clearTimeout(timer)
        hook.wakeUp = undefined
        resolve()
      }
      hook.wakeUp = done
    })
  }

  /** A method call in a webhook's answer is run like any other; Telegram reports nothing about it. */
  private async webhookReply(botId: number, reply: Record<string, unknown>): Promise<void> {
    const bot = this.store.telegram.getBot(botId)
    const { method, ...rest } = reply
    const handler = bot && typeof method === 'string' ? this.handlers[method.toLowerCase()] : undefined
    if (!bot || !handler || method === 'getUpdates') return
    await handler(bot, Params.fromJson(rest), undefined).catch(() => {})
  }

  // ── messages from the bot ─────────────────────────────────────────────

  private requireChat(bot: BotRecord, p: Params): ChatRecord {
    const raw = p.string('chat_id').trim()
    if (raw === '') throw badRequest('chat_id is empty')
    const chat = /^-?\d{1,16}$/.test(raw) ? this.store.telegram.getChat(bot.id, Number(raw)) : undefined
    if (!chat) throw badRequest('chat not found')
    return chat
  }

  private markup(p: Params): Markup | undefined {
    return parseMarkup(p.json('reply_markup', 'reply keyboard markup'))
  }

  private async sendMessage(bot: BotRecord, p: Params): Promise<Message> {
    const chat = this.requireChat(bot, p)
    const raw = p.string('text')
    if (raw === '') throw badRequest('Message text is empty')
    const formatted = formatText(raw, { parseMode: p.string('parse_mode'), entities: p.json('entities', 'message entities') })
    const replyMarkup = this.markup(p)
    return this.postFromBot(bot, chat, {
      text: formatted.text,
      ...(formatted.entities.length ? { entities: formatted.entities } : {}),
      ...(replyMarkup ? { replyMarkup } : {}),
    })
  }

  private async sendPhoto(bot: BotRecord, p: Params): Promise<Message> {
    const chat = this.requireChat(bot, p)
    const caption = p.string('caption')
    const formatted = caption === '' ? undefined : formatText(caption, {
      parseMode: p.string('parse_mode'),
      entities: p.json('caption_entities', 'caption entities'),
      maxLength: MAX_CAPTION_LENGTH,
      what: 'caption',
    })
    const replyMarkup = this.markup(p)
    const file = await this.photoFile(bot, p)
    return this.postFromBot(bot, chat, {
      photo: [{ file_id: file.fileId, file_unique_id: file.fileUniqueId, width: file.width, height: file.height, file_size: file.size }],
      ...(formatted ? { caption: formatted.text, ...(formatted.entities.length ? { captionEntities: formatted.entities } : {}) } : {}),
      ...(replyMarkup ? { replyMarkup } : {}),
    })
  }

  /** The photo of a sendPhoto: an upload, a file_id sent before, or an HTTP URL the emulator fetches. */
  private async photoFile(bot: BotRecord, p: Params): Promise<FileRecord> {
    const upload = p.file('photo')
    if (upload) return this.storeFile(bot, upload.data)
    const ref = p.string('photo').trim()
    if (ref === '') throw badRequest('there is no photo in the request')
    const known = this.store.telegram.getFile(ref)
    if (known) return known
    if (!/^https?:\/\//i.test(ref)) throw badRequest('wrong file identifier/HTTP URL specified')
    let data: Buffer
    try {
      const res = await fetch(ref, { signal: AbortSignal.timeout(10_000), redirect: 'follow' })
      if (!res.ok || !res.body) throw new Error(`HTTP ${res.status}`)
      const chunks: Buffer[] = []
      let size = 0
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        size += chunk.length
        if (size > MAX_PHOTO_BYTES) throw new Error('too big')
        chunks.push(Buffer.from(chunk))
      }
      data = Buffer.concat(chunks)
    } catch {
      throw badRequest('failed to get HTTP URL content')
    }
    return this.storeFile(bot, data)
  }

  private async storeFile(bot: BotRecord, data: Buffer): Promise<FileRecord> {
    if (data.length > MAX_PHOTO_BYTES) throw new BotApiError(413, 'Request Entity Too Large')
    const image = sniffImage(data)
    if (!image) throw badRequest('IMAGE_PROCESS_FAILED')
    const file: FileRecord = {
      fileId: `AgAC${randomBytes(24).toString('base64url')}`,
      fileUniqueId: `AQAD${randomBytes(9).toString('base64url')}`,
      botId: bot.id,
      mimeType: image.mimeType,
      size: data.length,
      width: image.width,
      height: image.height,
      data: data.toString('base64'),
      createdAt: this.stamp(),
    }
    // Within the bound on kept bytes: the oldest files go first (their messages then show no picture).
    const writes: Array<Promise<void>> = []
    let total = this.store.telegram.fileBytes() + data.length
    for (const old of this.store.telegram.listFiles()) {
      if (total <= MAX_STORED_FILE_BYTES) break
      writes.push(this.store.putTelegram({ t: 'unfile', fileId: old.fileId }))
      total -= old.size
    }
    writes.push(this.store.putTelegram({ t: 'file', v: file }))
    await Promise.all(writes)
    return file
  }

  private getFile(bot: BotRecord, p: Params): Record<string, unknown> {
    const id = p.string('file_id')
    if (id === '') throw badRequest('file_id not specified')
    const file = this.store.telegram.getFile(id)
    if (!file || file.botId !== bot.id) throw badRequest('wrong file_id or the file is temporarily unavailable')
    const extension = file.mimeType.split('/')[1] === 'jpeg' ? 'jpg' : file.mimeType.split('/')[1]
    return { file_id: file.fileId, file_unique_id: file.fileUniqueId, file_size: file.size, file_path: `photos/${file.fileUniqueId}.${extension}` }
  }

  /** A file by the path getFile gave, for `/telegram/file/bot<token>/<path>`. */
  fileByPath(botId: number, path: string): FileRecord | undefined {
    const unique = /^photos\/([A-Za-z0-9_-]+)\.[a-z]+$/.exec(path)?.[1]
    return unique === undefined ? undefined : this.store.telegram.listFiles().find((f) => f.botId === botId && f.fileUniqueId === unique)
  }

  private postFromBot(bot: BotRecord, chat: ChatRecord, content: Partial<MessageRecord>): Promise<Message> {
    return this.locks.run(`chat:${chatKey(bot.id, chat.chatId)}`, async () => {
      const record: MessageRecord = {
        botId: bot.id,
        chatId: chat.chatId,
        messageId: this.nextMessageId(chat),
        from: 'bot',
        date: this.unixNow(),
        ...content,
      }
      await this.store.putTelegram({ t: 'message', v: record })
      this.emit(bot.id, chat.chatId, { type: 'message', messageId: record.messageId })
      return toMessage(bot, this.store.telegram.getChat(bot.id, chat.chatId) ?? chat, record)
    })
  }

  private async editMessage(bot: BotRecord, p: Params, what: 'text' | 'caption' | 'markup'): Promise<Message> {
    if (p.string('inline_message_id') !== '' && p.string('chat_id') === '') throw badRequest('MESSAGE_ID_INVALID')
    const chat = this.requireChat(bot, p)
    const messageId = p.messageId()
    return this.locks.run(`chat:${chatKey(bot.id, chat.chatId)}`, async () => {
      const message = messageId === 0 ? undefined : this.store.telegram.getMessage(bot.id, chat.chatId, messageId)
      if (!message || message.deleted) throw badRequest('message to edit not found')
      if (message.from !== 'bot') throw badRequest("message can't be edited")
      const markup = this.markup(p)
      const next: MessageRecord = { ...message, editDate: this.unixNow() }
      if (isInline(markup)) next.replyMarkup = markup
      else if (isInline(message.replyMarkup)) delete next.replyMarkup
      if (what === 'text') {
        if (message.text === undefined) throw badRequest('there is no text in the message to edit')
        const raw = p.string('text')
        if (raw === '') throw badRequest('Message text is empty')
        const f = formatText(raw, { parseMode: p.string('parse_mode'), entities: p.json('entities', 'message entities') })
        next.text = f.text
        if (f.entities.length) next.entities = f.entities
        else delete next.entities
      } else if (what === 'caption') {
        if (message.photo === undefined) throw badRequest('there is no caption in the message to edit')
        const raw = p.string('caption')
        const f = raw === '' ? undefined : formatText(raw, { parseMode: p.string('parse_mode'), entities: p.json('caption_entities', 'caption entities'), maxLength: MAX_CAPTION_LENGTH, what: 'caption' })
        delete next.caption
        delete next.captionEntities
        if (f) Object.assign(next, { caption: f.text, ...(f.entities.length ? { captionEntities: f.entities } : {}) })
      }
      const same = (a: MessageRecord) => JSON.stringify([a.text, a.entities, a.caption, a.captionEntities, a.replyMarkup])
      if (same(next) === same(message)) {
        throw badRequest(
          'message is not modified: specified new message content and reply markup are exactly the same as a current content and reply markup of the message',
        )
      }
      await this.store.putTelegram({ t: 'message', v: next })
      this.emit(bot.id, chat.chatId, { type: 'edit', messageId })
      return toMessage(bot, chat, next)
    })
  }

  private async deleteMessage(bot: BotRecord, p: Params): Promise<boolean> {
    if (p.string('chat_id') === '') throw badRequest('Chat identifier is not specified')
    const messageId = p.messageId()
    if (messageId === 0) throw badRequest('Message identifier is not specified')
    const chat = this.requireChat(bot, p)
    return this.locks.run(`chat:${chatKey(bot.id, chat.chatId)}`, async () => {
      const message = this.store.telegram.getMessage(bot.id, chat.chatId, messageId)
      if (!message || message.deleted) throw badRequest('message to delete not found')
      await this.store.putTelegram({ t: 'message', v: { botId: bot.id, chatId: chat.chatId, messageId, from: message.from, date: message.date, deleted: true } })
      this.emit(bot.id, chat.chatId, { type: 'delete', messageId })
      return true
    })
  }

  private answerCallbackQuery(bot: BotRecord, p: Params): boolean {
    const id = p.string('callback_query_id')
    const query = this.callbacks.get(id)
    const now = this.now().getTime()
    if (!query || query.botId !== bot.id || query.answered || now - query.at > CALLBACK_QUERY_TTL_MS) {
      throw badRequest('query is too old and response timeout expired or query ID is invalid')
    }
    const text = p.string('text')
    if (text.length > 200) throw badRequest('MESSAGE_TOO_LONG')
    const url = p.string('url')
    query.answered = { showAlert: p.bool('show_alert'), ...(text ? { text } : {}), ...(url ? { url } : {}) }
    for (const wake of query.waiters.splice(0)) wake()
    this.emit(bot.id, query.chatId, { type: 'answer', ...query.answered })
    return true
  }

  private sendChatAction(bot: BotRecord, p: Params): boolean {
    const action = p.string('action')
    if (!CHAT_ACTIONS.has(action)) throw badRequest('Wrong parameter action in request')
    const chat = this.requireChat(bot, p)
    this.emit(bot.id, chat.chatId, { type: 'action', action })
    return true
  }

  private async setCommands(bot: BotRecord, p: Params): Promise<boolean> {
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
    await this.saveBot(bot.id, (b) => ({ ...b, commands }))
    return true
  }

  // ── the customer's side: the chat page, the control API, the CLI ──────

  /** A bot by token, username (with or without @) or id. */
  findBot(ref: string): BotRecord {
    const bots = this.store.telegram.listBots()
    const name = ref.replace(/^@/, '').toLowerCase()
    const bot = bots.find((b) => b.token === ref || String(b.id) === ref || b.username.toLowerCase() === name)
    if (bot) return bot
    const shown = bots.length === 0 ? 'none yet: a bot appears once it calls the Bot API, or with `pay chat bot add`' : bots.map((b) => `@${b.username}`).join(', ')
    throw new SandboxError('notFound', `no bot ${ref.includes(':') ? ref.slice(0, ref.indexOf(':')) + ':***' : JSON.stringify(ref)}; bots: ${shown}`)
  }

  listBots(): BotRecord[] {
    return this.store.telegram.listBots()
  }

  listChats(botId: number): ChatRecord[] {
    return this.store.telegram.listChats(botId)
  }

  messages(botId: number, chatId: number): MessageRecord[] {
    return this.store.telegram.listMessages(botId, chatId)
  }

  pendingUpdateCount(botId: number): number {
    return this.store.telegram.pendingUpdates(botId).length
  }

  file(fileId: string): FileRecord | undefined {
    return this.store.telegram.getFile(fileId)
  }

  /** The simulated user writes to the bot: the message is stored, then the bot gets its update. */
  sendAsUser(input: { bot: BotRecord; chatId?: number; text: string; firstName?: string }): Promise<MessageRecord> {
    const chatId = input.chatId ?? DEFAULT_CHAT_ID
    if (!Number.isSafeInteger(chatId) || chatId <= 0) throw new SandboxError('invalidField', `chat must be a positive whole number (got ${chatId})`)
    const text = input.text
    if (text.trim() === '') throw new SandboxError('invalidField', 'text must not be empty')
    if (text.length > 4096) throw new SandboxError('invalidField', `text is ${text.length} characters; Telegram allows 4096`)
    const { bot } = input
    return this.locks.run(`chat:${chatKey(bot.id, chatId)}`, async () => {
      const writes: Array<Promise<void>> = []
      let chat = this.store.telegram.getChat(bot.id, chatId)
      if (!chat) {
        chat = { botId: bot.id, chatId, user: simulatedUser(chatId, input.firstName ? { firstName: input.firstName } : {}), createdAt: this.stamp(), lastMessageId: 0 }
        writes.push(this.store.putTelegram({ t: 'chat', v: chat }))
      }
      const formatted = formatText(text)
      const record: MessageRecord = {
        botId: bot.id,
        chatId,
        messageId: this.nextMessageId(chat),
        from: 'user',
        date: this.unixNow(),
        text: formatted.text,
        ...(formatted.entities.length ? { entities: formatted.entities } : {}),
      }
      writes.push(this.store.putTelegram({ t: 'message', v: record }))
      const update = this.enqueue(bot, { message: toMessage(bot, chat, record) } as Omit<Update, 'update_id'>)
      if (update) writes.push(update)
      await Promise.all(writes)
      this.emit(bot.id, chatId, { type: 'message', messageId: record.messageId })
      this.wake(bot.id)
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
    const chat = this.store.telegram.getChat(bot.id, chatId)
    if (!chat) throw new SandboxError('notFound', `no chat ${chatId} with @${bot.username}; send it a message first`)
    const messages = this.store.telegram.listMessages(bot.id, chatId).filter((m) => m.from === 'bot')
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
    const messages = this.store.telegram.listMessages(botId, chatId)
    for (let i = messages.length - 1; i >= 0; i--) {
      const markup = messages[i]!.replyMarkup
      if (markup && ('keyboard' in markup || 'remove_keyboard' in markup)) return 'keyboard' in markup ? markup : undefined
    }
    return undefined
  }

  private async callbackQuery(bot: BotRecord, chat: ChatRecord, message: MessageRecord, data: string, waitMs: number): Promise<PressResult> {
    const id = `${bot.id}${randomBytes(8).readBigUInt64BE() % 10n ** 12n}`
    const query: CallbackQuery = { botId: bot.id, chatId: chat.chatId, messageId: message.messageId, at: this.now().getTime(), waiters: [] }
    this.callbacks.set(id, query)
    this.forgetOldCallbacks()
    const update = this.enqueue(bot, {
      callback_query: {
        id,
        from: chat.user,
        message: toMessage(bot, chat, message),
        chat_instance: String(BigInt(bot.id) * 1000003n + BigInt(chat.chatId)),
        data,
      },
    } as Omit<Update, 'update_id'>)
    if (update) await update
    this.wake(bot.id)
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

  private forgetOldCallbacks(): void {
    const now = this.now().getTime()
    for (const [id, q] of this.callbacks) if (now - q.at > CALLBACK_QUERY_TTL_MS) this.callbacks.delete(id)
  }

  /** Listens to a chat's durable changes; returns the function that stops listening. */
  subscribe(botId: number, chatId: number, listener: (event: ChatEvent) => void): () => void {
    const key = chatKey(botId, chatId)
    let set = this.listeners.get(key)
    if (!set) this.listeners.set(key, (set = new Set()))
    set.add(listener)
    return () => {
      set.delete(listener)
      if (set.size === 0) this.listeners.delete(key)
    }
  }

  /** Resumes webhook delivery of updates saved before a restart. */
  resume(): void {
    for (const bot of this.store.telegram.listBots()) if (bot.webhook) this.kickWebhook(bot.id)
  }

  /** Ends long polls (with no updates) and webhook senders, so the server can close. */
  close(): void {
    this.closed = true
    for (const poll of [...this.polls.values()]) poll.answer([])
    for (const hook of this.hooks.values()) hook.wakeUp?.()
  }

  // ── helpers ───────────────────────────────────────────────────────────

  private emit(botId: number, chatId: number, event: ChatEvent): void {
    for (const listener of this.listeners.get(chatKey(botId, chatId)) ?? []) listener(event)
  }

  /** Writes an update for the bot, unless it asked not to get this type; resolves once durable. */
  private enqueue(bot: BotRecord, body: Omit<Update, 'update_id'>): Promise<void> | undefined {
    if (!allows(bot.allowedUpdates, updateType(body as Update))) return undefined
    const id = Math.max(this.updateIds.get(bot.id) ?? 0, this.store.telegram.getBot(bot.id)?.lastUpdateId ?? 0) + 1
    this.updateIds.set(bot.id, id)
    return this.store.putTelegram({ t: 'update', v: { botId: bot.id, update: { update_id: id, ...body } as Update } })
  }

  private nextMessageId(chat: ChatRecord): number {
    const key = chatKey(chat.botId, chat.chatId)
    const durable = this.store.telegram.getChat(chat.botId, chat.chatId)?.lastMessageId ?? 0
    const id = Math.max(this.messageIds.get(key) ?? 0, durable, chat.lastMessageId) + 1
    this.messageIds.set(key, id)
    return id
  }

  /** Read-modify-write of a bot record, one at a time, from the durable record. */
  private saveBot(botId: number, change: (bot: BotRecord) => BotRecord): Promise<void> {
    return this.locks.run(`bot:${botId}`, async () => {
      const bot = this.store.telegram.getBot(botId)
      if (bot) await this.store.putTelegram({ t: 'bot', v: change(bot) })
    })
  }

  private stamp(): string {
    return this.now().toISOString()
  }

  private unixNow(): number {
    return Math.floor(this.now().getTime() / 1000)
  }
}

export type { TelegramChange, UploadedFile }
