import { Ajv, type ErrorObject, type Format, type Options, type ValidateFunction } from 'ajv'
import { CALLBACK_EVENT, deliveryStates, EXCERPT_BYTES, MAX_RETRIES, notifiedStatuses, type Notification, REPLAY_URL_MAX } from './callback.js'
import { isDeliveryId, isRefNumber, isTrackId } from './ids.js'
import { brief } from './brief.js'
import { CLOCK_LATEST, CLOCK_LATEST_MS } from './clock-range.js'
import { deliveryFaultSchema, type DeliveryFault, MAX_COPIES } from './fault.js'
import { isMerchantKey, isStoredMerchantName, MERCHANT_KEY_RULE, MERCHANT_NAME_MAX } from './merchant.js'
import { AMOUNT_RULE, assetSchema, changeSources, isValidAmount, MAX_CONFIRMATIONS, paymentStatuses } from './payment.js'
import type { Delivery, DeliveryAttempt, Merchant, Payment, StatusChange } from './types.js'
import { charLength, isHeaderName, isHeaderValue, isTimestamp, isValidUrl, LIMITS } from './validate.js'

/**
 * The shape of the file `pay sandbox export` writes and `pay sandbox import` reads, stated once as a JSON
 * Schema. Every value is held to the rule the API applied when it made it (the formats below call the same
 * predicates); what a schema cannot say (references between records, uniqueness, status history) is checked
 * in transfer.ts.
 */
export const EXPORT_FORMAT = 'pay-sandbox-export'
export const EXPORT_VERSION = 1

/**
 * A rule whose answer is kept for the last few thousand values: a data file's payments repeat a few callback
 * URLs, and parsing a URL is the costliest check a record has.
 */
function remembered(rule: (value: string) => boolean): (value: string) => boolean {
  const known = new Map<string, boolean>()
  return (value) => {
    let answer = known.get(value)
    if (answer === undefined) {
      if (known.size >= 4096) known.clear()
      answer = rule(value)
      known.set(value, answer)
    }
    return answer
  }
}

/** Each format names one shared rule and says it in words for messages. */
const formats = {
  amount: { type: 'number', validate: (v: number) => isValidAmount(v), says: AMOUNT_RULE },
  timestamp: { type: 'string', validate: isTimestamp, says: 'a time as the sandbox writes it, such as 2026-01-31T12:00:00.000Z' },
  'track-id': { type: 'string', validate: isTrackId, says: 'a trackId: 22 letters, digits, - or _' },
  'ref-number': { type: 'string', validate: isRefNumber, says: 'a refNumber: 12 digits, the first not 0' },
  'delivery-id': { type: 'string', validate: isDeliveryId, says: 'a delivery id: dlv_ and 12 letters, digits, - or _' },
  'merchant-key': { type: 'string', validate: isMerchantKey, says: `a merchant key: ${MERCHANT_KEY_RULE}` },
  'merchant-name': {
    type: 'string',
    validate: isStoredMerchantName,
    says: `a merchant name: not empty, no white space at either end, at most ${MERCHANT_NAME_MAX} characters`,
  },
  'callback-url': {
    type: 'string',
    validate: remembered((v) => isValidUrl(v, LIMITS.callbackUrl)),
    says: `an absolute http or https URL without white space, at most ${LIMITS.callbackUrl} characters`,
  },
  'return-url': {
    type: 'string',
    validate: remembered((v) => isValidUrl(v, LIMITS.returnUrl)),
    says: `an absolute http or https URL without white space, at most ${LIMITS.returnUrl} characters`,
  },
  'delivery-url': {
    type: 'string',
    validate: remembered((v) => isValidUrl(v, REPLAY_URL_MAX)),
    says: `an absolute http or https URL without white space, at most ${REPLAY_URL_MAX} characters`,
  },
  'header-name': { type: 'string', validate: isHeaderName, says: "an HTTP header name (letters, digits and !#$%&'*+.^_`|~-)" },
  'header-value': { type: 'string', validate: isHeaderValue, says: 'safe in an HTTP header: visible ASCII, spaces and tabs only' },
  'clock-offset': {
    type: 'number',
    validate: (v: number) => v >= 0 && v <= CLOCK_LATEST_MS,
    says: `an offset from 0 to ${CLOCK_LATEST_MS} ms: the sandbox clock goes no later than ${CLOCK_LATEST}`,
  },
  'clock-time': {
    type: 'string',
    validate: (v: string) => isTimestamp(v) && v <= CLOCK_LATEST,
    says: `a time as the sandbox writes it, no later than ${CLOCK_LATEST}`,
  },
} as const
type FormatName = keyof typeof formats

