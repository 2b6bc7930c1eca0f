import type { Chat, Message, Update, User, UserFromGetMe } from '@grammyjs/types'
import type { BotRecord, ChatRecord, MessageRecord } from '../domain/telegram-records.js'
import { isInline } from './markup.js'

/** The chat a control request or the chat page speaks in when none is named. */
export const DEFAULT_CHAT_ID = 1000001

/** Update types a bot gets unless it asks otherwise (Telegram's default leaves these three out). */
const OFF_BY_DEFAULT = new Set(['chat_member', 'message_reaction', 'message_reaction_count'])

/** The simulated customer behind a chat id. */
export function simulatedUser(chatId: number, name?: { firstName?: string; username?: string }): User {
  return {
    id: chatId,
    is_bot: false,
    first_name: name?.firstName ?? 'Sandbox Customer',
    username: name?.username ?? `customer_${chatId}`,
    language_code: 'en',
  }
}

export function botUser(bot: BotRecord): UserFromGetMe {
  return {
    id: bot.id,
    is_bot: true,
    first_name: bot.firstName,
    username: bot.username,
    can_join_groups: true,
    can_read_all_group_messages: false,
    supports_inline_queries: false,
    can_connect_to_business: false,
    has_main_web_app: false,
  } as UserFromGetMe
}

export function privateChat(chat: ChatRecord): Chat.PrivateChat {
  const u = chat.user
  return {
    id: chat.chatId,
    type: 'private',
    first_name: u.first_name,
    ...(u.last_name !== undefined ? { last_name: u.last_name } : {}),
    ...(u.username !== undefined ? { username: u.username } : {}),
  }
}

/** A stored message as the Bot API shows it. Only inline keyboards are part of a Message. */
export function toMessage(bot: BotRecord, chat: ChatRecord, m: MessageRecord): Message {
  const from = m.from === 'bot' ? botUser(bot) : chat.user
  const message: Record<string, unknown> = { message_id: m.messageId, from, chat: privateChat(chat), date: m.date }
  if (m.editDate !== undefined) message.edit_date = m.editDate
  if (m.text !== undefined) message.text = m.text
  if (m.entities?.length) message.entities = m.entities
  if (m.photo) message.photo = m.photo
  if (m.caption !== undefined) message.caption = m.caption
  if (m.captionEntities?.length) message.caption_entities = m.captionEntities
  if (isInline(m.replyMarkup)) message.reply_markup = m.replyMarkup
  return message as unknown as Message
}

/** The type of an update: the name of its one field besides update_id. */
export function updateType(update: Update): string {
  return Object.keys(update).find((k) => k !== 'update_id') ?? ''
}

/** Whether a bot that asked for `allowed` gets updates of this type. An empty list means the default. */
export function allows(allowed: readonly string[] | undefined, type: string): boolean {
  if (allowed === undefined || allowed.length === 0) return !OFF_BY_DEFAULT.has(type)
  return allowed.includes(type)
}

/** `allowed_updates` as the server reads it: a JSON array of strings; anything else leaves the setting as it was. */
export function readAllowedUpdates(value: unknown): string[] | undefined {
  if (!Array.isArray(value)) return undefined
  return value.filter((v): v is string => typeof v === 'string')
}
