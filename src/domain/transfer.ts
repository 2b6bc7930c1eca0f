import { EXPORT_FORMAT, EXPORT_VERSION, describeError, exportValidator, isEchoError, type ListName } from './export-schema.js'
import { brief } from './brief.js'
import { copiesOf, namesWith, planOf } from './fault.js'
import { canMove } from './payment.js'
import type { Delivery, Merchant, Payment } from './types.js'

export { EXPORT_FORMAT, EXPORT_VERSION, IMPORT_MAX_RECORDS, LIST_NAMES, type ListName } from './export-schema.js'

/**
 * The file `pay sandbox export` writes and `pay sandbox import` reads: the whole state of a sandbox.
 * `version` changes only when a reader of the old shape could misread the new one.
 */
export interface ExportFile extends ExportImage {
  format: typeof EXPORT_FORMAT
  version: typeof EXPORT_VERSION
  exportedAt: string
  /** Version of the sandbox that wrote the file; informative only. */
  sandboxVersion: string
}

/** What an import puts in place: every record of a checked file. */
export interface ExportImage {
  merchants: Merchant[]
  payments: Payment[]
  deliveries: Delivery[]
}

export type ExportCheck =
  | { ok: true; image: ExportImage }
  /** `tooLarge`: refused for its size (bytes or records), not its content. */
  | { ok: false; problems: string[]; tooLarge: boolean }

/** How many problems a failed check lists before it stops looking. */
export const MAX_PROBLEMS = 10

/**
 * Checks an export file record by record, as a reader hands them over, so a file is never held whole to be
 * judged: each record against the schema (the API's own rules), then what a schema cannot say — unique
 * merchant keys, trackIds, refNumbers and delivery ids; payments of the file's merchants; deliveries of its
 * payments; a status history the payment could have lived. The first problem drops the records kept so far:
 * the import is refused either way, and only the problems are worth memory.
 */
export class ExportChecker {
  private readonly problems: string[] = []
  private tooLarge = false
  private fatal = false
  private readonly envelope: Record<string, unknown> = {}
  private readonly lists = new Set<ListName>()
  /** Lists with a record the schema refused: references into them are not judged (the record is named already). */
  private readonly refused = new Set<ListName>()
  private image: ExportImage = { merchants: [], payments: [], deliveries: [] }

  private readonly merchantKeys = new Set<string>()
  private readonly trackIds = new Set<string>()
  private readonly refNumbers = new Set<string>()
  private readonly deliveryIds = new Set<string>()
  /** References, by record index, checked once every record is in (the lists may come in any order). */
  private readonly paymentMerchant: string[] = []
  private readonly deliveryTrackId: string[] = []
  private readonly deliveryReplayOf: string[] = []

  /** The verdict is a refusal that nothing further can change: stop reading. */
  get gaveUp(): boolean {
    return this.fatal || this.problems.length >= MAX_PROBLEMS
  }

  /** A top-level field other than the lists. A wrong format or version stops the check: nothing else is read. */
  field(name: string, value: unknown): void {
    this.envelope[name] = value
    if (name === 'format' && value !== EXPORT_FORMAT) {
      this.refuse(`format must be "${EXPORT_FORMAT}" (got ${brief(value)}); is this a file from pay sandbox export?`)
    } else if (name === 'version' && value !== EXPORT_VERSION) {
      this.refuse(`version must be ${EXPORT_VERSION} (got ${brief(value)}); this sandbox reads version ${EXPORT_VERSION}`)
    }
  }

  /** A list is present (its records follow through `record`). */
  list(name: ListName): void {
    this.lists.add(name)
  }

  /** A problem that ends the check (the file cannot be read further, or is too large). */
  refuse(problem: string, options: { tooLarge?: boolean } = {}): void {
    this.say(problem)
    this.fatal = true
    if (options.tooLarge) this.tooLarge = true
  }