/** Keys of T, each required once: a field added to a record type without a rule here fails to compile. */
export type FieldsOf<T> = { [K in keyof Required<T>]: object }

const str = (format: FormatName) => ({ type: 'string', format }) as const
const timestamp = str('timestamp')
const amount = { type: 'number', format: 'amount' } as const
const ref = (name: string) => ({ $ref: `#/$defs/${name}` }) as const

/** Longest attempt error kept; the sandbox's own are one line. */
const ATTEMPT_ERROR_MAX = 4096
/** An attempt lasts at most its timeout (60 s at most); a day is far beyond any. */
const ATTEMPT_DURATION_MAX_MS = 24 * 60 * 60 * 1000

const merchant = {
  type: 'object',
  properties: {
    key: str('merchant-key'),
    name: str('merchant-name'),
    enabled: { type: 'boolean' },
    createdAt: timestamp,
    updatedAt: timestamp,
  } satisfies FieldsOf<Merchant>,
  required: ['key', 'name', 'enabled', 'createdAt', 'updatedAt'],
  additionalProperties: false,
} as const

const statusChange = {
  type: 'object',
  properties: {
    status: { type: 'string', enum: paymentStatuses },
    at: timestamp,
    source: { type: 'string', enum: changeSources },
    paidAmount: amount,
    asset: assetSchema,
  } satisfies FieldsOf<StatusChange>,
  required: ['status', 'at', 'source'],
  additionalProperties: false,
} as const

const payment = {
  type: 'object',
  properties: {
    trackId: str('track-id'),
    merchant: str('merchant-key'),
    amount,
    callbackUrl: str('callback-url'),
    returnUrl: str('return-url'),
    description: { type: 'string', maxLength: LIMITS.description },
    mobile: { type: 'string', maxLength: LIMITS.mobile },
    status: { type: 'string', enum: paymentStatuses },
    paidAmount: amount,
    asset: assetSchema,
    refNumber: str('ref-number'),
    confirmations: { type: 'integer', minimum: 0, maximum: MAX_CONFIRMATIONS },
    confirmationsRequired: { type: 'integer', minimum: 1, maximum: MAX_CONFIRMATIONS },
    createdAt: timestamp,
    updatedAt: timestamp,
    // A payment moves at most through every status once.
    history: { type: 'array', minItems: 1, maxItems: paymentStatuses.length, items: ref('statusChange') },
  } satisfies FieldsOf<Payment>,
  required: ['trackId', 'merchant', 'amount', 'callbackUrl', 'status', 'createdAt', 'updatedAt', 'history'],
  additionalProperties: false,
} as const

/** The body exactly as `notificationOf` makes it; nothing else is ever sent. */
const notification = {
  type: 'object',
  properties: {
    event: { type: 'string', const: CALLBACK_EVENT },
    trackId: str('track-id'),
    status: { type: 'string', enum: notifiedStatuses },
    amount,
    paidAmount: amount,
    asset: assetSchema,
    occurredAt: timestamp,
    sandbox: { type: 'boolean', const: true },
  } satisfies FieldsOf<Notification>,
  required: ['event', 'trackId', 'status', 'amount', 'occurredAt', 'sandbox'],
  additionalProperties: false,
} as const

const attempt = {
  type: 'object',
  properties: {
    attempt: { type: 'integer', minimum: 1, maximum: MAX_RETRIES + MAX_COPIES },
    at: timestamp,
    durationMs: { type: 'number', minimum: 0, maximum: ATTEMPT_DURATION_MAX_MS },
    status: { type: 'integer', minimum: 100, maximum: 999 },
    // At most EXCERPT_BYTES bytes were read, and each byte decodes to at most one character.
    responseExcerpt: { type: 'string', maxLength: EXCERPT_BYTES },
    truncated: { type: 'boolean' },
    error: { type: 'string', maxLength: ATTEMPT_ERROR_MAX },
  } satisfies FieldsOf<DeliveryAttempt>,
  required: ['attempt', 'at', 'durationMs'],
  additionalProperties: false,
} as const

const delivery = {
  type: 'object',
  properties: {
    id: str('delivery-id'),
    trackId: str('track-id'),
    url: str('delivery-url'),
    event: { type: 'string', const: CALLBACK_EVENT },
    body: ref('notification'),
    // Sent as they are on every attempt: names and values must be safe in a request.
    headers: {
      type: 'object',
      maxProperties: 16,
      propertyNames: { type: 'string', maxLength: 64, format: 'header-name' },
      additionalProperties: { type: 'string', maxLength: 1024, format: 'header-value' },
    },
    state: { type: 'string', enum: deliveryStates },
    attempts: { type: 'array', maxItems: MAX_RETRIES + MAX_COPIES, items: ref('attempt') },
    maxRetries: { type: 'integer', minimum: 0, maximum: MAX_RETRIES },
    nextAttemptAt: timestamp,
    replayOf: str('delivery-id'),
    fault: ref('fault'),
    createdAt: timestamp,
    updatedAt: timestamp,
  } satisfies FieldsOf<Delivery>,
  required: ['id', 'trackId', 'url', 'event', 'body', 'headers', 'state', 'attempts', 'maxRetries', 'createdAt', 'updatedAt'],
  additionalProperties: false,
} as const

