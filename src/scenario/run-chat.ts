import type { MessageEntity } from '@grammyjs/types'
import { SandboxApiError, type ChatBot, type ChatMessage, type SandboxClient } from '../client/index.js'
import { checkoutTrackId } from '../domain/checkout-url.js'
import { inert } from '../domain/display.js'
import { formatDuration } from '../domain/duration.js'
import { PatternTimeout, patternRegExp, shownPattern, timedExec } from './pattern.js'
import { Unmet } from './run-lab.js'
import type { Json, Lookup } from './template.js'
import type { ChatStep, Scenario } from './types.js'

/** Messages and characters of each a failed expect quotes. */
const SHOWN_MESSAGES = 5
const SHOWN_CHARS = 120

/** What a chat step did, for the report, and what its `as` binds. */
export interface ChatOutcome {
  detail: string
  bound?: Record<string, unknown>
}

/**
 * The customer's side of a bot conversation. An expect step looks at the bot's messages in that chat after a
 * cursor: the scenario's last send or press there, or the message the previous expect there matched, whichever
 * came later; before the first of them, the chat's newest message when the scenario first spoke of that chat.
 */
export class ChatSteps {
  /** Per bot id and chat: the message id an expect looks after. */
  private readonly cursors = new Map<string, number>()

  constructor(
    private readonly client: SandboxClient,
    private readonly pollMs: number,
    private readonly resolve: (value: Json) => unknown,
    private readonly lookup: Lookup,
  ) {}

  async step(step: ChatStep): Promise<ChatOutcome> {
    const where = { ...(step.bot !== undefined ? { bot: step.bot } : {}), chat: step.chat }
    try {
      if ('send' in step.action) {
        const text = String(this.resolve(step.action.send))
        const sent = await this.client.chatSend({ ...where, text })
        this.cursors.set(key(sent.bot.id, sent.chat), sent.message.messageId)
        return { detail: `sent as message #${sent.message.messageId}`, bound: { text: sent.message.text, messageId: sent.message.messageId } }
      }
      if ('press' in step.action) {
        const messageId = step.action.message === undefined ? undefined : this.messageId(step.action.message)
        // The newest message before the press: what the bot answers with comes after it.
        const before = await this.client.chatMessages({ ...where, limit: 1 })
        const pressed = await this.client.chatPress({ ...where, button: step.action.press, ...(messageId !== undefined ? { messageId } : {}) })
        this.cursors.set(key(before.bot.id, before.chat), pressed.kind === 'text' ? pressed.message.messageId : (before.messages.at(-1)?.messageId ?? 0))
        if (pressed.kind === 'url') {
          const trackId = checkoutTrackId(pressed.url)
          return { detail: `URL button: ${pressed.url}`, bound: { url: pressed.url, ...(trackId !== undefined ? { trackId } : {}) } }
        }
        if (pressed.kind === 'callback') return { detail: `callback_data ${JSON.stringify(pressed.data)} sent to the bot`, bound: { data: pressed.data } }
        return { detail: `keyboard button: sent as message #${pressed.message.messageId}`, bound: {} }
      }
      return await this.expect(step, where, step.action.expect, step.action.within)
    } catch (error) {
      // The sandbox's refusal (no such button, bot or chat) is the customer's expectation not met.
      if (error instanceof SandboxApiError) throw new Unmet(`the sandbox refused: ${error.message}`)
      throw error
    }
  }

