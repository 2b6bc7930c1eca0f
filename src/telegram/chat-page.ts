import type { InlineKeyboardButton, KeyboardButton } from '@grammyjs/types'
import { html, type SafeHtml } from '../pages/html.js'
import { layout } from '../pages/layout.js'
import type { BotRecord, ChatRecord, Markup, MessageRecord } from '../domain/telegram-records.js'
import { isInline } from './markup.js'
import { renderFormatted } from './render.js'

/** The chat page's own styles, after the shared stylesheet. */
export const CHAT_STYLES = `
.chat{padding:.75rem;display:flex;flex-direction:column;gap:.5rem;max-height:65vh;overflow-y:auto}
.messages{list-style:none;margin:0;padding:0;display:flex;flex-direction:column;gap:.5rem}
.msg{max-width:85%;display:flex;flex-direction:column;gap:.35rem}
.msg.from-user{align-self:flex-end;align-items:flex-end}
.bubble{border-radius:12px;padding:.5rem .75rem;white-space:pre-wrap;overflow-wrap:anywhere;word-break:break-word;background:#eef2f7;border:1px solid #d0d4db;max-height:40rem;overflow-y:auto}
.from-user .bubble{background:#dbeafe;border-color:#93c5fd}
.meta-line{font-size:.75rem;color:#4b5260}
.bubble img{display:block;max-width:100%;height:auto;border-radius:8px;margin-bottom:.35rem;background:#fff}
.bubble code{background:#e5e7eb;border-radius:4px;padding:0 .2rem}
.bubble code.pre{display:block;padding:.4rem;white-space:pre-wrap}
.bubble .quote{border-left:3px solid #1d4ed8;padding-left:.4rem;display:inline-block}
.bubble .spoiler{background:#4b5260;color:#4b5260}
.bubble .spoiler:hover,.bubble .spoiler:focus{background:transparent;color:inherit}
.bubble .ent{color:#1d4ed8}
.inline-kb{display:grid;gap:.35rem;width:100%}
.kb-row{display:flex;gap:.35rem;flex-wrap:wrap}
.kb-row>*{flex:1 1 6rem;min-width:0;overflow-wrap:anywhere}
.inline-kb a.button,.inline-kb button{font-size:.9rem;padding:.35rem .6rem;min-height:40px;background:#fff;color:#1d4ed8}
.inline-kb .na{opacity:.6;cursor:not-allowed}
.composer{display:flex;gap:.5rem;align-items:stretch;margin:.75rem 0}
.composer input{flex:1 1 auto;min-width:0}
.reply-kb{display:grid;gap:.35rem;margin-bottom:.75rem}
.reply-kb button{background:#f9fafb;color:#16181d;border-color:#6b7280}
.commands{display:flex;flex-wrap:wrap;gap:.35rem;margin:0 0 .75rem;padding:0;list-style:none}
.commands button{font-size:.85rem;padding:.2rem .6rem;min-height:36px}
.toast{position:sticky;bottom:.5rem;background:#16181d;color:#fff;border-radius:8px;padding:.5rem .75rem;margin:.5rem 0}
.typing{font-style:italic;color:#4b5260;margin:0}
`.trim()

export interface ChatPageInput {
  bots: BotRecord[]
  bot?: BotRecord
  chats: ChatRecord[]
  chatId: number
  messages: MessageRecord[]
  keyboard?: Markup
}

/** Messages drawn on the page; older ones stay in the store (and in `pay chat messages`). */
export const PAGE_MESSAGES = 200

/** The chat page: play the customer of a bot in the Bot API emulator. */
export function chatPage(input: ChatPageInput): string {
  const { bot } = input
  const body = html`<h1>Chat${bot ? html` <span class="muted">with @${bot.username}</span>` : ''}</h1>
<p class="muted">Play the customer of a bot that uses this sandbox as its Telegram Bot API (<code>apiRoot</code> = this sandbox's URL + <code>/telegram</code>). Messages, buttons and photos appear here once the sandbox has saved them.</p>
${pickers(input)}
${bot ? conversation(input, bot) : noBot(input.bots.length)}`
  return layout({ title: bot ? `Chat with @${bot.username}` : 'Chat', body, ...(bot ? { script: 'chat' as const } : {}), styles: CHAT_STYLES })
}

function pickers(input: ChatPageInput): SafeHtml {
  if (input.bots.length === 0) return html``
  const chatIds = new Set([input.chatId, ...input.chats.map((c) => c.chatId)])
  return html`<form class="card filters" method="get" action="/chat" aria-label="Pick a bot and a chat">
<label>Bot<select name="bot">
${input.bots.map((b) => html`<option value="${String(b.id)}"${b.id === input.bot?.id ? html` selected` : ''}>@${b.username} (${String(b.id)})</option>`)}
</select></label>
<label>Chat (customer id)<input type="number" name="chat" min="1" step="1" value="${String(input.chatId)}" list="known-chats"></label>
<datalist id="known-chats">${[...chatIds].map((id) => html`<option value="${String(id)}">`)}</datalist>
<button type="submit">Open</button>
</form>`
}

