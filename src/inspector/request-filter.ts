import { nearest } from '../domain/nearest.js'
import type { RequestEntry } from './request-entry.js'

/**
 * Which requests to show, as the control API, the inspector's page and `pay logs tail --filter` say it. All
 * given fields must match.
 */
export interface RequestFilter {
  /** The path starts with this (`/api/v1` matches create and verify). */
  path?: string
  /** The method, upper case. */
  method?: string
  /** An HTTP status (`404`) or a class of them (`4xx`). */
  status?: string
  /** The spec's `result` the answer carried. */
  result?: number
  trackId?: string
}

export const FILTER_KEYS = ['path', 'method', 'status', 'result', 'trackId'] as const
export type FilterKey = (typeof FILTER_KEYS)[number]

const STATUS = /^[1-5](?:\d\d|xx)$/
const METHOD = /^[A-Z]{1,16}$/
const PATH_MAX = 512
const TRACK_ID_MAX = 200

/** Each key's rule, in words and as a JSON Schema for the routes' query strings. */
export const FILTER_RULES: Readonly<Record<FilterKey, { says: string; example: string }>> = {
  path: { says: `a path starting with / (matches the start of the request's path), at most ${PATH_MAX} characters`, example: 'path=/api/v1/verify' },
  method: { says: 'an HTTP method such as GET or POST', example: 'method=POST' },
  status: { says: 'an HTTP status such as 404, or a class such as 4xx', example: 'status=4xx' },
  result: { says: "a whole number: the spec's result code such as 100 or 203", example: 'result=203' },
  trackId: { says: `a trackId, at most ${TRACK_ID_MAX} characters`, example: 'trackId=Xq2w7Zb1Vh0Kc9LmN3pR4s' },
}

/** The query-string schema of every route that takes a filter. */
export const requestFilterProperties = {
  path: { type: 'string', pattern: '^/', maxLength: PATH_MAX, description: FILTER_RULES.path.says },
  method: { type: 'string', pattern: '^[A-Za-z]{1,16}$', description: FILTER_RULES.method.says },
  status: { type: 'string', pattern: '^[1-5]([0-9]{2}|[xX]{2})$', description: FILTER_RULES.status.says },
  result: { type: 'integer', minimum: 0, maximum: 999, description: FILTER_RULES.result.says },
  trackId: { type: 'string', minLength: 1, maxLength: TRACK_ID_MAX, description: FILTER_RULES.trackId.says },
} as const

/**
 * Reads one value of a filter key, as typed; a problem in words otherwise. Empty values are no filter: a form
 * submitted with a field left blank means "any".
 */
export function readFilterValue(key: FilterKey, text: string): { value: string | number | undefined } | { problem: string } {
  const value = text.trim()
  if (value === '') return { value: undefined }
  const bad = { problem: `${key} must be ${FILTER_RULES[key].says} (got ${JSON.stringify(text)})` }
  switch (key) {
    case 'path':
      return value.startsWith('/') && value.length <= PATH_MAX ? { value } : bad
    case 'method':
      return METHOD.test(value.toUpperCase()) ? { value: value.toUpperCase() } : bad
    case 'status':
      return STATUS.test(value.toLowerCase()) ? { value: value.toLowerCase() } : bad
    case 'result':
      return /^\d{1,3}$/.test(value) ? { value: Number(value) } : bad
    case 'trackId':
      return value.length <= TRACK_ID_MAX ? { value } : bad
  }
}

/** A filter from loose values (a query string, a form); the first problem in words otherwise. */
export function readFilter(values: Partial<Record<string, string | number | undefined>>): { filter: RequestFilter } | { problem: string } {
  const filter: RequestFilter = {}
  for (const key of FILTER_KEYS) {
    const given = values[key]
    if (given === undefined) continue
    const read = readFilterValue(key, String(given))
    if ('problem' in read) return read
    if (read.value !== undefined) (filter as Record<string, string | number>)[key] = read.value
  }
  return { filter }
}

/**
 * `key=value` items (`pay logs tail --filter status=4xx --filter path=/api`) as a filter. A key not known is named
 * with the closest one; a key given twice is a mistake, not an "or".
 */
export function parseFilterItems(items: readonly string[]): { filter: RequestFilter } | { problem: string } {
  const values: Record<string, string> = {}
  for (const item of items) {
    const eq = item.indexOf('=')
    if (eq <= 0) return { problem: `--filter takes key=value, e.g. ${FILTER_RULES.status.example} (got ${JSON.stringify(item)}); keys: ${FILTER_KEYS.join(', ')}` }
    const key = item.slice(0, eq).trim()
    if (!(FILTER_KEYS as readonly string[]).includes(key)) {
      const near = nearest(key, FILTER_KEYS)
      return { problem: `--filter ${JSON.stringify(key)} is not a filter key${near ? ` (did you mean ${near}?)` : ''}; keys: ${FILTER_KEYS.join(', ')}` }
    }
    if (key in values) return { problem: `--filter ${key} is given twice; give each key once` }
    if (item.slice(eq + 1).trim() === '') return { problem: `--filter ${key}= has no value; ${key} must be ${FILTER_RULES[key as FilterKey].says}` }
    const read = readFilterValue(key as FilterKey, item.slice(eq + 1))
    if ('problem' in read) return { problem: `--filter ${read.problem}` }
    values[key] = item.slice(eq + 1)
  }
  return readFilter(values)
}

/** `404` matches 404 only; `4xx` matches 400–499. */
export function statusMatches(status: number, pattern: string): boolean {
  const p = pattern.toLowerCase()
  return p.endsWith('xx') ? Math.floor(status / 100) === Number(p[0]) : status === Number(p)
}

export function matchesFilter(entry: RequestEntry, filter: RequestFilter): boolean {
  if (filter.path !== undefined && !entry.path.startsWith(filter.path)) return false
  if (filter.method !== undefined && entry.method !== filter.method) return false
  if (filter.status !== undefined && !statusMatches(entry.status, filter.status)) return false
  if (filter.result !== undefined && entry.result !== filter.result) return false
  // A trackId kept cut is only the start of one: it is no trackId a filter can name.
  if (filter.trackId !== undefined && (entry.trackId !== filter.trackId || entry.truncated?.trackId !== undefined)) return false
  return true
}

/** The filter as query-string fields. */
export function filterQuery(filter: RequestFilter): URLSearchParams {
  const query = new URLSearchParams()
  for (const key of FILTER_KEYS) if (filter[key] !== undefined) query.set(key, String(filter[key]))
  return query
}
