import type { BotCommand } from '@grammyjs/types'
import type { MessageRecord } from '../domain/telegram-records.js'

/** Shapes of the chat control API (/_sandbox/chat), shared by its routes and the typed client. */

export interface ChatBot {
  id: number
  username: string
  firstName: string
  token: string
  mode: 'polling' | 'webhook'
  webhook?: { url: string; maxConnections: number; secretToken: boolean }
  /** Updates the bot has not received yet. */
  pendingUpdates: number
  commands: BotCommand[]
  /** Ids of the chats (simulated customers) that wrote to it. */
  chats: number[]
  createdAt: string
}

export type ChatMessage = Omit<MessageRecord, 'botId' | 'chatId'>

export type ChatPress =
  | { kind: 'callback'; callbackQueryId: string; data: string; answer?: { text?: string; showAlert: boolean; url?: string } }
  | { kind: 'url'; url: string }
  | { kind: 'text'; message: ChatMessage }
