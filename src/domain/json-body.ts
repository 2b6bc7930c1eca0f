import { isUtf8 } from 'node:buffer'
import type { RequestErrorKind } from './outcomes.js'

/**
 * How a JSON request body's bytes become text. JSON travels as UTF-8 (RFC 8259); what production does with
 * anything else is unknown, so the sandbox refuses it clearly rather than guess: code that works against the
 * sandbox then sends what any server reads. Never decoded with replacement characters.
 */

export interface BodyRefusal {
  kind: Extract<RequestErrorKind, 'unsupportedMediaType' | 'invalidJson'>
  message: string
}

/** A Content-Encoding other than identity: the body is compressed, and the sandbox does not inflate it. */
export function judgeContentEncoding(header: string | undefined): BodyRefusal | undefined {
  if (header === undefined) return undefined
  const codings = header.split(',').map((c) => c.trim().toLowerCase())
  if (codings.every((c) => c === '' || c === 'identity')) return undefined
  return {
    kind: 'unsupportedMediaType',
    message: `Content-Encoding ${header} is not supported; send the JSON body uncompressed`,
  }
}

/** The `charset` parameter of a Content-Type, lower-cased and unquoted; undefined when there is none. */
export function charsetOf(contentType: string | undefined): string | undefined {
  const m = /;\s*charset\s*=\s*(?:"([^"]*)"|([^;\s]*))/i.exec(contentType ?? '')
  return m ? (m[1] ?? m[2] ?? '').toLowerCase() : undefined
}

/** The body's text, or why it is refused: a charset other than UTF-8, bytes that are not UTF-8, a byte order mark. */
export function decodeJsonBody(bytes: Buffer, contentType: string | undefined): { text: string } | BodyRefusal {
  const charset = charsetOf(contentType)
  if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8') {
    return {
      kind: 'unsupportedMediaType',
      message: `charset ${charset} is not supported; send the JSON body as UTF-8 (Content-Type: application/json or application/json; charset=utf-8)`,
    }
  }
  if (!isUtf8(bytes)) {
    return {
      kind: 'invalidJson',
      message: 'request body is not valid UTF-8 (Latin-1 or UTF-16 text?); send the JSON body as UTF-8',
    }
  }
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) {
    return {
      kind: 'invalidJson',
      message: 'request body starts with a UTF-8 byte order mark (EF BB BF); send the JSON without it (RFC 8259: senders must not add one)',
    }
  }
  return { text: bytes.toString('utf8') }
}
