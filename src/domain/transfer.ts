import { brief } from './brief.js'
import { MERCHANT_KEY, MERCHANT_NAME_MAX } from './merchant.js'
import { paymentStatuses } from './payment.js'
import type { Delivery, Merchant, Payment } from './types.js'

/**
 * The file `pay sandbox export` writes and `pay sandbox import` reads: the whole state of a sandbox.
 * `version` changes only when a reader of the old shape could misread the new one.
 */
export const EXPORT_FORMAT = 'pay-sandbox-export'
export const EXPORT_VERSION = 1

export interface ExportFile {
  format: typeof EXPORT_FORMAT
  version: typeof EXPORT_VERSION
  exportedAt: string
  /** Version of the sandbox that wrote the file; informative only. */
  sandboxVersion: string
  merchants: Merchant[]
  payments: Payment[]
  deliveries: Delivery[]
}

export type ExportCheck =
  | { ok: true; file: ExportFile }
  | { ok: false; problems: string[] }

/** How many problems a failed check lists before it stops looking. */
const MAX_PROBLEMS = 10

type Json = Record<string, unknown>

/**
 * Checks a parsed export file: its envelope, every record's fields, and that records fit together
 * (unique keys and trackIds, payments of known merchants, deliveries of known payments).
 */
export function checkExportFile(data: unknown): ExportCheck {
  const problems: string[] = []
  const say = (text: string) => {
    if (problems.length < MAX_PROBLEMS) problems.push(text)
  }
  if (!isObject(data)) return { ok: false, problems: ['the file is not a JSON object'] }
  if (data.format !== EXPORT_FORMAT) say(`format must be "${EXPORT_FORMAT}" (got ${brief(data.format)})`)
  if (data.version !== EXPORT_VERSION) say(`version must be ${EXPORT_VERSION} (got ${brief(data.version)}); this sandbox reads version ${EXPORT_VERSION}`)
  for (const list of ['merchants', 'payments', 'deliveries'] as const) {
    if (!Array.isArray(data[list])) say(`${list} must be an array (got ${brief(data[list])})`)
  }
  if (problems.length > 0) return { ok: false, problems }

  const merchants = data.merchants as unknown[]
  const payments = data.payments as unknown[]
  const deliveries = data.deliveries as unknown[]
  const merchantKeys = new Set<string>()
  const trackIds = new Set<string>()
  const deliveryIds = new Set<string>()
  const refNumbers = new Set<string>()

  merchants.forEach((m, i) => {
    const at = `merchants[${i}]`
    if (!isObject(m)) return say(`${at} must be an object`)
    const f = new Fields(at, m, say)
    const key = f.string('key', { pattern: MERCHANT_KEY })
    f.string('name', { max: MERCHANT_NAME_MAX })
    f.boolean('enabled')
    f.time('createdAt')
    f.time('updatedAt')
    if (key !== undefined) {
      if (merchantKeys.has(key)) say(`${at}.key ${brief(key)} appears twice`)
      merchantKeys.add(key)
    }
  })

  payments.forEach((p, i) => {
    const at = `payments[${i}]`
    if (!isObject(p)) return say(`${at} must be an object`)
    const f = new Fields(at, p, say)
    const trackId = f.string('trackId', { max: 200 })
    const merchant = f.string('merchant')
    f.positive('amount')
    f.string('callbackUrl', { max: 512 })
    f.string('returnUrl', { max: 512, optional: true })
    f.string('description', { optional: true })
    f.string('mobile', { optional: true })
    const status = f.oneOf('status', paymentStatuses)
    f.positive('paidAmount', { optional: true })
    f.string('asset', { optional: true })
    const refNumber = f.string('refNumber', { optional: true })
    f.time('createdAt')
    f.time('updatedAt')
    if (trackId !== undefined) {
      if (trackIds.has(trackId)) say(`${at}.trackId ${brief(trackId)} appears twice`)
      trackIds.add(trackId)
    }
    if (merchant !== undefined && !merchantKeys.has(merchant)) say(`${at}.merchant ${brief(merchant)} is not one of the file's merchants`)
    if (refNumber !== undefined) {
      if (refNumbers.has(refNumber)) say(`${at}.refNumber ${brief(refNumber)} appears twice`)
      refNumbers.add(refNumber)
    }
    if (status === 'paid' && refNumber === undefined) say(`${at} is paid but has no refNumber`)
    if (!Array.isArray(p.history) || p.history.length === 0) return say(`${at}.history must be a non-empty array`)
    p.history.forEach((h, j) => {
      const hat = `${at}.history[${j}]`
      if (!isObject(h)) return say(`${hat} must be an object`)
      const hf = new Fields(hat, h, say)
      hf.oneOf('status', paymentStatuses)
      hf.time('at')
      hf.oneOf('source', ['api', 'checkout', 'control'] as const)
      hf.positive('paidAmount', { optional: true })
      hf.string('asset', { optional: true })
    })
    const last = p.history[p.history.length - 1]
    if (status !== undefined && isObject(last) && last.status !== status) {
      say(`${at}.status is ${status} but its last history entry is ${brief(last.status)}`)
    }
  })

  deliveries.forEach((d, i) => {
    const at = `deliveries[${i}]`
    if (!isObject(d)) return say(`${at} must be an object`)
    const f = new Fields(at, d, say)
    const id = f.string('id', { max: 200 })
    const trackId = f.string('trackId')
    f.string('url')
    f.string('event')
    f.object('body')
    const headers = f.object('headers')
    if (headers) for (const [k, v] of Object.entries(headers)) if (typeof v !== 'string') say(`${at}.headers.${k} must be a string`)
    f.oneOf('state', ['pending', 'delivered', 'failed'] as const)
    f.integer('maxRetries')
    f.time('nextAttemptAt', { optional: true })
    f.string('replayOf', { optional: true })
    f.time('createdAt')
    f.time('updatedAt')
    if (id !== undefined) {
      if (deliveryIds.has(id)) say(`${at}.id ${brief(id)} appears twice`)
      deliveryIds.add(id)
    }
    if (trackId !== undefined && !trackIds.has(trackId)) say(`${at}.trackId ${brief(trackId)} is not one of the file's payments`)
    if (!Array.isArray(d.attempts)) return say(`${at}.attempts must be an array`)
    d.attempts.forEach((a, j) => {
      const aat = `${at}.attempts[${j}]`
      if (!isObject(a)) return say(`${aat} must be an object`)
      const af = new Fields(aat, a, say)
      af.integer('attempt')
      af.time('at')
      af.number('durationMs')
      af.integer('status', { optional: true })
      af.string('responseExcerpt', { optional: true, empty: true })
      af.string('error', { optional: true, empty: true })
    })
  })

  if (problems.length > 0) return { ok: false, problems }
  return { ok: true, file: data as unknown as ExportFile }
}

