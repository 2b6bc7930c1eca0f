import type { BotRecord, ChatRecord } from '../domain/telegram-records.js'
import { KeyedLock } from '../service/locks.js'
import type { Store } from '../store/store.js'
import { badRequest } from './errors.js'
import type { Params } from './params.js'

/** What every part of the emulator shares: the store, the clock, the locks, message ids and the chat listeners. */

/** What the chat page and `pay chat messages --follow` are told, once it is durable. */
export type ChatEvent =
  | { type: 'message' | 'edit' | 'delete'; messageId: number }
  | { type: 'action'; action: string }
  | { type: 'answer'; text?: string; showAlert: boolean; url?: string }

/** A method's answer with Telegram's optional description (`Webhook was set`). */
export class Described {
  constructor(
    readonly result: unknown,
    readonly description: string,
  ) {}
}

export const chatKey = (botId: number, chatId: number): string => `${botId}:${chatId}`

export class EmulatorCore {
  readonly store: Store
  readonly now: () => Date
  private readonly locks = new KeyedLock()
  private readonly listeners = new Map<string, Set<(event: ChatEvent) => void>>()
  /** Last message ids handed out, ahead of the durable counters while writes are in flight. */
  private readonly messageIds = new Map<string, number>()

  constructor(store: Store, now: () => Date) {
    this.store = store
    this.now = now
  }

  /**
   * Runs a read-modify-write of one bot's record, one at a time; again on what another instance left, when it
   * changed the record meanwhile.
   */
  underBot<T>(botId: number, task: () => Promise<T>): Promise<T> {
    return this.locks.run(`bot:${botId}`, () => this.store.retrying(task))
  }

  /**
   * Runs a change to one chat (its messages and ids), one at a time; again with fresh ids, when another instance
   * took the ones it chose meanwhile.
   */
  underChat<T>(botId: number, chatId: number, task: () => Promise<T>): Promise<T> {
    return this.locks.run(`chat:${chatKey(botId, chatId)}`, () => this.store.retrying(task))
  }

  /** Read-modify-write of a bot record, one at a time, from the durable record. */
  saveBot(botId: number, change: (bot: BotRecord) => BotRecord): Promise<void> {
    return this.underBot(botId, async () => {
      const bot = this.store.telegram.getBot(botId)
      if (bot) await this.store.putTelegram({ t: 'bot', v: change(bot) })
    })
  }

  /** The chat a method's `chat_id` names; Telegram's 400 answers when there is none. */
  requireChat(bot: BotRecord, p: Params): ChatRecord {
    const raw = p.string('chat_id').trim()
    if (raw === '') throw badRequest('chat_id is empty')
    const chat = /^-?\d{1,16}$/.test(raw) ? this.store.telegram.getChat(bot.id, Number(raw)) : undefined
    if (!chat) throw badRequest('chat not found')
    return chat
  }

  nextMessageId(chat: ChatRecord): number {
    const key = chatKey(chat.botId, chat.chatId)
    const durable = this.store.telegram.getChat(chat.botId, chat.chatId)?.lastMessageId ?? 0
    const id = Math.max(this.messageIds.get(key) ?? 0, durable, chat.lastMessageId) + 1
    this.messageIds.set(key, id)
    return id
  }

  /** Listens to a chat's durable changes (through any instance) and its actions; returns the function that stops listening. */
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

  emit(botId: number, chatId: number, event: ChatEvent): void {
    for (const listener of this.listeners.get(chatKey(botId, chatId)) ?? []) listener(event)
  }

  stamp(): string {
    return this.now().toISOString()
  }

  unixNow(): number {
    return Math.floor(this.now().getTime() / 1000)
  }
}
