import type {
  BotRecord,
  ChatRecord,
  FileRecord,
  MessageRecord,
  TelegramChange,
  TelegramImage,
  UpdateRecord,
} from '../domain/telegram-records.js'

/** Reads of the Bot API emulator's records; the Store answers them from the durable state only. */
export interface TelegramReader {
  getBot(id: number): BotRecord | undefined
  listBots(): BotRecord[]
  getChat(botId: number, chatId: number): ChatRecord | undefined
  listChats(botId: number): ChatRecord[]
  /** A chat's messages, oldest first, deleted ones left out. */
  listMessages(botId: number, chatId: number): MessageRecord[]
  getMessage(botId: number, chatId: number, messageId: number): MessageRecord | undefined
  /** The bot's updates not yet confirmed, in update_id order. */
  pendingUpdates(botId: number): UpdateRecord[]
  getFile(fileId: string): FileRecord | undefined
  /** Bytes of stored files, for the bound on what uploads keep. */
  fileBytes(): number
  listFiles(): FileRecord[]
}

const chatKey = (botId: number, chatId: number): string => `${botId}:${chatId}`

/**
 * The emulator's records in memory. Like State, records are replaced, never changed in place. Counters (a bot's
 * last update_id, a chat's last message_id) move forward with every record applied, so they survive
 * confirmations, resets and snapshots.
 */
export class TelegramState implements TelegramReader {
  private readonly bots = new Map<number, BotRecord>()
  private readonly chats = new Map<string, ChatRecord>()
  /** Messages by chat, in message_id order. */
  private readonly messages = new Map<string, Map<number, MessageRecord>>()
  private readonly updates = new Map<number, UpdateRecord[]>()
  private readonly files = new Map<string, FileRecord>()
  private bytes = 0

  getBot(id: number): BotRecord | undefined {
    return this.bots.get(id)
  }

  listBots(): BotRecord[] {
    return [...this.bots.values()]
  }

  getChat(botId: number, chatId: number): ChatRecord | undefined {
    return this.chats.get(chatKey(botId, chatId))
  }

  listChats(botId: number): ChatRecord[] {
    return [...this.chats.values()].filter((c) => c.botId === botId)
  }

  listMessages(botId: number, chatId: number): MessageRecord[] {
    return [...(this.messages.get(chatKey(botId, chatId))?.values() ?? [])].filter((m) => !m.deleted)
  }

  getMessage(botId: number, chatId: number, messageId: number): MessageRecord | undefined {
    return this.messages.get(chatKey(botId, chatId))?.get(messageId)
  }

  pendingUpdates(botId: number): UpdateRecord[] {
    return this.updates.get(botId) ?? []
  }

  getFile(fileId: string): FileRecord | undefined {
    return this.files.get(fileId)
  }

  fileBytes(): number {
    return this.bytes
  }

  listFiles(): FileRecord[] {
    return [...this.files.values()]
  }

  counts(): { bots: number; chats: number; messages: number } {
    let messages = 0
    for (const chat of this.messages.values()) messages += chat.size
    return { bots: this.bots.size, chats: this.chats.size, messages }
  }

  get size(): number {
    let n = this.bots.size + this.chats.size + this.files.size
    for (const chat of this.messages.values()) n += chat.size
    for (const list of this.updates.values()) n += list.length
    return n
  }

  image(): TelegramImage {
    return {
      tgBots: this.listBots(),
      tgChats: [...this.chats.values()],
      tgMessages: [...this.messages.values()].flatMap((m) => [...m.values()]),
      tgUpdates: [...this.updates.values()].flat(),
      tgFiles: this.listFiles(),
    }
  }

  load(image: Partial<TelegramImage>): void {
    for (const b of image.tgBots ?? []) this.apply({ t: 'bot', v: b })
    for (const c of image.tgChats ?? []) this.apply({ t: 'chat', v: c })
    for (const m of image.tgMessages ?? []) this.apply({ t: 'message', v: m })
    for (const u of image.tgUpdates ?? []) this.apply({ t: 'update', v: u })
    for (const f of image.tgFiles ?? []) this.apply({ t: 'file', v: f })
  }

  /** Conversations, updates and files cleared; bots (tokens, names, webhooks, counters) kept. */
  clearActivity(): void {
    this.chats.clear()
    this.messages.clear()
    this.updates.clear()
    this.files.clear()
    this.bytes = 0
  }

  apply(change: TelegramChange): void {
    switch (change.t) {
      case 'bot': {
        const before = this.bots.get(change.v.id)
        this.bots.set(change.v.id, { ...change.v, lastUpdateId: Math.max(change.v.lastUpdateId, before?.lastUpdateId ?? 0) })
        return
      }
      case 'chat': {
        const key = chatKey(change.v.botId, change.v.chatId)
        const before = this.chats.get(key)
        this.chats.set(key, { ...change.v, lastMessageId: Math.max(change.v.lastMessageId, before?.lastMessageId ?? 0) })
        return
      }
      case 'message': {
        const m = change.v
        const key = chatKey(m.botId, m.chatId)
        let chat = this.messages.get(key)
        if (!chat) this.messages.set(key, (chat = new Map()))
        chat.set(m.messageId, m)
        const owner = this.chats.get(key)
        if (owner && owner.lastMessageId < m.messageId) this.chats.set(key, { ...owner, lastMessageId: m.messageId })
        return
      }
      case 'update': {
        const list = this.updates.get(change.v.botId) ?? []
        const id = change.v.update.update_id
        if (!list.some((u) => u.update.update_id === id)) {
          list.push(change.v)
          list.sort((a, b) => a.update.update_id - b.update.update_id)
        }
        this.updates.set(change.v.botId, list)
        this.raiseUpdateId(change.v.botId, id)
        return
      }
      case 'confirm': {
        const list = this.updates.get(change.botId)
        if (list) this.updates.set(change.botId, list.filter((u) => u.update.update_id >= change.below))
        this.raiseUpdateId(change.botId, change.below - 1)
        return
      }
      case 'drop':
        this.updates.delete(change.botId)
        return
      case 'file': {
        const before = this.files.get(change.v.fileId)
        if (before) this.bytes -= before.size
        this.files.set(change.v.fileId, change.v)
        this.bytes += change.v.size
        return
      }
      case 'unfile': {
        const before = this.files.get(change.fileId)
        if (before) this.bytes -= before.size
        this.files.delete(change.fileId)
      }
    }
  }

  private raiseUpdateId(botId: number, id: number): void {
    const bot = this.bots.get(botId)
    if (bot && bot.lastUpdateId < id) this.bots.set(botId, { ...bot, lastUpdateId: id })
  }
}
