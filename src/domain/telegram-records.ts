import type {
  BotCommand,
  ForceReply,
  InlineKeyboardMarkup,
  MessageEntity,
  PhotoSize,
  ReplyKeyboardMarkup,
  ReplyKeyboardRemove,
  Update,
  User,
} from '@grammyjs/types'

/**
 * The Telegram Bot API emulator's records, as the store keeps them (shapes only: the emulator in src/telegram
 * makes them, the store holds them). Times are ISO-8601 strings; `date` fields are Unix seconds.
 */

/** A `reply_markup` as stored with a message: the Bot API object, keeping only the fields the emulator uses. */
export type Markup = InlineKeyboardMarkup | ReplyKeyboardMarkup | ReplyKeyboardRemove | ForceReply

export interface BotRecord {
  id: number
  token: string
  username: string
  firstName: string
  createdAt: string
  webhook?: WebhookConfig
  /** Update types the bot asked for (getUpdates or setWebhook `allowed_updates`); absent = Telegram's default. */
  allowedUpdates?: string[]
  commands?: BotCommand[]
  /** Highest update_id given so far: ids keep growing across confirmations, resets and restarts. */
  lastUpdateId: number
}

export interface WebhookConfig {
  url: string
  secretToken?: string
  maxConnections: number
  setAt: string
}

/** A private chat between a simulated user and a bot; its id is the user's id, as in Telegram. */
export interface ChatRecord {
  botId: number
  chatId: number
  user: User
  createdAt: string
  /** Highest message_id given in this chat. */
  lastMessageId: number
}

export interface MessageRecord {
  botId: number
  chatId: number
  messageId: number
  from: 'bot' | 'user'
  date: number
  text?: string
  entities?: MessageEntity[]
  photo?: PhotoSize[]
  caption?: string
  captionEntities?: MessageEntity[]
  replyMarkup?: Markup
  editDate?: number
  deleted?: true
}

/** An update waiting for the bot (getUpdates or its webhook) until confirmed. */
export interface UpdateRecord {
  botId: number
  update: Update
}

/** Bytes a bot uploaded (a photo), kept so the chat page can show them. */
export interface FileRecord {
  fileId: string
  fileUniqueId: string
  botId: number
  mimeType: string
  size: number
  width: number
  height: number
  /** Base64 of the bytes. */
  data: string
  createdAt: string
}

export type TelegramChange =
  | { t: 'bot'; v: BotRecord }
  | { t: 'chat'; v: ChatRecord }
  | { t: 'message'; v: MessageRecord }
  | { t: 'update'; v: UpdateRecord }
  /** The bot's updates below this update_id were received (getUpdates offset, or its webhook answered 2xx). */
  | { t: 'confirm'; botId: number; below: number }
  /** Pending updates dropped (drop_pending_updates). */
  | { t: 'drop'; botId: number }
  | { t: 'file'; v: FileRecord }
  | { t: 'unfile'; fileId: string }

/** The emulator's part of a snapshot. */
export interface TelegramImage {
  tgBots: BotRecord[]
  tgChats: ChatRecord[]
  tgMessages: MessageRecord[]
  tgUpdates: UpdateRecord[]
  tgFiles: FileRecord[]
}

export const TELEGRAM_LISTS = ['tgBots', 'tgChats', 'tgMessages', 'tgUpdates', 'tgFiles'] as const
