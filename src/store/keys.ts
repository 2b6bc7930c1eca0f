import type { Change } from './changes.js'

/**
 * Kinds of records a change writes one of, each with its own ids. A unit's expectations name records by
 * `<kind>:<id>` (see engine.ts).
 */
export type RecordKind = 'merchant' | 'payment' | 'delivery' | 'clock' | 'tg-bot' | 'tg-chat' | 'tg-msg' | 'tg-update' | 'tg-file'

export interface RecordKey {
  kind: RecordKind
  id: string
}

/** Kinds a reset clears (merchants, bots and the clock stay). */
export const RESET_KINDS: readonly RecordKind[] = ['payment', 'delivery', 'tg-chat', 'tg-msg', 'tg-update', 'tg-file']
/** Kinds an import replaces (the emulator's records and the clock stay). */
export const REPLACE_KINDS: readonly RecordKind[] = ['merchant', 'payment', 'delivery']

/**
 * The record a change writes (or removes), if it writes one. Changes that write none never conflict: an observed
 * verify, a confirmation of updates (it only moves forward), a reset and an import (they apply whatever came before).
 */
export function keyOf(change: Change): RecordKey | undefined {
  switch (change.k) {
    case 'merchant':
      return { kind: 'merchant', id: change.v.key }
    case 'payment':
      return { kind: 'payment', id: change.v.trackId }
    case 'delivery':
      return { kind: 'delivery', id: change.v.id }
    case 'clock':
      return { kind: 'clock', id: '' }
    case 'verify':
    case 'reset':
    case 'replace':
    case 'fault':
      return undefined
    case 'tg': {
      const c = change.v
      switch (c.t) {
        case 'bot':
          return { kind: 'tg-bot', id: String(c.v.id) }
        case 'chat':
          return { kind: 'tg-chat', id: `${c.v.botId}:${c.v.chatId}` }
        case 'message':
          return { kind: 'tg-msg', id: `${c.v.botId}:${c.v.chatId}:${c.v.messageId}` }
        case 'update':
          return { kind: 'tg-update', id: `${c.v.botId}:${c.v.update.update_id}` }
        case 'file':
          return { kind: 'tg-file', id: c.v.fileId }
        case 'unfile':
          return { kind: 'tg-file', id: c.fileId }
        case 'confirm':
        case 'drop':
          return undefined
      }
    }
  }
}

export function keyText(key: RecordKey): string {
  return `${key.kind}:${key.id}`
}
