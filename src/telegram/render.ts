import type { MessageEntity } from '@grammyjs/types'
import { html, raw, type SafeHtml } from '../pages/html.js'
import { checkedLink } from './entities-shared.js'

/** Entities drawn per message; text beyond them shows plain. */
const MAX_DRAWN_ENTITIES = 200

const TAGS: Partial<Record<MessageEntity['type'], [string, string]>> = {
  bold: ['<strong>', '</strong>'],
  italic: ['<em>', '</em>'],
  underline: ['<u>', '</u>'],
  strikethrough: ['<s>', '</s>'],
  spoiler: ['<span class="spoiler" title="spoiler">', '</span>'],
  code: ['<code>', '</code>'],
  pre: ['<code class="pre">', '</code>'],
  blockquote: ['<span class="quote">', '</span>'],
  expandable_blockquote: ['<span class="quote">', '</span>'],
  mention: ['<span class="ent">', '</span>'],
  hashtag: ['<span class="ent">', '</span>'],
  cashtag: ['<span class="ent">', '</span>'],
  bot_command: ['<span class="ent">', '</span>'],
  custom_emoji: ['<span>', '</span>'],
}

/** Where a link entity points, if it may be a link on the page at all (http, https, tg; e-mail as mailto). */
function linkOf(entity: MessageEntity, text: string): string | undefined {
  if (entity.type === 'text_link') return checkedLink(entity.url)
  const covered = text.slice(entity.offset, entity.offset + entity.length)
  if (entity.type === 'url') return checkedLink(covered)
  if (entity.type === 'email' && /^[^\s@<>"]+@[^\s@<>"]+$/.test(covered)) return `mailto:${covered}`
  return undefined
}

/**
 * A message's text with its entities drawn as formatting, built only from escaped text and our own tags: the
 * bot's markup never reaches the page as markup. Entities that overlap are drawn segment by segment, so the
 * result is always well nested; entities outside the text are ignored.
 */
export function renderFormatted(text: string, entities: readonly MessageEntity[] = []): SafeHtml {
  const usable = entities
    .filter((e) => Number.isInteger(e.offset) && Number.isInteger(e.length) && e.offset >= 0 && e.length > 0 && e.offset < text.length)
    .slice(0, MAX_DRAWN_ENTITIES)
    .map((e) => ({ entity: e, start: e.offset, end: Math.min(text.length, e.offset + e.length), href: linkOf(e, text) }))
  const cuts = new Set([0, text.length])
  for (const u of usable) cuts.add(u.start).add(u.end)
  const points = [...cuts].sort((a, b) => a - b)
  const parts: SafeHtml[] = []
  for (let i = 0; i + 1 < points.length; i++) {
    const from = points[i]!
    const to = points[i + 1]!
    const active = usable.filter((u) => u.start <= from && u.end >= to)
    let open = ''
    let close = ''
    for (const u of active) {
      if (u.href !== undefined) {
        open += html`<a href="${u.href}" target="_blank" rel="noopener noreferrer nofollow">`.value
        close = `</a>${close}`
        continue
      }
      const tags = TAGS[u.entity.type]
      if (!tags) continue
      open += tags[0]
      close = tags[1] + close
    }
    parts.push(raw(open + html`${text.slice(from, to)}`.value + close))
  }
  return html`${parts}`
}
