import type { FastifyInstance } from 'fastify'
import { botApiRoutes } from './bot-api-routes.js'
import { chatRoutes } from './chat-routes.js'
import type { TelegramService } from './service.js'

/** The Telegram Bot API emulator: the Bot API under /telegram, the control API under /_sandbox/chat, the chat page. */
export function telegramPlugin(service: TelegramService) {
  return async function (app: FastifyInstance): Promise<void> {
    // Long polls and webhook senders end first, so in-flight requests can finish.
    app.addHook('preClose', async () => service.close())
    await app.register(botApiRoutes(service))
    await app.register(chatRoutes(service))
  }
}
