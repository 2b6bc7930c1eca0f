import type { MessageEntity } from '@grammyjs/types'
import { badRequest, type BotApiError } from './errors.js'

/**
 * Formatted text as Telegram builds it from what a bot sends: `parse_mode` HTML or MarkdownV2 parsed into plain
 * text and entities (with the Bot API server's error wording and UTF-8 byte offsets), or explicit `entities`;
 * then URLs, commands, mentions, hashtags, cashtags and e-mail addresses found in the text; then the text trimmed.
 * Offsets and lengths are in UTF-16 code units, as in the Bot API.
 */

export interface FormattedText {
  text: string
  entities: MessageEntity[]
}

/** Longest message text after parsing (UTF-16 code units) and longest text before it (UTF-8 bytes). */
export const MAX_TEXT_LENGTH = 4096
export const MAX_CAPTION_LENGTH = 1024
const MAX_RAW_BYTES = 1 << 15

export class EntityParseError extends Error {}

const byteOffset = (input: string, index: number): number => Buffer.byteLength(input.slice(0, index))

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

/** Links Telegram keeps in a text_link: http(s), tg and ton; a bare host gets `http://`. Others are dropped. */
export function checkedLink(url: string): string | undefined {
  const trimmed = url.trim()
  if (trimmed === '' || /[\s\u0000-\u001f]/.test(trimmed)) return undefined
  const withScheme = /^[a-z][a-z0-9+.-]*:/i.test(trimmed) ? trimmed : `http://${trimmed}`
  let parsed: URL
  try {
    parsed = new URL(withScheme)
  } catch {
    return undefined
  }
  if (parsed.protocol === 'http:' || parsed.protocol === 'https:') return parsed.hostname === '' ? undefined : parsed.href
  if (parsed.protocol === 'tg:' || parsed.protocol === 'ton:') return withScheme
  return undefined
}

// ── HTML ─────────────────────────────────────────────────────────────────

const HTML_TAGS = new Set([
  'a', 'b', 'strong', 'i', 'em', 's', 'strike', 'del', 'u', 'ins', 'tg-spoiler', 'tg-emoji', 'span', 'pre', 'code',
  'blockquote',
])

const isSpace = (c: string | undefined): boolean => c === ' ' || c === '\t' || c === '\n' || c === '\r' || c === '\f' || c === '\v'

/** Decodes `&lt;` `&gt;` `&amp;` `&quot;` and numeric references at `at`; undefined when it is a plain `&`. */
function htmlEntity(s: string, at: number): { char: string; end: number } | undefined {
  let end = at + 1
  let code = 0
  if (s[at + 1] === '#') {
    end++
    const hex = s[at + 2] === 'x'
    if (hex) end++
    const digits = hex ? /[0-9a-fA-F]/ : /[0-9]/
    while (end < s.length && digits.test(s[end]!)) {
      code = code * (hex ? 16 : 10) + parseInt(s[end]!, 16)
      end++
      if (code > 0x10ffff) break
    }
    if (code === 0 || code >= 0x10ffff || end - at >= 10 || (code >= 0xd800 && code <= 0xdfff)) return undefined
  } else {
    while (end < s.length && /[A-Za-z]/.test(s[end]!)) end++
    const name = s.slice(at + 1, end)
    const known: Record<string, number> = { lt: 60, gt: 62, amp: 38, quot: 34 }
    if (known[name] === undefined) return undefined
    code = known[name]
  }
  if (s[end] === ';') end++
  return { char: String.fromCodePoint(code), end }
}

interface OpenTag {
  tag: string
  argument: string
  start: number
}