  record(list: ListName, index: number, value: unknown): void {
    if (this.gaveUp) return
    const at = `${list}[${index}]`
    const validate = exportValidator(list)
    if (!validate(value)) {
      for (const e of validate.errors ?? []) if (!isEchoError(e)) this.say(describeError(at, e))
      this.refused.add(list)
      return
    }
    if (list === 'merchants') this.merchant(at, value as Merchant)
    else if (list === 'payments') this.payment(index, at, value as Payment)
    else this.delivery(index, at, value as Delivery)
  }

  finish(): ExportCheck {
    if (!this.fatal) {
      const envelope = exportValidator('envelope')
      const top = { ...this.envelope, ...Object.fromEntries([...this.lists].map((l) => [l, []])) }
      if (!envelope(top)) for (const e of envelope.errors ?? []) this.say(describeError('', e))
      this.dangling('payments', 'merchant', this.paymentMerchant, this.merchantKeys, 'merchants')
      this.dangling('deliveries', 'trackId', this.deliveryTrackId, this.trackIds, 'payments')
      this.dangling('deliveries', 'replayOf', this.deliveryReplayOf, this.deliveryIds, 'deliveries')
    }
    if (this.problems.length > 0) return { ok: false, problems: this.problems, tooLarge: this.tooLarge }
    return { ok: true, image: this.image }
  }

  private say(problem: string): void {
    if (this.problems.length < MAX_PROBLEMS) this.problems.push(problem)
    this.image = { merchants: [], payments: [], deliveries: [] }
  }

  private dangling(list: ListName, field: string, values: string[], known: Set<string>, among: ListName): void {
    if (this.refused.has(among)) return
    values.forEach((value, i) => {
      if (!known.has(value)) this.say(`${list}[${i}].${field} ${brief(value)} is not one of the file's ${among}`)
    })
  }

  private unique(seen: Set<string>, at: string, field: string, value: string): void {
    if (seen.has(value)) this.say(`${at}.${field} ${brief(value)} appears twice`)
    seen.add(value)
  }

  private keep<L extends ListName>(list: L, record: ExportImage[L][number]): void {
    if (this.problems.length === 0) (this.image[list] as Array<typeof record>).push(record)
  }

  private merchant(at: string, m: Merchant): void {
    this.unique(this.merchantKeys, at, 'key', m.key)
    this.keep('merchants', m)
  }

  private payment(index: number, at: string, p: Payment): void {
    this.unique(this.trackIds, at, 'trackId', p.trackId)
    if (p.refNumber !== undefined) this.unique(this.refNumbers, at, 'refNumber', p.refNumber)
    this.paymentMerchant[index] = p.merchant
    for (const problem of paymentProblems(at, p)) this.say(problem)
    this.keep('payments', p)
  }

  private delivery(index: number, at: string, d: Delivery): void {
    this.unique(this.deliveryIds, at, 'id', d.id)
    this.deliveryTrackId[index] = d.trackId
    if (d.replayOf !== undefined) this.deliveryReplayOf[index] = d.replayOf
    for (const problem of deliveryProblems(at, d)) this.say(problem)
    this.keep('deliveries', d)
  }
}

/**
 * What a payment that passed the schema still gets wrong on its own (references to other records aside): a
 * status history the payment could not have lived, or fields its status does not go with.
 */
