import type { MessageEntity } from '@grammyjs/types'

/** Entities Telegram finds in plain text: URLs, bot commands, mentions, hashtags, cashtags, e-mail addresses. */

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
