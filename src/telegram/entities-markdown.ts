import type { MessageEntity } from '@grammyjs/types'
import { byteOffset, checkedLink, EntityParseError, type FormattedText, isSpace, sortEntities } from './entities-shared.js'

/** Telegram's MarkdownV2 parse_mode (and the old Markdown, read with it): markers read into plain text and entities. */

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