export function parseHtml(input: string): FormattedText {
  let text = ''
  const entities: MessageEntity[] = []
  const open: OpenTag[] = []
  const fail = (message: string): never => {
    throw new EntityParseError(message)
  }
  let i = 0
  while (i < input.length) {
    const c = input[i]!
    if (c === '&') {
      const decoded = htmlEntity(input, i)
      if (decoded) {
        text += decoded.char
        i = decoded.end
        continue
      }
    }
    if (c !== '<') {
      text += c
      i++
      continue
    }
    const begin = i
    const at = () => byteOffset(input, begin)
    i++
    if (input[i] !== '/') {
      while (i < input.length && !isSpace(input[i]) && input[i] !== '>') i++
      if (i >= input.length) fail(`Unclosed start tag at byte offset ${at()}`)
      const tag = input.slice(begin + 1, i).toLowerCase()
      if (!HTML_TAGS.has(tag)) fail(`Unsupported start tag "${tag}" at byte offset ${at()}`)
      let argument = ''
      while (input[i] !== '>') {
        while (i < input.length && isSpace(input[i])) i++
        if (input[i] === '>') break
        const nameStart = i
        while (i < input.length && !isSpace(input[i]) && !'=>/"\''.includes(input[i]!)) i++
        const name = input.slice(nameStart, i)
        if (name === '') fail(`Empty attribute name in the tag "${tag}" at byte offset ${at()}`)
        while (i < input.length && isSpace(input[i])) i++
        if (input[i] !== '=') {
          if (i >= input.length) fail(`Unclosed start tag "${tag}" at byte offset ${at()}`)
          if (tag === 'blockquote' && name === 'expandable') argument = '1'
          continue
        }
        i++
        while (i < input.length && isSpace(input[i])) i++
        if (i >= input.length) fail(`Unclosed start tag "${tag}" at byte offset ${at()}`)
        let value = ''
        if (input[i] !== '"' && input[i] !== "'") {
          const tokenStart = i
          while (i < input.length && /[A-Za-z0-9.-]/.test(input[i]!)) i++
          value = input.slice(tokenStart, i).toLowerCase()
          if (!isSpace(input[i]) && input[i] !== '>') fail(`Unexpected end of name token at byte offset ${byteOffset(input, tokenStart)}`)
        } else {
          const quote = input[i++]
          while (i < input.length && input[i] !== quote) {
            const decoded = input[i] === '&' ? htmlEntity(input, i) : undefined
            if (decoded) {
              value += decoded.char
              i = decoded.end
            } else {
              value += input[i++]
            }
          }
          if (input[i] === quote) i++
        }
        if (i >= input.length) fail(`Unclosed start tag at byte offset ${at()}`)
        if (tag === 'a' && name === 'href') argument = value
        else if (tag === 'code' && name === 'class' && value.startsWith('language-')) argument = value.slice(9)
        else if (tag === 'span' && name === 'class' && value.startsWith('tg-')) argument = value.slice(3)
        else if (tag === 'tg-emoji' && name === 'emoji-id') argument = value
        else if (tag === 'blockquote' && name === 'expandable') argument = '1'
      }
      if (tag === 'span' && argument !== 'spoiler') fail(`Tag "span" must have class "tg-spoiler" at byte offset ${at()}`)
      open.push({ tag, argument, start: text.length })
      i++
      continue
    }
    // an end tag
    if (open.length === 0) fail(`Unexpected end tag at byte offset ${at()}`)
    while (i < input.length && !isSpace(input[i]) && input[i] !== '>') i++
    const endName = input.slice(begin + 2, i).toLowerCase()
    while (i < input.length && isSpace(input[i])) i++
    if (input[i] !== '>') fail(`Unclosed end tag at byte offset ${at()}`)
    i++
    const top = open.pop()!
    if (endName !== '' && endName !== top.tag) {
      fail(`Unmatched end tag at byte offset ${at()}, expected "</${top.tag}>", found "</${endName}>"`)
    }
    if (text.length > top.start) htmlEntityFor(top, text, entities, fail)
  }
  if (open.length > 0) fail(`Can't find end tag corresponding to start tag "${open.at(-1)!.tag}"`)
  for (const e of entities) if (e.type === 'code') delete (e as { language?: string }).language
  return { text, entities: sortEntities(entities) }
}

