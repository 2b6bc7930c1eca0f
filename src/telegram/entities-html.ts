import type { MessageEntity } from '@grammyjs/types'
import { byteOffset, checkedLink, EntityParseError, type FormattedText, isSpace, sortEntities } from './entities-shared.js'

/** Telegram's HTML parse_mode: tags and character references read into plain text and entities. */

const HTML_TAGS = new Set([
  'a', 'b', 'strong', 'i', 'em', 's', 'strike', 'del', 'u', 'ins', 'tg-spoiler', 'tg-emoji', 'span', 'pre', 'code',
  'blockquote',
])

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
