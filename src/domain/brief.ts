import { inertJson } from './display.js'

/**
 * A value as a message quotes it: JSON, cut to 60 characters, or its kind for objects and arrays. Control and
 * bidi characters are escaped (`\\u202e`), so a quoted value cannot reorder or rewrite the text around it.
 */
export function brief(value: unknown): string {
  if (value === undefined) return 'nothing'
  if (Array.isArray(value)) return 'an array'
  if (value === null) return 'null'
  if (typeof value === 'object') return 'an object'
  const text = inertJson(JSON.stringify(value))
  return text.length > 60 ? `${text.slice(0, 57)}…` : text
}
