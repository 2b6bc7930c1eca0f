import { hash } from 'node:crypto'
import type { Ajv, ValidateFunction } from 'ajv'
import { FAULT_RULE_REQUIRED, faultRuleFields, type FaultRule } from './api-fault.js'
import { FAULT_HIT_REQUIRED, faultHitFields, type FaultHit } from './api-fault-hit.js'
import { describeError, exportFileSchema, type FieldsOf, formatsAjv, isEchoError } from './export-schema.js'
import { paymentStatuses } from './payment.js'
import { deliveryProblems, paymentProblems } from './transfer.js'
import type { ClockRecord, Delivery, Payment, VerifyEntry, VerifyJournal } from './types.js'
import { VERIFY_JOURNAL_KEEP } from './verify-journal.js'
import { PRECOMPILED, PRECOMPILED_DIGEST } from './record-validators.js'

/**
 * The records the data file and its journal hold, stated once as a JSON Schema: merchants, payments and
 * deliveries by the export file's own definitions (the rules the API applied when it made them), and beside them
 * the sandbox clock, verify journals and the Bot API emulator's records. A start checks every record it reads
 * against them, and every change is checked before it is written, so the data file never holds a record its next
 * start would refuse. Pure.
 *
 * The emulator's records are checked for what the store relies on (ids, counters, sizes, times); the Bot API
 * objects inside them (users, entities, keyboards, updates) are the emulator's own business.
 */

// One set of definitions, the export file's and the ones below: every reference is local to it.
const ref = (name: string) => ({ $ref: `#/$defs/${name}` }) as const
const timestamp = { type: 'string', format: 'timestamp' } as const
const integer = { type: 'integer' } as const
const count = { type: 'integer', minimum: 0 } as const
const text = { type: 'string' } as const
const list = { type: 'array' } as const
const object = { type: 'object' } as const

const clock = {
  type: 'object',
  properties: {
    offsetMs: { type: 'number', format: 'clock-offset' },
    holdUntil: { type: 'string', format: 'clock-time' },
  } satisfies FieldsOf<ClockRecord>,
  required: ['offsetMs'],
  additionalProperties: false,
} as const

const verifyEntry = {
  type: 'object',
  properties: {
    trackId: { type: 'string', format: 'track-id' },
    at: timestamp,
    key: { type: 'string', format: 'merchant-key' },
    // The start of an unknown key and its length: `sk_l… (32 characters)`.
    keyHint: { type: 'string', maxLength: 64 },
    owner: { type: 'boolean' },
    result: { type: 'integer', minimum: 100, maximum: 999 },
    amount: { type: 'number', format: 'amount' },
    status: { type: 'string', enum: paymentStatuses },
    operator: { const: true },
  } satisfies FieldsOf<VerifyEntry>,
  required: ['trackId', 'at', 'owner', 'result', 'status'],
  additionalProperties: false,
} as const

const verifyJournal = {
  type: 'object',
  properties: {
    trackId: { type: 'string', format: 'track-id' },
    count: { type: 'integer', minimum: 1 },
    entries: { type: 'array', minItems: 1, maxItems: VERIFY_JOURNAL_KEEP, items: ref('verifyEntry') },
  } satisfies FieldsOf<VerifyJournal>,
  required: ['trackId', 'count', 'entries'],
  additionalProperties: false,
} as const

const faultRule = {
  type: 'object',
  properties: { ...faultRuleFields, createdAt: timestamp } satisfies FieldsOf<FaultRule>,
  required: [...FAULT_RULE_REQUIRED],
  additionalProperties: false,
} as const

const faultHit = {
  type: 'object',
  properties: { ...faultHitFields, at: timestamp } satisfies FieldsOf<FaultHit>,
  required: [...FAULT_HIT_REQUIRED],
  additionalProperties: false,
} as const

const tgBot = {
  type: 'object',
  properties: {
    id: integer,
    token: { type: 'string', minLength: 1 },
    username: text,
    firstName: text,
    createdAt: timestamp,
    webhook: {
      type: 'object',
      properties: { url: text, secretToken: text, maxConnections: integer, setAt: timestamp },
      required: ['url', 'maxConnections', 'setAt'],
    },
    allowedUpdates: { type: 'array', items: text },
    commands: { type: 'array', items: object },
    lastUpdateId: count,
  },
  required: ['id', 'token', 'createdAt', 'lastUpdateId'],
} as const

const tgChat = {
  type: 'object',
  properties: { botId: integer, chatId: integer, user: object, createdAt: timestamp, lastMessageId: count },
  required: ['botId', 'chatId', 'user', 'createdAt', 'lastMessageId'],
} as const

const tgMessage = {
  type: 'object',
  properties: {
    botId: integer,
    chatId: integer,
    messageId: integer,
    from: { type: 'string', enum: ['bot', 'user'] },
    date: count,
    text,
    entities: list,
    photo: list,
    caption: text,
    captionEntities: list,
    replyMarkup: object,
    editDate: count,
    deleted: { const: true },
  },
  required: ['botId', 'chatId', 'messageId', 'from', 'date'],
} as const

