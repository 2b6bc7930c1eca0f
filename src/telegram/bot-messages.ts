import type { Message } from '@grammyjs/types'
import type { BotRecord, ChatRecord, Markup, MessageRecord } from '../domain/telegram-records.js'
import type { EmulatorCore } from './core.js'
import { formatText, MAX_CAPTION_LENGTH } from './entities.js'
import { badRequest } from './errors.js'
import type { Files } from './files.js'
import { isInline, type MarkupRules, parseMarkup } from './markup.js'
import { toMessage } from './messages.js'
import type { Params } from './params.js'

/**
 * Messages from the bot: sent, edited and deleted, each stored before it is answered; the chat shows it once
 * durable (the store's change feed, see TelegramService).
 */

const CHAT_ACTIONS = new Set([
  'typing', 'upload_photo', 'record_video', 'upload_video', 'record_voice', 'upload_voice', 'upload_document',
  'choose_sticker', 'find_location', 'record_video_note', 'upload_video_note',
])

export class BotMessages {
  constructor(
    private readonly core: EmulatorCore,
    private readonly files: Files,
    private readonly rules: MarkupRules = {},
  ) {}

  async sendMessage(bot: BotRecord, p: Params): Promise<Message> {
    const chat = this.core.requireChat(bot, p)
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

  async sendPhoto(bot: BotRecord, p: Params): Promise<Message> {
    const chat = this.core.requireChat(bot, p)
    const caption = p.string('caption')
    const formatted = caption === '' ? undefined : formatText(caption, {
      parseMode: p.string('parse_mode'),
      entities: p.json('caption_entities', 'caption entities'),
      maxLength: MAX_CAPTION_LENGTH,
      what: 'caption',
    })
    const replyMarkup = this.markup(p)
    const file = await this.files.photoFile(bot, p)
    return this.postFromBot(bot, chat, {
      photo: [{ file_id: file.fileId, file_unique_id: file.fileUniqueId, width: file.width, height: file.height, file_size: file.size }],
      ...(formatted ? { caption: formatted.text, ...(formatted.entities.length ? { captionEntities: formatted.entities } : {}) } : {}),
      ...(replyMarkup ? { replyMarkup } : {}),
    })
  }

  async editMessage(bot: BotRecord, p: Params, what: 'text' | 'caption' | 'markup'): Promise<Message> {
    if (p.string('inline_message_id') !== '' && p.string('chat_id') === '') throw badRequest('MESSAGE_ID_INVALID')
    const chat = this.core.requireChat(bot, p)
    const messageId = p.messageId()
    return this.core.underChat(bot.id, chat.chatId, async () => {
      const message = messageId === 0 ? undefined : this.core.store.telegram.getMessage(bot.id, chat.chatId, messageId)
      if (!message || message.deleted) throw badRequest('message to edit not found')
      if (message.from !== 'bot') throw badRequest("message can't be edited")
      const markup = this.markup(p)
      const next: MessageRecord = { ...message, editDate: this.core.unixNow() }
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
      await this.core.store.putTelegram({ t: 'message', v: next })
      return toMessage(bot, chat, next)
    })
  }

  async deleteMessage(bot: BotRecord, p: Params): Promise<boolean> {
    if (p.string('chat_id') === '') throw badRequest('Chat identifier is not specified')
    const messageId = p.messageId()
    if (messageId === 0) throw badRequest('Message identifier is not specified')
    const chat = this.core.requireChat(bot, p)
    return this.core.underChat(bot.id, chat.chatId, async () => {
      const message = this.core.store.telegram.getMessage(bot.id, chat.chatId, messageId)
      if (!message || message.deleted) throw badRequest('message to delete not found')
      await this.core.store.putTelegram({ t: 'message', v: { botId: bot.id, chatId: chat.chatId, messageId, from: message.from, date: message.date, deleted: true } })
      return true
    })
  }

  sendChatAction(bot: BotRecord, p: Params): boolean {
    const action = p.string('action')
    if (!CHAT_ACTIONS.has(action)) throw badRequest('Wrong parameter action in request')
    const chat = this.core.requireChat(bot, p)
    this.core.emit(bot.id, chat.chatId, { type: 'action', action })
    return true
  }

  private postFromBot(bot: BotRecord, chat: ChatRecord, content: Partial<MessageRecord>): Promise<Message> {
    return this.core.underChat(bot.id, chat.chatId, async () => {
      const record: MessageRecord = {
        botId: bot.id,
        chatId: chat.chatId,
        messageId: this.core.nextMessageId(chat),
        from: 'bot',
        date: this.core.unixNow(),
        ...content,
      }
      await this.core.store.putTelegram({ t: 'message', v: record })
      return toMessage(bot, this.core.store.telegram.getChat(bot.id, chat.chatId) ?? chat, record)
    })
  }

  private markup(p: Params): Markup | undefined {
    return parseMarkup(p.json('reply_markup', 'reply keyboard markup'), this.rules)
  }
}
