import type { ServerResponse } from 'node:http'
import type { FastifyInstance } from 'fastify'
import { pageHeaders } from '../pages/layout.js'
import { SandboxError } from '../domain/outcomes.js'
import type { BotRecord, MessageRecord } from '../domain/telegram-records.js'
import { CHAT_STYLES, chatPage } from './chat-page.js'
import { DEFAULT_CHAT_ID } from './messages.js'
import type { TelegramService } from './service.js'
import type { ChatBot, ChatMessage, ChatMessages, ChatPress, ChatSent } from './views.js'
import type { WireProvider } from '../http/type-provider.js'
import type { Received } from '../http/wire.js'
import { GUARD_REFUSALS, json, media, noQuery, replies } from '../http/schemas.js'
import { botRef, botSchema, botsBody, chatRef, fileParams, messageSchema, messagesQuery, pageQuery, pressAnswer, pressBody, sendBody } from './chat-schemas.js'

const HEARTBEAT_MS = 15_000

const tags = ['Chat']

const CHAT_LOOKUP = ['invalidBody', 'invalidField', 'notFound'] as const

/** A bot as the control API shows it. */
export function botView(bot: BotRecord, service: TelegramService): ChatBot {
  return {
    id: bot.id,
    username: bot.username,
    firstName: bot.firstName,
    token: bot.token,
    mode: bot.webhook ? ('webhook' as const) : ('polling' as const),
    ...(bot.webhook ? { webhook: { url: bot.webhook.url, maxConnections: bot.webhook.maxConnections, secretToken: bot.webhook.secretToken !== undefined } } : {}),
    pendingUpdates: service.pendingUpdateCount(bot.id),
    commands: bot.commands ?? [],
    chats: service.listChats(bot.id).map((c) => c.chatId),
    createdAt: bot.createdAt,
  }
}

/** A message as the control API shows it: the stored record without its bot and chat. */
function messageView({ botId: _b, chatId: _c, ...rest }: MessageRecord): ChatMessage {
  return rest
}

/**
 * The customer's side of the emulator: the control API under /_sandbox/chat (JSON, for the CLI, scripts and the
 * chat page), its event stream, the files bots sent, and the chat page at /chat.
 */
