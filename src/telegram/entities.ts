import type { MessageEntity } from '@grammyjs/types'
import { findEntities } from './entities-found.js'
import { parseHtml } from './entities-html.js'
import { parseMarkdownV2 } from './entities-markdown.js'
import { checkedLink, EntityParseError, type FormattedText, sortEntities } from './entities-shared.js'
import { badRequest, type BotApiError } from './errors.js'

/**
 * Formatted text as Telegram builds it from what a bot sends: `parse_mode` HTML or MarkdownV2 parsed into plain
 * text and entities (with the Bot API server's error wording and UTF-8 byte offsets), or explicit `entities`;
 * then URLs, commands, mentions, hashtags, cashtags and e-mail addresses found in the text; then the text trimmed.
 * Offsets and lengths are in UTF-16 code units, as in the Bot API.
 */

/** Longest message text after parsing (UTF-16 code units) and longest text before it (UTF-8 bytes). */
export const MAX_TEXT_LENGTH = 4096
export const MAX_CAPTION_LENGTH = 1024
const MAX_RAW_BYTES = 1 << 15

/** `text` as the user will see it; throws a BotApiError with Telegram's description. */
export function formatText(
  rawText: string,
  options: { parseMode?: string; entities?: unknown; maxLength?: number; what?: 'message' | 'caption' } = {},
): FormattedText {
  if (Buffer.byteLength(rawText) > MAX_RAW_BYTES) throw badRequest('Text is too long')
  const mode = (options.parseMode ?? '').toLowerCase()
  let parsed: FormattedText
  if (rawText !== '' && mode !== '' && mode !== 'none') {
    try {
      if (mode === 'html') parsed = parseHtml(rawText)
      else if (mode === 'markdownv2') parsed = parseMarkdownV2(rawText)
      else if (mode === 'markdown') parsed = parseMarkdownV2(rawText, true)
      else throw badRequest('Unsupported parse_mode')
    } catch (error) {
      if (error instanceof EntityParseError) throw badRequest(`Can't parse entities: ${error.message}`)
      throw error
    }
  } else {
    parsed = { text: rawText, entities: explicitEntities(options.entities, rawText.length) }
  }
  const found = findEntities(parsed.text, parsed.entities)
  const trimmed = trim({ text: parsed.text, entities: sortEntities([...parsed.entities, ...found]) })
  const max = options.maxLength ?? MAX_TEXT_LENGTH
  if (trimmed.text.length > max) {
    throw badRequest(options.what === 'caption' ? 'message caption is too long' : 'message is too long')
  }
  return trimmed
}

/** Entities given as the `entities`/`caption_entities` parameter, checked and clipped to the text. */
function explicitEntities(value: unknown, textLength: number): MessageEntity[] {
  if (value === undefined) return []
  if (!Array.isArray(value)) return []
  const out: MessageEntity[] = []
  for (const item of value) {
    const fail = (why: string): BotApiError => badRequest(`Can't parse MessageEntity: ${why}`)
    if (typeof item !== 'object' || item === null || Array.isArray(item)) throw fail('expected an Object')
    const e = item as Record<string, unknown>
    for (const field of ['offset', 'length'] as const) {
      if (e[field] === undefined) throw fail(`Can't find field "${field}"`)
      if (!Number.isInteger(e[field])) throw fail(`Field "${field}" must be of type Number`)
    }
    if (e.type === undefined) throw fail('Type is not specified')
    if (typeof e.type !== 'string' || !ENTITY_TYPES.has(e.type)) throw fail('Unsupported type specified')
    let offset = e.offset as number
    let length = e.length as number
    if (offset < 0) {
      length += offset
      offset = 0
    }
    length = Math.min(length, textLength - offset)
    if (length <= 0) continue
    const entity = { type: e.type, offset, length } as MessageEntity & Record<string, unknown>
    if (e.type === 'text_link') {
      const url = typeof e.url === 'string' ? checkedLink(e.url) : undefined
      if (url === undefined) continue
      entity.url = url
    }
    if (e.type === 'pre' && typeof e.language === 'string' && e.language !== '') entity.language = e.language
    if (e.type === 'custom_emoji') {
      if (typeof e.custom_emoji_id !== 'string' || !/^\d{1,19}$/.test(e.custom_emoji_id)) continue
      entity.custom_emoji_id = e.custom_emoji_id
    }
    if (e.type === 'text_mention') continue // needs a user the emulator cannot check
    out.push(entity)
  }
  return out
}

const ENTITY_TYPES = new Set([
  'mention', 'hashtag', 'cashtag', 'bot_command', 'url', 'email', 'phone_number', 'bold', 'italic', 'underline',
  'strikethrough', 'spoiler', 'blockquote', 'expandable_blockquote', 'code', 'pre', 'text_link', 'text_mention',
  'custom_emoji',
])

/** Leading and trailing white space removed, as Telegram does; entities moved and clipped with the text. */
function trim(formatted: FormattedText): FormattedText {
  const { text } = formatted
  const start = text.length - text.trimStart().length
  const end = text.trimEnd().length
  if (start === 0 && end === text.length) return formatted
  if (end <= start) throw badRequest('message must be non-empty')
  const entities: MessageEntity[] = []
  for (const e of formatted.entities) {
    const from = Math.max(e.offset, start)
    const to = Math.min(e.offset + e.length, end)
    if (to > from) entities.push({ ...e, offset: from - start, length: to - from })
  }
  return { text: text.slice(start, end), entities }
}
