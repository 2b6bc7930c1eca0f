import type { MessageEntity } from '@grammyjs/types'

/** What the parsers and formatText share: the formatted-text shape, the parse error, offsets, links, entity order. */

export interface FormattedText {
  text: string
  entities: MessageEntity[]
}

export class EntityParseError extends Error {}

/** Where `index` of `input` is in its UTF-8 bytes: the Bot API server's parse errors count bytes. */
export const byteOffset = (input: string, index: number): number => Buffer.byteLength(input.slice(0, index))

export const isSpace = (c: string | undefined): boolean => c === ' ' || c === '\t' || c === '\n' || c === '\r' || c === '\f' || c === '\v'

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

/** By offset, the longer (outer) entity first. */
export function sortEntities(entities: MessageEntity[]): MessageEntity[] {
  return entities.sort((a, b) => a.offset - b.offset || b.length - a.length)
}
