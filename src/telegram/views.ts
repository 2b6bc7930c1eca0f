import type { MessageRecord } from '../domain/telegram-records.js'
import type { ChatBot, ChatBotRef } from './chat-schemas.js'

/**
 * Shapes of the chat control API (/_sandbox/chat), shared by its routes and the typed client: a bot as its schema
 * says (chat-schemas.ts); a message is the stored record, of which the schema documents the main fields.
 */

export type { ChatBot, ChatBotRef }

export type ChatMessage = Omit<MessageRecord, 'botId' | 'chatId'>

export type ChatPress =
  | { kind: 'callback'; callbackQueryId: string; data: string; answer?: { text?: string; showAlert: boolean; url?: string } }
  | { kind: 'url'; url: string }
  | { kind: 'text'; message: ChatMessage }

/** A chat's messages: what GET /_sandbox/chat/messages answers (its route checks it against the schema). */
export interface ChatMessages {
  bot: ChatBotRef
  chat: number
  messages: ChatMessage[]
}

/** The message the customer sent: what POST /_sandbox/chat/send answers. */
export interface ChatSent {
  bot: ChatBotRef
  chat: number
  message: ChatMessage
}
