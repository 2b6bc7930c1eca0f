/**
 * Schemas of the chat control API (/_sandbox/chat), and the types read from them that its routes and the typed
 * client share. A message is the stored record (views.ts); the schema documents its main fields.
 */

import type { Answer, Sent } from '../http/wire.js'

export const chatRef = {
  bot: { type: 'string', minLength: 1, maxLength: 200 },
  chat: { type: 'integer', minimum: 1, maximum: 9007199254740991 },
} as const

export const botsBody = {
  type: 'object',
  properties: {
    token: { type: 'string', minLength: 1, maxLength: 200 },
    username: { type: 'string', minLength: 1, maxLength: 64 },
    firstName: { type: 'string', minLength: 1, maxLength: 64 },
  },
  required: ['token'],
  additionalProperties: false,
} as const
export type AddBotInput = Sent<typeof botsBody>

export const sendBody = {
  type: 'object',
  properties: { ...chatRef, text: { type: 'string', minLength: 1, maxLength: 4096 }, firstName: { type: 'string', minLength: 1, maxLength: 64 } },
  required: ['text'],
  additionalProperties: false,
} as const
export type ChatSendInput = Sent<typeof sendBody>

export const pressBody = {
  type: 'object',
  properties: {
    ...chatRef,
    button: { type: 'string', minLength: 1, maxLength: 4096 },
    messageId: { type: 'integer', minimum: 1 },
    wait: { type: 'integer', minimum: 0, maximum: 10000 },
  },
  required: ['button'],
  additionalProperties: false,
} as const
export type ChatPressInput = Sent<typeof pressBody>

export const messagesQuery = {
  type: 'object',
  properties: { ...chatRef, after: { type: 'integer', minimum: 0 }, limit: { type: 'integer', minimum: 1, maximum: 100000 } },
  additionalProperties: false,
} as const
export type ChatMessagesQuery = Sent<typeof messagesQuery>
/** Which bot and chat a chat call speaks in: the bot by token, @username or id (the only bot when omitted). */
export type ChatRef = Sent<{ type: 'object'; properties: typeof chatRef; additionalProperties: false }>

export const pageQuery = {
  type: 'object',
  properties: { bot: { type: 'string', maxLength: 200 }, chat: { type: 'string', maxLength: 20 } },
} as const

export const fileParams = { type: 'object', properties: { fileId: { type: 'string', minLength: 1, maxLength: 200 } }, required: ['fileId'] } as const

export const botSchema = {
  type: 'object',
  properties: {
    id: { type: 'integer' },
    username: { type: 'string' },
    firstName: { type: 'string' },
    token: { type: 'string' },
    mode: { type: 'string', enum: ['polling', 'webhook'] },
    webhook: {
      type: 'object',
      properties: { url: { type: 'string' }, maxConnections: { type: 'integer' }, secretToken: { type: 'boolean', description: 'whether it has one' } },
      required: ['url', 'maxConnections', 'secretToken'],
    },
    pendingUpdates: { type: 'integer', description: 'updates the bot has not received yet' },
    commands: {
      type: 'array',
      items: { type: 'object', properties: { command: { type: 'string' }, description: { type: 'string' } }, required: ['command', 'description'] },
      description: 'as setMyCommands gave them',
    },
    chats: { type: 'array', items: { type: 'integer' }, description: 'the simulated customers that wrote to it' },
    createdAt: { type: 'string' },
  },
  required: ['id', 'username', 'firstName', 'token', 'mode', 'pendingUpdates', 'commands', 'chats', 'createdAt'],
} as const
/** A bot as the control API shows it. */
export type ChatBot = Answer<typeof botSchema>

/** A message of a chat; its text, entities, photo and buttons as the Bot API gave them. */
export const messageSchema = {
  type: 'object',
  properties: {
    messageId: { type: 'integer' },
    from: { type: 'string', enum: ['bot', 'user'] },
    date: { type: 'integer', description: 'Unix seconds' },
    text: { type: 'string' },
    caption: { type: 'string' },
    editDate: { type: 'integer' },
    deleted: { type: 'boolean', const: true },
  },
  required: ['messageId', 'from', 'date'],
  additionalProperties: true,
} as const

export const botRef = { type: 'object', properties: { id: { type: 'integer' }, username: { type: 'string' } }, required: ['id', 'username'] } as const
export type ChatBotRef = Answer<typeof botRef>

export const pressAnswer = {
  oneOf: [
    {
      type: 'object',
      description: 'a callback button: the query sent to the bot, and its answer if it came in time',
      properties: { kind: { const: 'callback' }, callbackQueryId: { type: 'string' }, data: { type: 'string' }, answer: { type: 'object', additionalProperties: true } },
      required: ['kind', 'callbackQueryId', 'data'],
    },
    { type: 'object', description: 'a URL button', properties: { kind: { const: 'url' }, url: { type: 'string' } }, required: ['kind', 'url'] },
    { type: 'object', description: 'a reply-keyboard button: its text, sent as the customer', properties: { kind: { const: 'text' }, message: messageSchema }, required: ['kind', 'message'] },
  ],
} as const