  private async expect(step: ChatStep, where: { bot?: string; chat: number }, pattern: string, within: number): Promise<ChatOutcome> {
    const regex = patternRegExp(pattern, this.lookup)
    const deadline = performance.now() + within
    let cursor: number | undefined
    let seen: ChatMessage[] = []
    let bot = step.bot ?? 'the bot'
    for (;;) {
      const page = await this.client.chatMessages({ ...where, ...(cursor !== undefined ? { after: cursor } : { limit: 1 }) })
      bot = `@${page.bot.username}`
      const chatKey = key(page.bot.id, page.chat)
      if (cursor === undefined) {
        if (!this.cursors.has(chatKey)) this.cursors.set(chatKey, page.messages.at(-1)?.messageId ?? 0)
        cursor = this.cursors.get(chatKey)!
        continue
      }
      seen = page.messages.filter((m) => m.from === 'bot' && !m.deleted)
      const found = seen.find((m) => this.matches(regex, shownText(m)))
      if (found) {
        this.cursors.set(chatKey, found.messageId)
        return { detail: `#${found.messageId} ${quote(shownText(found))}`, bound: bindings(found) }
      }
      if (performance.now() >= deadline) break
      await new Promise((r) => setTimeout(r, this.pollMs))
    }
    const shown = seen.slice(-SHOWN_MESSAGES).map((m) => `#${m.messageId} ${quote(shownText(m))}`)
    throw new Unmet(
      `no message from ${bot} in chat ${where.chat} matching ${shownPattern(pattern)} within ${formatDuration(within)}; ${
        seen.length === 0
          ? `the bot sent nothing after message #${cursor}`
          : `the bot sent${seen.length > SHOWN_MESSAGES ? ` ${seen.length} messages, the last ${SHOWN_MESSAGES}` : ''}: ${shown.join(', ')}`
      }`,
    )
  }

  /** Runs the pattern with a time limit: a scenario file is not trusted to hold a pattern that ends. */
  private matches(pattern: RegExp, text: string): boolean {
    try {
      return timedExec(pattern, text, 'a message') !== null
    } catch (error) {
      if (error instanceof PatternTimeout) throw new Unmet(error.message)
      throw error
    }
  }

  private messageId(value: Json): number {
    const resolved = this.resolve(value)
    const id = typeof resolved === 'string' && /^\d+$/.test(resolved) ? Number(resolved) : resolved
    if (typeof id !== 'number' || !Number.isSafeInteger(id) || id < 1) throw new Unmet(`message must be a message id, got ${JSON.stringify(resolved)}`)
    return id
  }
}

function key(botId: number, chat: number): string {
  return `${botId}:${chat}`
}

function shownText(m: ChatMessage): string {
  return m.text ?? m.caption ?? ''
}

function quote(text: string): string {
  const cut = text.length > SHOWN_CHARS ? `${text.slice(0, SHOWN_CHARS - 1)}…` : text
  return `"${inert(cut)}"`
}

/** ${as.text}, ${as.messageId}, ${as.url} (the first URL button) and ${as.trackId} (a checkout URL in a button or the text). */
function bindings(m: ChatMessage): Record<string, unknown> {
  const buttons = m.replyMarkup && 'inline_keyboard' in m.replyMarkup ? m.replyMarkup.inline_keyboard.flat() : []
  const buttonUrls = buttons.flatMap((b) => ('url' in b && b.url ? [b.url] : []))
  const text = shownText(m)
  const entities: MessageEntity[] = [...(m.entities ?? []), ...(m.captionEntities ?? [])]
  const textUrls = [
    ...entities.flatMap((e) => (e.type === 'text_link' ? [e.url] : e.type === 'url' ? [text.slice(e.offset, e.offset + e.length)] : [])),
    ...(text.match(/https?:\/\/[^\s<>"]+/g) ?? []),
  ]
  const trackId = [...buttonUrls, ...textUrls].map(checkoutTrackId).find((t) => t !== undefined)
  return { text, messageId: m.messageId, ...(buttonUrls[0] !== undefined ? { url: buttonUrls[0] } : {}), ...(trackId !== undefined ? { trackId } : {}) }
}

/**
 * Chat steps whose bot the sandbox does not know, or that name none while the sandbox has not exactly one: found
 * before anything runs, as file problems (`file:line:col: step N (chat) › chat.bot: …`).
 */
export function botProblems(scenarios: Scenario[], bots: ChatBot[]): string[] {
  const known = bots.length === 0 ? 'none yet: a bot appears once it calls the Bot API at /telegram, or with `pay chat bot add`' : bots.map((b) => `@${b.username}`).join(', ')
  const problems: string[] = []
  for (const step of scenarios.flatMap((s) => s.steps)) {
    if (step.kind !== 'chat') continue
    if (step.bot === undefined) {
      if (bots.length !== 1) problems.push(`${step.where}: names no "bot", and the sandbox has ${bots.length === 0 ? 'no bot' : 'several'}; bots: ${known}`)
      continue
    }
    const ref = step.bot
    const name = ref.replace(/^@/, '').toLowerCase()
    if (bots.some((b) => b.token === ref || String(b.id) === ref || b.username.toLowerCase() === name)) continue
    problems.push(`${step.where}: the sandbox knows no bot ${shownBot(ref)}; bots: ${known}`)
  }
  return problems
}

/** A bot as reports name it: a token's secret is never shown. */
export function shownBot(ref: string): string {
  return ref.includes(':') ? `${ref.slice(0, ref.indexOf(':'))}:***` : JSON.stringify(ref)
}