const tgUpdate = {
  type: 'object',
  properties: { botId: integer, update: { type: 'object', properties: { update_id: count }, required: ['update_id'] } },
  required: ['botId', 'update'],
} as const

const tgFile = {
  type: 'object',
  properties: {
    fileId: { type: 'string', minLength: 1 },
    fileUniqueId: text,
    botId: integer,
    mimeType: text,
    size: count,
    width: count,
    height: count,
    data: text,
    createdAt: timestamp,
  },
  required: ['fileId', 'fileUniqueId', 'botId', 'mimeType', 'size', 'width', 'height', 'data', 'createdAt'],
} as const

/** Every record of a data file and its journal, for editors and tests as well as for the checks below. */
export const recordsSchema = {
  $id: 'pay-sandbox-records.json',
  title: 'pay sandbox data file records',
  $defs: { ...exportFileSchema.$defs, clock, verifyEntry, verifyJournal, faultRule, faultHit, tgBot, tgChat, tgMessage, tgUpdate, tgFile },
} as const

/** The lists of a data file and the record each holds. */
const LIST_DEFS = {
  merchants: ref('merchant'),
  payments: ref('payment'),
  deliveries: ref('delivery'),
  verifies: ref('verifyJournal'),
  faults: ref('faultRule'),
  faultHits: ref('faultHit'),
  tgBots: ref('tgBot'),
  tgChats: ref('tgChat'),
  tgMessages: ref('tgMessage'),
  tgUpdates: ref('tgUpdate'),
  tgFiles: ref('tgFile'),
  clock: ref('clock'),
} as const
export type StoredList = keyof typeof LIST_DEFS

/** Journal records by kind (`k`): what `v` holds, or nothing (a reset). */
const KIND_DEFS = {
  merchant: ref('merchant'),
  payment: ref('payment'),
  delivery: ref('delivery'),
  clock: ref('clock'),
  verify: ref('verifyEntry'),
  reset: undefined,
  tg: undefined,
  fault: undefined,
} as const
type Kind = keyof typeof KIND_DEFS

/** The emulator's changes by type (`t`): the record `v` holds, or the change's own fields. */
const TG_CHANGES = {
  bot: { v: ref('tgBot') },
  chat: { v: ref('tgChat') },
  message: { v: ref('tgMessage') },
  update: { v: ref('tgUpdate') },
  file: { v: ref('tgFile') },
  confirm: { botId: integer, below: count },
  drop: { botId: integer },
  unfile: { fileId: { type: 'string', minLength: 1 } },
} as const

/** The API fault rules' changes by type (`t`): a rule added, its counts, one removed, all removed, a fault played. */
const FAULT_CHANGES = {
  rule: { v: ref('faultRule') },
  count: { id: faultRuleFields.id, matched: faultRuleFields.matched, played: faultRuleFields.played },
  off: { id: faultRuleFields.id },
  clear: {},
  hit: { v: ref('faultHit') },
} as const

const seq = { type: 'integer', minimum: 0 } as const

/** A change kind whose records carry a type (`v.t`) with fields of their own. */
const TYPED: { tg: typeof TG_CHANGES; fault: typeof FAULT_CHANGES } = { tg: TG_CHANGES, fault: FAULT_CHANGES }
type TypedKind = keyof typeof TYPED

function lineSchema(kind: Kind, type?: string): object {
  const record = (properties: Record<string, object>) => ({
    type: 'object',
    properties,
    required: Object.keys(properties),
    additionalProperties: false,
  })
  if (kind === 'tg' || kind === 'fault') {
    const fields = (TYPED[kind] as Record<string, Record<string, object>>)[type!]!
    return record({ s: seq, k: { const: kind }, v: record({ t: { const: type }, ...fields }) })
  }
  const v = KIND_DEFS[kind]
  return record({ s: seq, k: { const: kind }, ...(v ? { v } : {}) })
}

/**
 * Validators by name, compiled on first use: fast ones (first error only) for every record read, wordy ones only to
 * say what is wrong with a refused one. Each is compiled on its own with the definitions beside it, so a start
 * compiles only the records its files hold (a few ms each, where the whole export file schema takes 30).
 */
class Validators<Name extends string> {
  private readonly compiled = new Map<Name, ValidateFunction>()
  constructor(
    private readonly ajv: () => Ajv,
    private readonly schemaOf: (name: Name) => object,
    /** Compiled ahead of time by name, when they were compiled from these very schemas (record-validators.ts). */
    private readonly ready: (name: Name) => ValidateFunction | undefined = () => undefined,
  ) {}

  get(name: Name): ValidateFunction {
    let validate = this.compiled.get(name)
    if (!validate) {
      validate = this.ready(name) ?? this.ajv().compile(fullSchema(this.schemaOf(name)))
      this.compiled.set(name, validate)
    }
    return validate
  }
}

const fullSchema = (schema: object): object => ({ $defs: recordsSchema.$defs, ...schema })