const fault = deliveryFaultSchema satisfies { properties: FieldsOf<DeliveryFault> }

/** Most records of each list an import takes; docs/reference/data-file.md states them. */
export const IMPORT_MAX_RECORDS = { merchants: 10_000, payments: 150_000, deliveries: 300_000 } as const
export type ListName = keyof typeof IMPORT_MAX_RECORDS
export const LIST_NAMES = Object.keys(IMPORT_MAX_RECORDS) as ListName[]

const envelope = {
  format: { type: 'string', const: EXPORT_FORMAT },
  version: { type: 'integer', const: EXPORT_VERSION },
  exportedAt: timestamp,
  // Informative only.
  sandboxVersion: { type: 'string', maxLength: 64 },
} as const
const required = ['format', 'version', 'merchants', 'payments', 'deliveries']
const list = (name: ListName, def: string) => ({ type: 'array', maxItems: IMPORT_MAX_RECORDS[name], items: ref(def) }) as const

/** The whole file, for editors and tests. An import checks it in parts: the envelope, then record by record. */
export const exportFileSchema = {
  $id: 'pay-sandbox-export.json',
  title: 'pay sandbox export file',
  type: 'object',
  properties: {
    ...envelope,
    merchants: list('merchants', 'merchant'),
    payments: list('payments', 'payment'),
    deliveries: list('deliveries', 'delivery'),
  },
  required,
  additionalProperties: false,
  $defs: { merchant, statusChange, payment, notification, attempt, fault, delivery },
} as const

/** The top level without the records, which are read and checked one at a time. */
const envelopeSchema = {
  type: 'object',
  properties: { ...envelope, merchants: { type: 'array' }, payments: { type: 'array' }, deliveries: { type: 'array' } },
  required,
  additionalProperties: false,
} as const

type Part = ListName | 'envelope'
const defOf = { merchants: 'merchant', payments: 'payment', deliveries: 'delivery' } as const
let ajv: Ajv | undefined
const validators = new Map<Part, ValidateFunction>()

/**
 * The validator of one part of the file, compiled on first use and kept: only an import pays for it, and the
 * cost (tens of ms each) is spread over the first record of each list.
 */
export function exportValidator(part: Part): ValidateFunction {
  let validate = validators.get(part)
  if (validate) return validate
  const a = exportAjv()
  validate = part === 'envelope' ? a.compile(envelopeSchema) : a.compile({ $ref: `${exportFileSchema.$id}#/$defs/${defOf[part]}` })
  validators.set(part, validate)
  return validate
}

/** The Ajv that knows the file's schema and formats. */
export function exportAjv(): Ajv {
  ajv ??= schemaAjv({ messages: true })
  return ajv
}

/**
 * A new Ajv that knows the file's schema and formats. For `messages`, it finds every error and keeps the data
 * each is about, for describeError; otherwise it stops at the first, which is what a check of many records
 * that are almost always right wants.
 */
export function schemaAjv(options: { messages: boolean }): Ajv {
  const made = formatsAjv(options)
  made.addSchema(exportFileSchema)
  return made
}

/** A new Ajv that knows the formats (the shared rules) and no schema yet; `messages` as for schemaAjv. */
export function formatsAjv(options: { messages: boolean }, more: Omit<Options, 'allErrors' | 'verbose' | 'strict' | 'validateSchema'> = {}): Ajv {
  // Schemas are checked against the JSON Schema meta-schema by tests rather than at every first use.
  const made = new Ajv({ ...more, allErrors: options.messages, verbose: options.messages, strict: true, validateSchema: false })
  for (const [name, f] of Object.entries(formatChecks)) made.addFormat(name, f)
  return made
}

/** The formats as Ajv takes them, by name: what validators compiled ahead of time (record-validators.ts) call. */
export const formatChecks: Readonly<Record<string, Format>> = Object.fromEntries(
  Object.entries(formats).map(([name, f]) => [name, { type: f.type, validate: f.validate } as Format]),
)