function htmlEntityFor(top: OpenTag, text: string, entities: MessageEntity[], fail: (m: string) => never): void {
  const offset = top.start
  const length = text.length - offset
  const last = entities.at(-1) as (MessageEntity & { language?: string }) | undefined
  switch (top.tag) {
    case 'b':
    case 'strong':
      return void entities.push({ type: 'bold', offset, length })
    case 'i':
    case 'em':
      return void entities.push({ type: 'italic', offset, length })
    case 'u':
    case 'ins':
      return void entities.push({ type: 'underline', offset, length })
    case 's':
    case 'strike':
    case 'del':
      return void entities.push({ type: 'strikethrough', offset, length })
    case 'tg-spoiler':
    case 'span':
      return void entities.push({ type: 'spoiler', offset, length })
    case 'blockquote':
      return void entities.push({ type: top.argument ? 'expandable_blockquote' : 'blockquote', offset, length })
    case 'tg-emoji': {
      if (!/^\d{1,19}$/.test(top.argument) || /^0+$/.test(top.argument)) fail('Invalid custom emoji identifier specified')
      return void entities.push({ type: 'custom_emoji', offset, length, custom_emoji_id: top.argument })
    }
    case 'a': {
      const url = checkedLink(top.argument === '' ? text.slice(offset) : top.argument)
      if (url !== undefined) entities.push({ type: 'text_link', offset, length, url })
      return
    }
    case 'pre':
      if (last?.type === 'code' && last.offset === offset && last.length === length && last.language) {
        entities[entities.length - 1] = { type: 'pre', offset, length, language: last.language }
      } else {
        entities.push({ type: 'pre', offset, length })
      }
      return
    case 'code':
      if (last?.type === 'pre' && last.offset === offset && last.length === length && top.argument !== '') {
        entities[entities.length - 1] = { type: 'pre', offset, length, language: top.argument }
      } else {
        entities.push({ type: 'code', offset, length, ...(top.argument !== '' ? { language: top.argument } : {}) } as MessageEntity)
      }
  }
}

// ── MarkdownV2 ───────────────────────────────────────────────────────────

type MdType = 'Bold' | 'Italic' | 'Underline' | 'Strikethrough' | 'Spoiler' | 'Code' | 'Pre' | 'PreCode' | 'TextUrl' | 'CustomEmoji' | 'BlockQuote'

interface OpenMd {
  type: MdType
  argument: string
  /** Where its text starts in the output. */
  start: number
  /** Index of its opening character in the input. */
  at: number
}

const RESERVED = '_*[]()~`>#+-=|{}.!\n'

/**
 * Telegram's MarkdownV2. `legacy` reads the old `Markdown` mode well enough for display: the same markers,
 * without the reserved-character rule.
 */