export function chatRoutes(service: TelegramService) {
  return async function (fastify: FastifyInstance): Promise<void> {
    const app = fastify.withTypeProvider<WireProvider>()
    const streams = new Set<ServerResponse>()
    app.addHook('preClose', async () => {
      for (const res of streams) res.destroy()
      streams.clear()
    })

    /** The named bot, or the only one there is. */
    const pickBot = (ref: string | undefined): BotRecord => {
      if (ref !== undefined && ref !== '') return service.findBot(ref)
      const bots = service.listBots()
      if (bots.length === 1) return bots[0]!
      if (bots.length === 0) throw new SandboxError('notFound', 'no bots yet: a bot appears once it calls the Bot API at /telegram, or with `pay chat bot add`')
      throw new SandboxError('invalidField', `several bots; name one with bot (${bots.map((b) => `@${b.username}`).join(', ')})`)
    }

    const botsSchema = {
      tags,
      summary: 'Bots known to the emulator',
      querystring: noQuery,
      response: replies('GET', { 200: json('every bot', { type: 'object', properties: { bots: { type: 'array', items: botSchema } }, required: ['bots'] }) }),
    }
    app.get('/_sandbox/chat/bots', { schema: botsSchema }, async () => ({ bots: service.listBots().map((b) => botView(b, service)) }))

    app.post(
      '/_sandbox/chat/bots',
      {
        schema: {
          tags,
          summary: 'Register a bot\'s token with a username',
          body: botsBody,
          response: replies('POST', { 201: json('registered', { type: 'object', properties: { bot: botSchema }, required: ['bot'] }) }, ['invalidBody', 'invalidField', 'conflict', 'storageUnavailable']),
        },
      },
      async (request, reply) => reply.code(201).send({ bot: botView(await service.registerBot(request.body), service) }),
    )

    app.get(
      '/_sandbox/chat/messages',
      {
        schema: {
          tags,
          summary: 'A chat\'s messages, oldest first',
          querystring: messagesQuery,
          response: replies(
            'GET',
            { 200: json('the messages', { type: 'object', properties: { bot: botRef, chat: { type: 'integer' }, messages: { type: 'array', items: messageSchema } }, required: ['bot', 'chat', 'messages'] }) },
            CHAT_LOOKUP,
          ),
        },
      },
      async (request) => {
        const bot = pickBot(request.query.bot)
        const chatId = request.query.chat ?? DEFAULT_CHAT_ID
        let messages = service.messages(bot.id, chatId)
        if (request.query.after !== undefined) messages = messages.filter((m) => m.messageId > request.query.after!)
        if (request.query.limit !== undefined) messages = messages.slice(-request.query.limit)
        const answer: ChatMessages = { bot: { id: bot.id, username: bot.username }, chat: chatId, messages: messages.map(messageView) }
        return answer
      },
    )

    app.post(
      '/_sandbox/chat/send',
      {
        schema: {
          tags,
          summary: 'Write to the bot as the customer',
          body: sendBody,
          response: replies(
            'POST',
            { 201: json('the message sent', { type: 'object', properties: { bot: botRef, chat: { type: 'integer' }, message: messageSchema }, required: ['bot', 'chat', 'message'] }) },
            [...CHAT_LOOKUP, 'storageUnavailable'],
          ),
        },
      },
      async (request, reply) => {
        const bot = pickBot(request.body.bot)
        const message = await service.sendAsUser({
          bot,
          text: request.body.text,
          ...(request.body.chat !== undefined ? { chatId: request.body.chat } : {}),
          ...(request.body.firstName !== undefined ? { firstName: request.body.firstName } : {}),
        })
        const answer: ChatSent = { bot: { id: bot.id, username: bot.username }, chat: message.chatId, message: messageView(message) }
        return reply.code(201).send(answer)
      },
    )

    app.post(
      '/_sandbox/chat/press',
      {
        schema: {
          tags,
          summary: 'Press a button of a bot\'s message as the customer',
          body: pressBody,
          response: replies('POST', { 200: json('what the press did', pressAnswer) }, [...CHAT_LOOKUP, 'storageUnavailable']),
        },
      },
      async (request) => {
        const { chat, button, messageId, wait } = request.body
        const result = await service.press({
          bot: pickBot(request.body.bot),
          button,
          ...(chat !== undefined ? { chatId: chat } : {}),
          ...(messageId !== undefined ? { messageId } : {}),
          ...(wait !== undefined ? { waitMs: wait } : {}),
        })
        const answer: ChatPress = result.kind === 'text' ? { kind: 'text', message: messageView(result.message) } : result
        return answer
      },
    )

    app.get(
      '/_sandbox/chat/events',
      {
        schema: {
          tags,
          summary: 'Server-sent events of the chat page: `change`, `action`, `answer`',
          querystring: { type: 'object', properties: chatRef },
          response: replies('GET', { 200: media('an event stream', 'text/event-stream') }, CHAT_LOOKUP),
        },
      },
      async (request, reply) => {
        const bot = pickBot(request.query.bot)
        const chatId = request.query.chat ?? DEFAULT_CHAT_ID
        reply.hijack()
        const res = reply.raw
        res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-store', 'x-accel-buffering': 'no' })
        res.write('retry: 2000\n\n')
        streams.add(res)
        const stop = service.subscribe(bot.id, chatId, (event) => {
          const name = event.type === 'action' || event.type === 'answer' ? event.type : 'change'
          res.write(`event: ${name}\ndata: ${JSON.stringify(event)}\n\n`)
        })
        const heartbeat = setInterval(() => res.write(': ping\n\n'), HEARTBEAT_MS)
        heartbeat.unref()
        res.on('close', () => {
          clearInterval(heartbeat)
          stop()
          streams.delete(res)
        })
      },
    )

    const fileSchema = {
      tags,
      summary: 'A photo a bot sent',
      params: fileParams,
      querystring: noQuery,
      response: replies('GET', { 200: media('its bytes, with its own type', 'application/octet-stream') }, ['invalidBody', 'notFound']),
    }
    // Bytes, not text: this one answer is not typed by its schema.
    fastify.get<{ Params: Received<typeof fileParams> }>('/_sandbox/chat/files/:fileId', { schema: fileSchema }, async (request, reply) => {
      const file = service.file(request.params.fileId)
      if (!file) throw new SandboxError('notFound', `no file ${request.params.fileId} (files are let go, oldest first, beyond 64 MB)`)
      return reply
        .header('content-type', file.mimeType)
        .header('x-content-type-options', 'nosniff')
        .header('content-security-policy', "default-src 'none'; sandbox")
        .header('cache-control', 'private, max-age=3600')
        .send(Buffer.from(file.data, 'base64'))
    })

    app.get(
      '/chat',
      {
        schema: { tags, summary: 'The chat page: play the customer of a bot', querystring: pageQuery, response: replies('GET', { 200: media('the page', 'text/html') }, [], { html: GUARD_REFUSALS }) },
        config: { page: true },
      },
      async (request, reply) => {
        const bots = service.listBots()
        let bot: BotRecord | undefined
        try {
          bot = request.query.bot ? service.findBot(request.query.bot) : bots.length > 0 ? bots.at(-1) : undefined
        } catch {
          bot = undefined
        }
        const asked = Number(request.query.chat)
        const chatId = Number.isSafeInteger(asked) && asked > 0 ? asked : (bot && service.listChats(bot.id).at(-1)?.chatId) || DEFAULT_CHAT_ID
        const page = chatPage({
          bots,
          chats: bot ? service.listChats(bot.id) : [],
          chatId,
          messages: bot ? service.messages(bot.id, chatId) : [],
          ...(bot ? { bot } : {}),
          ...(bot ? { keyboard: service.currentKeyboard(bot.id, chatId) } : {}),
        })
        return reply.headers(pageHeaders(bot ? 'chat' : undefined, CHAT_STYLES)).send(page)
      },
    )
  }
}