export function paymentProblems(at: string, p: Payment): readonly string[] {
  // Made only once there is a problem, without a closure per call: a start checks every payment it reads.
  let problems: string[] | undefined
  // The history must be one the payment could have lived: created pending, then only allowed moves.
  const first = p.history[0]!
  if (first.status !== 'pending') problems = add(problems, `${at}.history[0].status must be pending: every payment starts pending (got ${brief(first.status)})`)
  for (let j = 1; j < p.history.length; j++) {
    const from = p.history[j - 1]!.status
    const to = p.history[j]!.status
    if (!canMove(from, to)) problems = add(problems, `${at}.history[${j}].status: a payment cannot move from ${from} to ${to}`)
  }
  const last = p.history[p.history.length - 1]!
  if (last.status !== p.status) problems = add(problems, `${at}.status is ${p.status} but its last history entry is ${last.status}`)
  if (p.status === 'paid' && p.refNumber === undefined) problems = add(problems, `${at} is paid but has no refNumber`)
  if (p.status !== 'paid' && p.refNumber !== undefined) problems = add(problems, `${at}.refNumber is set but the payment is ${p.status}: only a paid payment has one`)
  if ((p.status === 'paid' || p.status === 'unfinalized') && p.paidAmount === undefined) problems = add(problems, `${at} is ${p.status} but has no paidAmount`)
  if ((p.status === 'pending' || p.status === 'expired') && p.paidAmount !== undefined) problems = add(problems, `${at}.paidAmount is set but the payment is ${p.status}`)
  if (p.confirmations !== undefined && p.confirmationsRequired === undefined) problems = add(problems, `${at}.confirmations is set without confirmationsRequired`)
  if (p.status === 'unfinalized' && p.confirmations !== undefined && p.confirmationsRequired !== undefined && p.confirmations >= p.confirmationsRequired) {
    problems = add(problems, `${at} is unfinalized with ${p.confirmations} of ${p.confirmationsRequired} confirmations: it would be paid`)
  }
  return problems ?? NONE
}

/** What a delivery that passed the schema still gets wrong on its own (references to other records aside). */
export function deliveryProblems(at: string, d: Delivery): readonly string[] {
  let problems: string[] | undefined
  if (d.body.trackId !== d.trackId) problems = add(problems, `${at}.body.trackId ${brief(d.body.trackId)} is not the delivery's trackId ${brief(d.trackId)}`)
  for (let j = 0; j < d.attempts.length; j++) {
    const a = d.attempts[j]!
    if (a.attempt !== j + 1) problems = add(problems, `${at}.attempts[${j}].attempt must be ${j + 1} (got ${a.attempt})`)
  }
  const allowed = d.maxRetries + copiesOf(d)
  if (d.attempts.length > allowed) {
    problems = add(problems, `${at}.attempts holds ${d.attempts.length} attempts, more than maxRetries ${d.maxRetries} allows (${allowed})`)
  }
  if ((d.state === 'dropped') !== (planOf(d.fault).lost && d.attempts.length === 0)) {
    problems = add(problems, `${at}.state is ${d.state}: only a delivery with fault mode ${namesWith('lost')} and no attempts is dropped, and such a delivery is always dropped`)
  }
  return problems ?? NONE
}

const NONE: readonly string[] = Object.freeze([])

function add(problems: string[] | undefined, problem: string): string[] {
  const list = problems ?? []
  list.push(problem)
  return list
}

/** An export file as written to disk: JSON with one record per line, like the data file (readable, diffable). */
export function exportFileText(file: ExportFile): string {
  return [...exportFileChunks(file)].join('')
}

/**
 * The export file's text in pieces of a few hundred records each, so a large state can be sent without ever
 * building it as one string, and without holding the event loop while it is written out.
 */
export function* exportFileChunks(file: ExportFile, recordsPerChunk = 500): Generator<string> {
  const { merchants, payments, deliveries, ...envelope } = file
  const head = Object.entries(envelope).map(([k, v]) => `${JSON.stringify(k)}: ${JSON.stringify(v)},\n`)
  yield `{\n${head.join('')}`
  const lists: Array<[ListName, readonly object[]]> = [
    ['merchants', merchants],
    ['payments', payments],
    ['deliveries', deliveries],
  ]
  for (const [index, [name, records]] of lists.entries()) {
    let text = `${JSON.stringify(name)}: [`
    for (let i = 0; i < records.length; i++) {
      text += `${i === 0 ? '\n' : ',\n'}${JSON.stringify(records[i])}`
      if ((i + 1) % recordsPerChunk === 0) {
        yield text
        text = ''
      }
    }
    yield `${text}${records.length > 0 ? '\n' : ''}]${index < lists.length - 1 ? ',' : ''}\n`
  }
  yield '}\n'
}
