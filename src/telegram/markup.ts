import { isIP } from 'node:net'
import type { InlineKeyboardButton, InlineKeyboardMarkup, KeyboardButton, ReplyKeyboardMarkup } from '@grammyjs/types'
import type { Markup } from '../domain/telegram-records.js'
import { badRequest } from './errors.js'

/** At most this many buttons in one markup; more is Telegram's `reply markup is too long`. */
export const MAX_BUTTONS = 100
const MAX_CALLBACK_DATA_BYTES = 64

type Json = Record<string, unknown>
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v)

/** Reads a field the way the Bot API server's JSON reader does, with its wording when the type is wrong. */
function field(o: Json, name: string, type: 'String' | 'Boolean', required: boolean): string | boolean | undefined {
  const v = o[name]
  if (v === undefined || v === null) {
    if (required) throw new Error(`Can't find field "${name}"`)
    return undefined
  }
  if (type === 'String') {
    if (typeof v === 'string') return v
    if (typeof v === 'number') return String(v)
  } else if (typeof v === 'boolean') {
    return v
  }
  throw new Error(`Field "${name}" must be of type ${type}`)
}

/** What the emulator takes beyond Telegram's rules, for local testing. */
export interface MarkupRules {
  /** URL buttons may lead to loopback addresses and dot-less names (`--telegram-allow-local-urls`). */
  allowLocalUrls?: boolean
}

/** Why Telegram refuses a URL in an inline button, or undefined when it takes it (or the rules allow it locally). */
export function buttonUrlProblem(url: string, rules: MarkupRules = {}): string | undefined {
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    return /^[a-z][a-z0-9+.-]*:/i.test(url) ? 'Unsupported URL protocol' : 'Wrong HTTP URL'
  }
  if (parsed.protocol === 'tg:') return undefined
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return 'Unsupported URL protocol'
  const host = parsed.hostname.replace(/^\[|\]$/g, '').toLowerCase()
  if (host === '') return 'Wrong HTTP URL'
  if (rules.allowLocalUrls) return undefined
  // Telegram's servers open the link for the user: names without a dot and loopback addresses lead nowhere.
  if (host === 'localhost' || host.endsWith('.localhost')) return 'Wrong HTTP URL'
  if (isIP(host) === 4 && (host.startsWith('127.') || host === '0.0.0.0')) return 'Wrong HTTP URL'
  if (isIP(host) === 6 && (host === '::1' || host === '::')) return 'Wrong HTTP URL'
  if (isIP(host) === 0 && !host.includes('.')) return 'Wrong HTTP URL'
  return undefined
}

function inlineButton(value: unknown, rules: MarkupRules): InlineKeyboardButton {
  if (!isObject(value)) throw new Error('InlineKeyboardButton must be an Object')
  const text = field(value, 'text', 'String', true) as string
  const url = field(value, 'url', 'String', false) as string | undefined
  if (url) {
    const problem = buttonUrlProblem(url, rules)
    if (problem) throw badRequest(`inline keyboard button URL '${url}' is invalid: ${problem}`)
    return { text, url }
  }
  const data = field(value, 'callback_data', 'String', false) as string | undefined
  if (data) {
    if (Buffer.byteLength(data) > MAX_CALLBACK_DATA_BYTES) throw badRequest('BUTTON_DATA_INVALID')
    return { text, callback_data: data }
  }
  // Kept and shown, but not emulated: they need Telegram's own apps or other chats.
  for (const kind of ['web_app', 'login_url', 'switch_inline_query', 'switch_inline_query_current_chat', 'switch_inline_query_chosen_chat', 'copy_text', 'callback_game', 'pay']) {
    if (value[kind] !== undefined) return { text, [kind]: value[kind] } as unknown as InlineKeyboardButton
  }
  throw new Error('Text buttons are unallowed in the inline keyboard')
}

function keyboardButton(value: unknown): KeyboardButton {
  if (typeof value === 'string') return { text: value }
  if (!isObject(value)) throw new Error('KeyboardButton must be a String or an Object')
  return { text: field(value, 'text', 'String', true) as string }
}

function rows<T>(value: unknown, arrayError: string, parse: (v: unknown) => T, parseError: string): T[][] {
  if (!Array.isArray(value)) throw badRequest(arrayError)
  return value.map((row) => {
    if (!Array.isArray(row)) throw badRequest(arrayError)
    return row.map((button) => {
      try {
        return parse(button)
      } catch (error) {
        if (error instanceof Error && error.name === 'BotApiError') throw error
        throw badRequest(`${parseError}: ${(error as Error).message}`)
      }
    })
  })
}

/**
 * Checks a `reply_markup` value (already JSON-decoded) with the Bot API server's rules and wording; undefined
 * when it asks for nothing. `inlineOnly` for edits, which take only inline keyboards.
 */
export function parseMarkup(value: unknown, rules: MarkupRules = {}): Markup | undefined {
  if (value === undefined) return undefined
  if (!isObject(value)) throw badRequest('Object expected as reply markup')
  let markup: Markup | undefined
  let count = 0
  try {
    if (value.keyboard !== undefined && value.keyboard !== null) {
      const keyboard = rows(value.keyboard, 'Field "keyboard" must be an Array of Arrays', keyboardButton, "Can't parse keyboard button")
      count = keyboard.flat().length
      if (count > 0) {
        const flags: Partial<ReplyKeyboardMarkup> = {}
        for (const flag of ['resize_keyboard', 'one_time_keyboard', 'is_persistent', 'selective'] as const) {
          if (field(value, flag, 'Boolean', false)) flags[flag] = true
        }
        const placeholder = field(value, 'input_field_placeholder', 'String', false) as string | undefined
        markup = { keyboard, ...flags, ...(placeholder ? { input_field_placeholder: placeholder } : {}) }
      }
    }
    if (!markup && value.inline_keyboard !== undefined && value.inline_keyboard !== null) {
      const inline = rows(
        value.inline_keyboard,
        'Field "inline_keyboard" of the InlineKeyboardMarkup must be an Array of Arrays',
        (button) => inlineButton(button, rules),
        "Can't parse inline keyboard button",
      )
      count = inline.flat().length
      if (count > 0) markup = { inline_keyboard: inline }
    }
    if (!markup && (field(value, 'remove_keyboard', 'Boolean', false) || field(value, 'hide_keyboard', 'Boolean', false))) {
      markup = { remove_keyboard: true }
    }
    if (!markup && field(value, 'force_reply', 'Boolean', false)) markup = { force_reply: true }
  } catch (error) {
    if (error instanceof Error && error.name !== 'BotApiError') throw badRequest(error.message)
    throw error
  }
  if (count > MAX_BUTTONS) throw badRequest('reply markup is too long')
  return markup
}

export function isInline(markup: Markup | undefined): markup is InlineKeyboardMarkup {
  return markup !== undefined && 'inline_keyboard' in markup
}