export function parseMarkdownV2(input: string, legacy = false): FormattedText {
  let text = ''
  const entities: MessageEntity[] = []
  const open: OpenMd[] = []
  let inQuote = false
  let canStartQuote = true
  const fail = (message: string): never => {
    throw new EntityParseError(message)
  }
  const reserved = (c: string) => fail(`Character '${c}' is reserved and must be escaped with the preceding '\\'`)
  const cantFindEnd = (e: OpenMd) => fail(`Can't find end of ${e.type} entity at byte offset ${byteOffset(input, e.at)}`)

  for (let i = 0; i < input.length; i++) {
    const c = input[i]!
    const next = input[i + 1]
    if (c === '\\' && next !== undefined && next.charCodeAt(0) > 0 && next.charCodeAt(0) <= 126) {
      i++
      text += next
      if (next !== '\r') canStartQuote = next === '\n'
      continue
    }
    const top = open.at(-1)
    const special = top && (top.type === 'Code' || top.type === 'Pre' || top.type === 'PreCode') ? '`' : RESERVED
    if (!special.includes(c) || (legacy && !'_*[]`'.includes(c) && !(top && c === ')'))) {
      text += c
      if (c !== '\r') canStartQuote = false
      continue
    }
    const isEnd = (() => {
      if (!top) return false
      if (inQuote && c === '\n' && (i + 1 === input.length || next !== '>')) return true
      switch (top.type) {
        case 'Bold':
          return c === '*'
        case 'Italic':
          return c === '_' && next !== '_'
        case 'Underline':
          return c === '_' && next === '_'
        case 'Code':
          return c === '`'
        case 'Pre':
        case 'PreCode':
          return c === '`' && next === '`' && input[i + 2] === '`'
        case 'TextUrl':
        case 'CustomEmoji':
          return c === ']'
        case 'Strikethrough':
          return c === '~'
        case 'Spoiler':
          return c === '|' && next === '|'
        case 'BlockQuote':
          return false
      }
    })()
    if (!isEnd) {
      const at = i
      let type: MdType
      let argument = ''
      switch (c) {
        case '_':
          if (next === '_') {
            type = 'Underline'
            i++
          } else {
            type = 'Italic'
          }
          break
        case '*':
          type = 'Bold'
          break
        case '~':
          type = 'Strikethrough'
          break
        case '|':
          if (next !== '|') return reserved(c)
          i++
          type = 'Spoiler'
          break
        case '[':
          type = 'TextUrl'
          break
        case '`':
          if (next === '`' && input[i + 2] === '`') {
            i += 3
            type = 'Pre'
            let end = i
            while (end < input.length && !isSpace(input[end]) && input[end] !== '`') end++
            if (end !== i && end < input.length && input[end] !== '`') {
              type = 'PreCode'
              argument = input.slice(i, end)
              i = end
            }
            if (input[i] === '\n' || input[i] === '\r') {
              i += (input[i + 1] === '\n' || input[i + 1] === '\r') && input[i] !== input[i + 1] ? 2 : 1
            }
            i--
          } else {
            type = 'Code'
          }
          break
        case '!':
          if (next !== '[') return reserved(c)
          i++
          type = 'CustomEmoji'
          break
        case '\n':
          text += '\n'
          canStartQuote = true
          continue
        case '>':
          if (!canStartQuote) return reserved(c)
          if (inQuote) continue
          inQuote = true
          type = 'BlockQuote'
          break
        default:
          return reserved(c)
      }
      open.push({ type, argument, start: text.length, at })
      continue
    }

    // the end of the innermost entity
    let closing = top!
    let type: MessageEntity['type'] | undefined
    if (c === '\n' && closing.type !== 'BlockQuote') {
      // `||` right before the newline that ends a quote makes it expandable
      if (closing.type !== 'Spoiler' || closing.at !== i - 2) return cantFindEnd(closing)
      open.pop()
      closing = open.at(-1)!
      if (closing.type !== 'BlockQuote') return cantFindEnd(closing)
      type = 'expandable_blockquote'
    }
    let skip = text.length === closing.start
    const entity: Record<string, unknown> = {}
    switch (closing.type) {
      case 'Bold':
        type = 'bold'
        break
      case 'Italic':
        type = 'italic'
        break
      case 'Strikethrough':
        type = 'strikethrough'
        break
      case 'Code':
        type = 'code'
        break
      case 'Underline':
        type = 'underline'
        i++
        break
      case 'Spoiler':
        type = 'spoiler'
        i++
        break
      case 'Pre':
      case 'PreCode':
        type = 'pre'
        if (closing.type === 'PreCode') entity.language = closing.argument
        i += 2
        break
      case 'TextUrl': {
        let url: string
        if (input[i + 1] !== '(') {
          url = text.slice(closing.start)
        } else {
          i += 2
          const urlAt = i
          url = ''
          while (i < input.length && input[i] !== ')') {
            const n = input[i + 1]
            if (input[i] === '\\' && n !== undefined && n.charCodeAt(0) > 0 && n.charCodeAt(0) <= 126) {
              url += n
              i += 2
              continue
            }
            url += input[i++]
          }
          if (input[i] !== ')') fail(`Can't find end of a URL at byte offset ${byteOffset(input, urlAt)}`)
        }
        const checked = checkedLink(url)
        if (checked === undefined) skip = true
        else entity.url = checked
        type = 'text_link'
        break
      }
      case 'CustomEmoji': {
        if (input[i + 1] !== '(') fail('Custom emoji entity must contain a tg://emoji URL')
        i += 2
        const urlAt = i
        let url = ''
        while (i < input.length && input[i] !== ')') url += input[i++]
        if (input[i] !== ')') fail(`Can't find end of a custom emoji URL at byte offset ${byteOffset(input, urlAt)}`)
        const id = /^tg:\/\/emoji\?id=(\d{1,19})$/i.exec(url)?.[1]
        if (id === undefined) fail('Custom emoji entity must contain a tg://emoji URL')
        entity.custom_emoji_id = id
        type = 'custom_emoji'
        break
      }
      case 'BlockQuote':
        inQuote = false
        type ??= 'blockquote'
        skip = text.length === closing.start
        canStartQuote = true
        break
    }
    if (!skip) entities.push({ type, offset: closing.start, length: text.length - closing.start, ...entity } as MessageEntity)
    if (closing.type === 'BlockQuote') text += '\n'
    open.pop()
  }
  if (inQuote) {
    let type: MessageEntity['type'] = 'blockquote'
    const last = open.at(-1)
    if (last?.type === 'Spoiler' && last.at === input.length - 2) {
      open.pop()
      type = 'expandable_blockquote'
    }
    const quote = open.at(-1)
    if (quote?.type === 'BlockQuote') {
      if (text.length > quote.start) entities.push({ type, offset: quote.start, length: text.length - quote.start } as MessageEntity)
      open.pop()
    }
  }
  if (open.length > 0) cantFindEnd(open.at(-1)!)
  return { text, entities: sortEntities(entities) }
}

