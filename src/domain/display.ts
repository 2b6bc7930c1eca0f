import type { Delivery, Payment } from './types.js'

/**
 * Text from outside (descriptions, merchant names, URLs, a receiver's answer, file names) made safe to show.
 * Pure; used by the CLI, the server's console lines and the scenario reporters.
 *
 * A terminal obeys what it prints: ESC starts sequences that clear the screen, move the cursor, retitle the
 * window or set the clipboard (OSC 52); C1 controls (U+0080–U+009F) do the same on many terminals; CR and
 * line erasing overwrite what is already shown; bidi controls reorder the text after them. Each such
 * character is written out as a visible escape (`\x1b`, `\r`, `\u202e`), so a sequence loses its introducer
 * and everything else in it prints as plain text.
 */

/** C0, DEL, C1, the Arabic letter mark, LRM/RLM, line/paragraph separators, bidi embeddings and isolates. */
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/
const UNSAFE_ALL = new RegExp(UNSAFE.source, 'g')
const UNSAFE_ALL_BUT_LINES = /\r\n|[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/g

const NAMED: Readonly<Record<string, string>> = { '\t': '\\t', '\n': '\\n', '\r': '\\r' }

function escape(char: string): string {
  if (char === '\r\n') return '\n'
  const named = NAMED[char]
  if (named !== undefined) return named
  const code = char.charCodeAt(0)
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`
}

/**
 * `text` with every control character written out visibly. Single-line (the default: table cells, log
 * lines) escapes newlines and tabs too; `multiline` (a response body, an error message) keeps `\n` and `\t`
 * and turns `\r\n` into `\n`, escaping a lone `\r`.
 */
export function inert(text: string, options: { multiline?: boolean } = {}): string {
  if (!UNSAFE.test(text)) return text
  return text.replace(options.multiline ? UNSAFE_ALL_BUT_LINES : UNSAFE_ALL, escape)
}

/** The authority of a URL ends at the first of these (`\` for http and https). */
const AUTHORITY = /[^\s/\\?#]*/y

/**
 * Every `scheme://userinfo@` in `text` with its secret hidden: `user:pass@` → `user:***@`, and a userinfo
 * without a password (`token@`, often an API token) → `***@`. Linear in the length of `text`.
 */
export function maskCredentials(text: string): string {
  if (!text.includes('@')) return text
  let out = ''
  let done = 0
  let from = 0
  for (let at = text.indexOf('://'); at !== -1; at = text.indexOf('://', from)) {
    const start = at + 3
    AUTHORITY.lastIndex = start
    const authority = AUTHORITY.exec(text)?.[0] ?? ''
    // The last @ of the authority ends the userinfo, as URL parsers read it.
    const sign = authority.lastIndexOf('@')
    if (sign > 0) {
      out += text.slice(done, start) + maskUserinfo(authority.slice(0, sign))
      done = start + sign
    }
    from = start + authority.length
  }
  return out + text.slice(done)
}

function maskUserinfo(userinfo: string): string {
  const colon = userinfo.indexOf(':')
  return colon === -1 ? '***' : `${userinfo.slice(0, colon)}:***`
}

/** Untrusted text for a terminal: URL credentials masked, control characters written out. */
export function forTerminal(text: string, options: { multiline?: boolean } = {}): string {
  return inert(maskCredentials(text), options)
}

const UNSAFE_IN_JSON = /[\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/g

/**
 * JSON text (as JSON.stringify writes it, which already escapes C0) with DEL, C1 and bidi controls escaped
 * too (`\u009b`): the same data, safe to print.
 */
export function inertJson(json: string): string {
  return json.replace(UNSAFE_IN_JSON, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)
}

/** A delivery as shown (and as `pay callback list --json` writes it): credentials in its URL masked. */
export function shownDelivery(d: Delivery): Delivery {
  return {
    ...d,
    url: maskCredentials(d.url),
    attempts: d.attempts.map((a) => (a.error === undefined ? a : { ...a, error: maskCredentials(a.error) })),
  }
}

/** A payment as shown: credentials in its callback and return URLs masked. */
export function shownPayment(p: Payment): Payment {
  return {
    ...p,
    callbackUrl: maskCredentials(p.callbackUrl),
    ...(p.returnUrl !== undefined ? { returnUrl: maskCredentials(p.returnUrl) } : {}),
  }
}