let fastAjv: Ajv | undefined
let wordyAjv: Ajv | undefined
const fast = () => (fastAjv ??= formatsAjv({ messages: false }))
const wordy = () => (wordyAjv ??= formatsAjv({ messages: true }))

type LineName = Exclude<Kind, TypedKind> | `tg ${keyof typeof TG_CHANGES}` | `fault ${keyof typeof FAULT_CHANGES}`
const lineSchemaOf = (name: LineName): object => {
  const [kind, type] = name.split(' ') as [Kind, string | undefined]
  return lineSchema(kind, type)
}
const listSchemaOf = (name: StoredList): object => LIST_DEFS[name]

/**
 * The schemas of the lists' fast validators by name (`list payments`), for scripts/record-validators.mjs, which
 * compiles them ahead of time so that a start does not (the compiler was a tenth of a start at 10k payments).
 */
export function listSchemas(): Record<string, object> {
  return Object.fromEntries((Object.keys(LIST_DEFS) as StoredList[]).map((name) => [`list ${name}`, fullSchema(listSchemaOf(name))]))
}

/** The fingerprint of what listSchemas() holds: validators compiled from other schemas are not used. */
export function listSchemasDigest(): string {
  return hash('sha256', JSON.stringify([recordsSchema.$defs, LIST_DEFS]), 'base64url')
}

let precompiled: Readonly<Record<string, ValidateFunction>> | null | undefined
const ready = (name: StoredList): ValidateFunction | undefined => {
  precompiled ??= PRECOMPILED_DIGEST === listSchemasDigest() ? (PRECOMPILED as unknown as Record<string, ValidateFunction>) : null
  return precompiled?.[`list ${name}`]
}
const lists = { fast: new Validators(fast, listSchemaOf, ready), wordy: new Validators(wordy, listSchemaOf) }
const lines = { fast: new Validators(fast, lineSchemaOf), wordy: new Validators(wordy, lineSchemaOf) }

/** The first thing wrong with `value` by `validators`' schema `name`, in words, naming it `at`; undefined when it passes. */
function check<Name extends string>(
  validators: { fast: Validators<Name>; wordy: Validators<Name> },
  name: Name,
  value: unknown,
  at: string,
  strip = '',
): string | undefined {
  if (validators.fast.get(name)(value)) return undefined
  const validate = validators.wordy.get(name)
  validate(value)
  const error = (validate.errors ?? []).find((e) => !isEchoError(e))
  if (!error) return `${at} is not valid`
  if (strip === '') return describeError(at, error)
  // A journal line: errors inside the record it carries are named by the record, others by the line.
  if (error.instancePath === strip || error.instancePath.startsWith(`${strip}/`)) {
    return describeError(at, { ...error, instancePath: error.instancePath.slice(strip.length) })
  }
  return describeError('record', error)
}
/**
 * What the sandbox cannot use in one record of a data file's list, named by the list and `index` (`payments[3]`),
 * or in its clock; undefined when none. Nothing is allocated for a record that passes.
 */
export function storedRecordProblem(list: StoredList, value: unknown, index?: number): string | undefined {
  if (!lists.fast.get(list)(value)) return check(lists, list, value, recordName(list, index))
  if (list === 'payments' && paymentProblems('', value as Payment).length > 0) return paymentProblems(recordName(list, index), value as Payment)[0]
  if (list === 'deliveries' && deliveryProblems('', value as Delivery).length > 0) return deliveryProblems(recordName(list, index), value as Delivery)[0]
  return undefined
}

function recordName(list: StoredList, index: number | undefined): string {
  return index === undefined ? list : `${list}[${index}]`
}

/** What the sandbox cannot use in one journal line (parsed), named by its kind; undefined when none. */
export function journalRecordProblem(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'not a journal record: not a JSON object'
  const line = value as { k?: unknown; v?: { t?: unknown } }
  if (typeof line.k !== 'string' || !Object.hasOwn(KIND_DEFS, line.k)) {
    return `not a journal record: k must be one of ${Object.keys(KIND_DEFS).join(', ')} (got ${JSON.stringify(line.k) ?? 'nothing'})`
  }
  const kind = line.k as Kind
  if (kind === 'tg' || kind === 'fault') {
    const types = TYPED[kind] as Record<string, object>
    const t = line.v?.t
    if (typeof t !== 'string' || !Object.hasOwn(types, t)) {
      return `not a journal record: v.t of a ${kind} record must be one of ${Object.keys(types).join(', ')} (got ${JSON.stringify(t) ?? 'nothing'})`
    }
    const name = `${kind} ${t}` as LineName
    return check(lines, name, value, name, 'v' in types[t]! ? '/v/v' : '/v')
  }
  const problem = check(lines, kind, value, kind, '/v')
  if (problem !== undefined) return problem
  if (kind === 'payment') return paymentProblems(kind, line.v as unknown as Payment)[0]
  if (kind === 'delivery') return deliveryProblems(kind, line.v as unknown as Delivery)[0]
  return undefined
}