// ── entities found in plain text ─────────────────────────────────────────

const WORD = /[\p{L}\p{N}_]/u
const isWord = (c: string | undefined): boolean => c !== undefined && WORD.test(c)

/** Entities whose text is not searched for URLs, commands and the like. */
const OPAQUE = new Set(['code', 'pre', 'text_link', 'custom_emoji', 'text_mention', 'url', 'email', 'mention', 'bot_command', 'hashtag', 'cashtag'])

/** URLs, bot commands, mentions, hashtags, cashtags and e-mail addresses, outside code and links. */
export function findEntities(text: string, existing: readonly MessageEntity[] = []): MessageEntity[] {
  const found: MessageEntity[] = []
  const add = (type: MessageEntity['type'], offset: number, length: number) => {
    const end = offset + length
    for (const e of existing) if (OPAQUE.has(e.type) && e.offset < end && offset < e.offset + e.length) return
    for (const e of found) if (e.offset < end && offset < e.offset + e.length) return
    found.push({ type, offset, length } as MessageEntity)
  }
  for (const m of text.matchAll(/(?:https?|tg):\/\/[^\s<>"]+/giu)) {
    let url = m[0]
    while (/[.,;:!?'")\]]$/.test(url) && !(url.endsWith(')') && url.includes('('))) url = url.slice(0, -1)
    if (!isWord(text[m.index - 1])) add('url', m.index, url.length)
  }
  for (const m of text.matchAll(/[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}/g)) {
    if (!isWord(text[m.index - 1]) && text[m.index - 1] !== '/') add('email', m.index, m[0].length)
  }
  for (const m of text.matchAll(/\/[A-Za-z0-9_]{1,64}(?:@[A-Za-z0-9_]{3,32})?/g)) {
    const before = text[m.index - 1]
    const after = text[m.index + m[0].length]
    if (isWord(before) || before === '/' || before === '<' || before === '>') continue
    if (isWord(after) || after === '/' || after === '<' || after === '>') continue
    add('bot_command', m.index, m[0].length)
  }
  for (const m of text.matchAll(/@[A-Za-z0-9_]{5,32}/g)) {
    if (!isWord(text[m.index - 1]) && !isWord(text[m.index + m[0].length])) add('mention', m.index, m[0].length)
  }
  for (const m of text.matchAll(/#[\p{L}\p{N}_]{1,256}/gu)) {
    if (!isWord(text[m.index - 1]) && /\p{L}/u.test(m[0]) && text[m.index + m[0].length] !== '#') add('hashtag', m.index, m[0].length)
  }
  for (const m of text.matchAll(/\$[A-Z]{1,8}/g)) {
    if (!isWord(text[m.index - 1]) && text[m.index - 1] !== '$' && !isWord(text[m.index + m[0].length])) add('cashtag', m.index, m[0].length)
  }
  return found
}

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

/** By offset, the longer (outer) entity first. */
export function sortEntities(entities: MessageEntity[]): MessageEntity[] {
  return entities.sort((a, b) => a.offset - b.offset || b.length - a.length)
}