/** One schema error in words, naming the record and field: `payments[3].amount must be …`. */
export function describeError(at: string, e: ErrorObject): string {
  const path = at + fieldPath(e.instancePath)
  const p = e.params as Record<string, unknown>
  if (e.propertyName !== undefined) {
    const rule = e.keyword === 'maxLength' ? `at most ${String(p.limit)} characters long` : says(e)
    return `${path} has a name ${brief(e.propertyName)} that is not ${rule}`
  }
  switch (e.keyword) {
    case 'required':
      return `${path}${path ? '.' : ''}${String(p.missingProperty)} is missing`
    case 'additionalProperties':
      return `${path || 'the file'} has an unknown field ${brief(p.additionalProperty)}`
    case 'type':
      return `${path} must be ${typeWords[String(p.type)] ?? String(p.type)} (got ${brief(e.data)})`
    case 'const':
      return `${path} must be ${JSON.stringify(p.allowedValue)} (got ${brief(e.data)})`
    case 'enum':
      return `${path} must be one of ${(p.allowedValues as unknown[]).join(', ')} (got ${brief(e.data)})`
    case 'format':
      return `${path} must be ${says(e)} (got ${brief(e.data)})`
    case 'maxLength':
      return `${path} must be at most ${String(p.limit)} characters (got ${charLength(String(e.data))})`
    case 'minLength':
      return `${path} must not be empty`
    case 'maxItems':
      return `${path} must hold at most ${String(p.limit)} entries (got ${(e.data as unknown[]).length})`
    case 'minItems':
      return `${path} must hold at least ${String(p.limit)} ${p.limit === 1 ? 'entry' : 'entries'}`
    case 'maxProperties':
      return `${path} must have at most ${String(p.limit)} fields`
    case 'minimum':
    case 'maximum':
      return `${path} must be ${e.keyword === 'minimum' ? 'at least' : 'at most'} ${String(p.limit)} (got ${brief(e.data)})`
    default:
      return `${path} ${e.message ?? 'is not valid'}`
  }
}

/** Errors the words of another error already cover. */
export function isEchoError(e: ErrorObject): boolean {
  return e.keyword === 'propertyNames'
}

const typeWords: Record<string, string> = {
  string: 'a string',
  number: 'a number',
  integer: 'a whole number',
  boolean: 'true or false',
  object: 'an object',
  array: 'an array',
}

function says(e: ErrorObject): string {
  const format = (e.params as { format?: string }).format
  return format !== undefined && format in formats ? formats[format as FormatName].says : (e.message ?? 'valid')
}

/** `/history/0/status` → `.history[0].status` */
function fieldPath(pointer: string): string {
  if (pointer === '') return ''
  return pointer
    .slice(1)
    .split('/')
    .map((raw) => {
      const part = raw.replace(/~1/g, '/').replace(/~0/g, '~')
      return pathPart(/^\d+$/.test(part) ? Number(part) : part)
    })
    .join('')
}

/** One step of a path in a message: `[3]` for an index, `.name` for a field, `["odd name"]` when it needs quoting. */
export function pathPart(step: string | number): string {
  if (typeof step === 'number') return `[${step}]`
  return /^[A-Za-z_$][\w$-]*$/.test(step) ? `.${step}` : `[${brief(step)}]`
}


/** Names of the records as API documents call them. */
const DOCUMENTED_NAMES = {
  merchant: 'Merchant',
  statusChange: 'StatusChange',
  payment: 'Payment',
  notification: 'Notification',
  attempt: 'Attempt',
  fault: 'DeliveryFault',
  delivery: 'Delivery',
} as const satisfies Record<keyof typeof exportFileSchema.$defs, string>

/**
 * The records of the file as shared schemas for an API document: each with an `$id` (its name), references to
 * the others as `Name#`, and each format of ours stated in words as a description (a reader of the document
 * does not know our format names). The file itself is `ExportFile`.
 */
export function documentedSchemas(): Array<Record<string, unknown> & { $id: string }> {
  const rewrite = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(rewrite)
    if (typeof node !== 'object' || node === null) return node
    const out: Record<string, unknown> = {}
    for (const [key, value] of Object.entries(node)) {
      if (key === '$ref' && typeof value === 'string') out.$ref = `${DOCUMENTED_NAMES[value.slice('#/$defs/'.length) as keyof typeof DOCUMENTED_NAMES]}#`
      else if (key === 'format' && typeof value === 'string' && value in formats) out.description = formats[value as FormatName].says
      else if (key !== '$defs' && key !== '$id') out[key] = rewrite(value)
    }
    return out
  }
  const records = Object.entries(DOCUMENTED_NAMES).map(([def, name]) => ({
    $id: name,
    ...(rewrite(exportFileSchema.$defs[def as keyof typeof DOCUMENTED_NAMES]) as Record<string, unknown>),
  }))
  return [...records, { $id: 'ExportFile', ...(rewrite(exportFileSchema) as Record<string, unknown>) }]
}