/** Reads the fields of one record, reporting each problem with the record's path. */
class Fields {
  constructor(
    private readonly at: string,
    private readonly record: Json,
    private readonly say: (text: string) => void,
  ) {}

  private value(name: string, optional: boolean | undefined): { present: boolean; value: unknown } {
    const value = this.record[name]
    if (value === undefined) {
      if (!optional) this.say(`${this.at}.${name} is missing`)
      return { present: false, value }
    }
    return { present: true, value }
  }

  private wrong(name: string, what: string, value: unknown): undefined {
    this.say(`${this.at}.${name} must be ${what} (got ${brief(value)})`)
    return undefined
  }

  string(name: string, o: { max?: number; optional?: boolean; pattern?: RegExp; empty?: boolean } = {}): string | undefined {
    const { present, value } = this.value(name, o.optional)
    if (!present) return undefined
    if (typeof value !== 'string' || (value === '' && !o.empty)) return this.wrong(name, 'a non-empty string', value)
    if (o.max !== undefined && value.length > o.max) return this.wrong(name, `at most ${o.max} characters`, `${value.length} characters`)
    if (o.pattern && !o.pattern.test(value)) return this.wrong(name, `a string matching ${o.pattern}`, value)
    return value
  }

  boolean(name: string): boolean | undefined {
    const { present, value } = this.value(name, false)
    if (!present) return undefined
    return typeof value === 'boolean' ? value : this.wrong(name, 'true or false', value)
  }

  number(name: string, o: { optional?: boolean } = {}): number | undefined {
    const { present, value } = this.value(name, o.optional)
    if (!present) return undefined
    return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : this.wrong(name, 'a number ≥ 0', value)
  }

  positive(name: string, o: { optional?: boolean } = {}): number | undefined {
    const { present, value } = this.value(name, o.optional)
    if (!present) return undefined
    return typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : this.wrong(name, 'a number greater than 0', value)
  }

  integer(name: string, o: { optional?: boolean } = {}): number | undefined {
    const { present, value } = this.value(name, o.optional)
    if (!present) return undefined
    return Number.isInteger(value) && (value as number) >= 0 ? (value as number) : this.wrong(name, 'an integer ≥ 0', value)
  }

  time(name: string, o: { optional?: boolean } = {}): string | undefined {
    const { present, value } = this.value(name, o.optional)
    if (!present) return undefined
    if (typeof value !== 'string' || !/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/.test(value) || Number.isNaN(Date.parse(value))) {
      return this.wrong(name, 'an ISO-8601 time such as 2026-01-31T12:00:00.000Z', value)
    }
    return value
  }

  oneOf<T extends string>(name: string, values: readonly T[]): T | undefined {
    const { present, value } = this.value(name, false)
    if (!present) return undefined
    return values.includes(value as T) ? (value as T) : this.wrong(name, `one of ${values.join(', ')}`, value)
  }

  object(name: string): Json | undefined {
    const { present, value } = this.value(name, false)
    if (!present) return undefined
    return isObject(value) ? value : this.wrong(name, 'an object', value)
  }
}

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