function noBot(count: number): SafeHtml {
  return html`<section class="card"><h2>No bot ${count === 0 ? 'yet' : 'picked'}</h2>
<p>A bot appears here once it calls the Bot API of this sandbox (any well-formed token works), or with <code>pay chat bot add &lt;token&gt; --username &lt;name&gt;</code>.</p>
<p>grammY: <code>new Bot(token, { client: { apiRoot: '&lt;sandbox URL&gt;/telegram' } })</code>; telegraf: <code>new Telegraf(token, { telegram: { apiRoot: '&lt;sandbox URL&gt;/telegram/' } })</code>.</p>
</section>`
}

function conversation(input: ChatPageInput, bot: BotRecord): SafeHtml {
  const shown = input.messages.slice(-PAGE_MESSAGES)
  const hidden = input.messages.length - shown.length
  return html`<div id="chat-app" data-bot="${String(bot.id)}" data-chat="${String(input.chatId)}">
<section id="conversation" class="card chat" aria-label="Conversation" tabindex="0">
${hidden > 0 ? html`<p class="muted">${String(hidden)} older messages are not shown; <code>pay chat messages</code> lists them all.</p>` : ''}
${shown.length === 0 ? html`<p class="muted" id="empty">No messages yet. Send <code>/start</code> to begin.</p>` : ''}
<ol class="messages">${shown.map((m) => message(m))}</ol>
<p id="typing" class="typing" hidden></p>
</section>
<div id="toast" class="toast" role="status" aria-live="polite" hidden></div>
<noscript><p>Sending needs JavaScript; without it use <code>pay chat send &lt;text&gt; --bot ${bot.username} --chat ${String(input.chatId)}</code>.</p></noscript>
<form id="composer" class="composer" hidden data-js>
<label class="vh" for="text">Message</label>
<input id="text" name="text" type="text" maxlength="4096" autocomplete="off" placeholder="${placeholder(input.keyboard)}" required>
<button type="submit">Send</button>
</form>
<p id="error" class="error" role="alert" hidden></p>
<div id="keyboard">${replyKeyboard(input.keyboard)}</div>
${bot.commands?.length ? html`<ul class="commands" aria-label="Bot commands">${bot.commands.map((c) => html`<li><button type="button" class="secondary" data-send="/${c.command}" title="${c.description}">/${c.command}</button></li>`)}</ul>` : ''}
</div>`
}

function placeholder(keyboard: Markup | undefined): string {
  return keyboard && 'input_field_placeholder' in keyboard && keyboard.input_field_placeholder ? keyboard.input_field_placeholder : 'Message'
}

function message(m: MessageRecord): SafeHtml {
  const who = m.from === 'bot' ? 'bot' : 'user'
  const photo = m.photo?.at(-1)
  const time = new Date(m.date * 1000).toISOString().slice(11, 19)
  return html`<li class="msg from-${who}" id="m-${String(m.messageId)}" data-message-id="${String(m.messageId)}">
<div class="bubble">${photo ? html`<img src="/_sandbox/chat/files/${encodeURIComponent(photo.file_id)}" alt="Photo from the bot" width="${String(photo.width)}" height="${String(photo.height)}" loading="lazy">` : ''}${
    m.text !== undefined ? renderFormatted(m.text, m.entities) : m.caption !== undefined ? renderFormatted(m.caption, m.captionEntities) : ''
  }</div>
${isInline(m.replyMarkup) ? inlineKeyboard(m.replyMarkup.inline_keyboard, m.messageId) : ''}
<span class="meta-line">${who === 'bot' ? 'bot' : 'you'} · #${String(m.messageId)} · ${time} UTC${m.editDate !== undefined ? ' · edited' : ''}</span>
</li>`
}

function inlineKeyboard(rows: InlineKeyboardButton[][], messageId: number): SafeHtml {
  return html`<div class="inline-kb" role="group" aria-label="Buttons">${rows.map(
    (row) => html`<div class="kb-row">${row.map((b) => {
      if ('url' in b && b.url) return html`<a class="button secondary" href="${b.url}" target="_blank" rel="noopener noreferrer">${b.text} ↗</a>`
      if ('callback_data' in b) return html`<button type="button" class="secondary" data-press="${b.text}" data-message="${String(messageId)}">${b.text}</button>`
      return html`<button type="button" class="secondary na" disabled title="not emulated by the sandbox">${b.text}</button>`
    })}</div>`,
  )}</div>`
}

function replyKeyboard(keyboard: Markup | undefined): SafeHtml {
  if (!keyboard || !('keyboard' in keyboard)) return html``
  const label = (b: KeyboardButton) => (typeof b === 'string' ? b : b.text)
  return html`<div class="reply-kb" role="group" aria-label="Reply keyboard">${keyboard.keyboard.map(
    (row) => html`<div class="kb-row">${row.map((b) => html`<button type="button" data-send="${label(b)}">${label(b)}</button>`)}</div>`,
  )}</div>`
}
