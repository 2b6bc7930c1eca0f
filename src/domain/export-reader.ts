import { brief } from './brief.js'
import { pathPart } from './export-schema.js'
import { type ExportCheck, ExportChecker, IMPORT_MAX_RECORDS, LIST_NAMES, type ListName } from './transfer.js'

/** Most bytes an import takes: an export of the most records an import takes, with room to spare. */
export const IMPORT_MAX_BYTES = 256 * 1024 * 1024

/**
 * Deepest nesting inside a record: one level more than any record has (payment → history → entry), so
 * anything deeper is refused while it is read, before it is parsed, and the schema names the rest.
 */
const MAX_RECORD_DEPTH = 4

/**
 * Largest record of each list, above any the sandbox writes: a payment with every text field at its limit and
 * every character escaped is about 12 KB; a delivery with 101 attempts whose excerpts and errors are at their
 * limits, every character escaped, under 4 MB.
 */
const MAX_RECORD_BYTES: Record<ListName, number> = { merchants: 16 * 1024, payments: 64 * 1024, deliveries: 4 * 1024 * 1024 }
/**
 * Most values (counted by their separating commas) in a record, far above any the sandbox writes (a delivery
 * with 101 attempts has about 850). Checking a record costs time by its values: no record is slow to judge.
 */
const MAX_RECORD_VALUES: Record<ListName, number> = { merchants: 64, payments: 256, deliveries: 2048 }
/** Largest top-level value other than the lists (format, version, exportedAt, sandboxVersion). */
const MAX_FIELD_BYTES = 1024
const MAX_KEY_BYTES = 256
const MAX_FIELD_VALUES = 16

const SPACE = 0x20
const TAB = 0x09
const LF = 0x0a
const CR = 0x0d
const QUOTE = 0x22
const COMMA = 0x2c
const COLON = 0x3a
const BACKSLASH = 0x5c
const OPEN_BRACE = 0x7b
const CLOSE_BRACE = 0x7d
const OPEN_BRACKET = 0x5b
const CLOSE_BRACKET = 0x5d

/** Where the reader is in the top-level object. */
type At =
  | 'start'
  | 'key-or-end' // after `{`
  | 'key' // after `,`
  | 'colon'
  | 'value'
  | 'after-value'
  | 'element-or-end' // after a list's `[`
  | 'element' // after `,` in a list
  | 'after-element'
  | 'end'

/** What a finished capture is. */
type Capture = 'key' | 'field' | 'element'

function isSpace(c: number): boolean {
  return c === SPACE || c === LF || c === CR || c === TAB
}

/**
 * Reads an export file from chunks of bytes as they arrive. It never holds or parses the whole text: it walks
 * the top-level object itself and cuts each list into records, which are parsed one by one (a few KB each)
 * and handed to the checker. So a request costs at most one chunk's worth of work at a time, bogus input is
 * refused at its first bad record, nesting and sizes are bounded before anything is parsed, and memory holds
 * only records that passed.
 */
export class ExportReader {
  private readonly checker = new ExportChecker()
  private at: At = 'start'
  private bytes = 0
  private readonly seen = new Set<string>()
  private key = ''
  private list: ListName | undefined
  private index = 0
  /** Offset in the file of the current chunk, for messages. */
  private chunkStart = 0

  // The value being captured: its bytes so far and the scanner's state.
  private capture: Capture | undefined
  private pieces: Buffer[] = []
  private size = 0
  private depth = 0
  private values = 0
  private inString = false
  private escaped = false
  private scalar = false

  /** Reads the next bytes. False once the file is refused whatever follows: the rest need not be read. */
  push(chunk: Buffer): boolean {
    if (this.checker.gaveUp) return false
    this.bytes += chunk.length
    if (this.bytes > IMPORT_MAX_BYTES) {
      this.checker.refuse(`the file is larger than ${IMPORT_MAX_BYTES / 1024 / 1024} MB, the most an import takes`, { tooLarge: true })
      return false
    }
    this.chunkStart = this.bytes - chunk.length
    let i = 0
    while (i < chunk.length && !this.checker.gaveUp) {
      if (this.capture !== undefined) {
        i = this.scan(chunk, i)
        continue
      }
      const c = chunk[i]!
      if (isSpace(c)) {
        i++
        continue
      }
      i = this.step(c, i)
    }
    return !this.checker.gaveUp
  }

  /** The verdict, once every byte is in. */
  end(): ExportCheck {
    if (!this.checker.gaveUp && (this.at !== 'end' || this.capture !== undefined)) {
      this.checker.refuse(this.bytes === 0 ? 'the file is empty' : 'the file is not valid JSON: it ends before its object does (cut short?)')
    }
    return this.checker.finish()
  }

  /** One structural character of the top-level object or a list; returns where to go on. */
  private step(c: number, i: number): number {
    switch (this.at) {
      case 'start':
        if (c === OPEN_BRACE) return this.go('key-or-end', i)
        this.checker.refuse('the file is not a JSON object')
        return i
      case 'key-or-end':
        if (c === CLOSE_BRACE) return this.go('end', i)
      // falls through: a key
      case 'key':
        if (c === QUOTE) return this.begin('key', c, i)
        return this.broken(`expected a field name at byte ${this.offset(i)}`, i)
      case 'colon':
        if (c === COLON) return this.go('value', i)
        return this.broken(`expected ":" after ${brief(this.key)} at byte ${this.offset(i)}`, i)
      case 'value':
        if (this.list === undefined) return this.begin('field', c, i)
        if (c !== OPEN_BRACKET) {
          this.checker.refuse(`${this.list} must be an array`)
          return i
        }
        this.checker.list(this.list)
        this.index = 0
        return this.go('element-or-end', i)
      case 'after-value':
        if (c === COMMA) return this.go('key', i)
        if (c === CLOSE_BRACE) return this.go('end', i)
        return this.broken(`expected "," or "}" after ${brief(this.key)} at byte ${this.offset(i)}`, i)
      case 'element-or-end':
        if (c === CLOSE_BRACKET) return this.go('after-value', i)
      // falls through: an element
      case 'element':
        if (this.index >= IMPORT_MAX_RECORDS[this.list!]) {
          const max = IMPORT_MAX_RECORDS[this.list!]
          this.checker.refuse(`${this.list} holds more than ${max} records, the most an import takes`, { tooLarge: true })
          return i
        }
        return this.begin('element', c, i)
      case 'after-element':
        if (c === COMMA) return this.go('element', i)
        if (c === CLOSE_BRACKET) return this.go('after-value', i)
        return this.broken(`expected "," or "]" after ${this.list}[${this.index - 1}] at byte ${this.offset(i)}`, i)
      case 'end':
        return this.broken(`unexpected data after the end of the JSON object at byte ${this.offset(i)}`, i)
    }
  }

  private go(at: At, i: number): number {
    this.at = at
    return i + 1
  }

  private broken(problem: string, i: number): number {
    this.checker.refuse(`the file is not valid JSON: ${problem}`)
    return i
  }

  /** Byte offset in the file of position i in the current chunk. */
  private offset(i: number): number {
    return this.chunkStart + i
  }

  private begin(capture: Capture, first: number, i: number): number {
    this.capture = capture
    this.pieces = []
    this.size = 0
    this.depth = 0
    this.values = 0
    this.inString = false
    this.escaped = false
    this.scalar = first !== OPEN_BRACE && first !== OPEN_BRACKET && first !== QUOTE
    return i
  }

  /** Scans the captured value from i; finishes it when it closes. Returns where the scan stopped. */
  private scan(chunk: Buffer, start: number): number {
    let i = start
    let depth = this.depth
    let values = this.values
    let inString = this.inString
    let escaped = this.escaped
    let closed = false
    let tooDeep = false
    let tooMany = false
    const n = chunk.length
    if (this.scalar) {
      // A number, true, false or null: ends at the first delimiter, which is left for the caller.
      while (i < n) {
        const c = chunk[i]!
        if (c === COMMA || c === CLOSE_BRACE || c === CLOSE_BRACKET || isSpace(c)) {
          closed = true
          break
        }
        i++
      }
    } else {
      const maxDepth = this.capture === 'element' ? MAX_RECORD_DEPTH : 1
      const maxValues = this.capture === 'element' ? MAX_RECORD_VALUES[this.list!] : MAX_FIELD_VALUES
      while (i < n) {
        const c = chunk[i++]!
        if (inString) {
          if (escaped) escaped = false
          else if (c === BACKSLASH) escaped = true
          else if (c === QUOTE) {
            inString = false
            if (depth === 0) {
              closed = true
              break
            }
          }
        } else if (c === QUOTE) inString = true
        else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
          if (++depth > maxDepth) {
            tooDeep = true
            break
          }
        } else if (c === COMMA) {
          if (++values > maxValues) {
            tooMany = true
            break
          }
        } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
          if (--depth === 0) {
            closed = true
            break
          }
        }
      }
    }
    this.depth = depth
    this.values = values
    this.inString = inString
    this.escaped = escaped
    this.pieces.push(chunk.subarray(start, i))
    this.size += i - start
    if (tooDeep) {
      this.refuseCapture(`${this.where()}${innerPath(this.text())} nests deeper than ${maxDepthWords(this.capture!)}`)
    } else if (tooMany) {
      this.refuseCapture(
        this.capture === 'element'
          ? `${this.where()} holds more than ${MAX_RECORD_VALUES[this.list!]} values, more than any record the sandbox writes (the next is in ${this.where()}${innerPath(this.text())})`
          : `${this.where()} holds more values than its field allows`,
      )
    } else if (this.size > this.maxSize()) {
      this.refuseCapture(
        this.capture === 'key'
          ? `a field name is longer than ${MAX_KEY_BYTES} bytes`
          : `${this.where()} is larger than ${formatBytes(this.maxSize())}, more than any the sandbox writes`,
      )
    } else if (closed) {
      this.finishCapture()
    }
    return i
  }

  private maxSize(): number {
    if (this.capture === 'element') return MAX_RECORD_BYTES[this.list!]
    return this.capture === 'key' ? MAX_KEY_BYTES : MAX_FIELD_BYTES
  }

  private where(): string {
    if (this.capture === 'element') return `${this.list}[${this.index}]`
    return this.capture === 'key' ? 'a field name' : this.key
  }

  private text(): string {
    const whole = this.pieces.length === 1 ? this.pieces[0]! : Buffer.concat(this.pieces, this.size)
    return whole.toString('utf8')
  }

  private refuseCapture(problem: string): void {
    this.checker.refuse(problem)
    this.capture = undefined
    this.pieces = []
  }

  private finishCapture(): void {
    const capture = this.capture!
    const text = this.text()
    this.capture = undefined
    this.pieces = []
    let value: unknown
    try {
      value = JSON.parse(text)
    } catch (error) {
      this.checker.refuse(`${this.where()} is not valid JSON (${(error as Error).message})`)
      return
    }
    if (capture === 'key') {
      const key = value as string
      this.key = key
      if (this.seen.has(key)) return this.checker.refuse(`${brief(key)} appears twice in the file`)
      this.seen.add(key)
      this.list = (LIST_NAMES as string[]).includes(key) ? (key as ListName) : undefined
      this.at = 'colon'
    } else if (capture === 'field') {
      this.checker.field(this.key, value)
      this.at = 'after-value'
    } else {
      this.checker.record(this.list!, this.index++, value)
      this.at = 'after-element'
    }
  }
}

function maxDepthWords(capture: Capture): string {
  return capture === 'element' ? `${MAX_RECORD_DEPTH} levels, more than any record has` : 'its field allows'
}

function formatBytes(n: number): string {
  return n >= 1024 * 1024 ? `${n / 1024 / 1024} MB` : `${n / 1024} KB`
}

/**
 * Where in a record the reader stopped, from the record's text up to that point: `.history[0].note`, the field
 * whose value went too deep or held too much. Only run on a refusal, over at most one record.
 */
function innerPath(text: string): string {
  const frames: Array<{ object: boolean; key: string; index: number; expectKey: boolean }> = []
  for (let i = 0; i < text.length; i++) {
    const c = text[i]
    const top = frames[frames.length - 1]
    if (c === '"') {
      let j = i + 1
      while (j < text.length && text[j] !== '"') j += text[j] === '\\' ? 2 : 1
      if (top?.object && top.expectKey) {
        try {
          top.key = JSON.parse(text.slice(i, j + 1)) as string
        } catch {
          top.key = text.slice(i + 1, j)
        }
      }
      i = j
    } else if (c === '{' || c === '[') frames.push({ object: c === '{', key: '', index: 0, expectKey: c === '{' })
    else if (c === '}' || c === ']') frames.pop()
    else if (c === ':' && top) top.expectKey = false
    else if (c === ',' && top) {
      if (top.object) top.expectKey = true
      else top.index++
    }
  }
  // The last frame is the one the reader stopped in; the path leads to it.
  return frames
    .slice(0, -1)
    .map((f) => pathPart(f.object ? f.key : f.index))
    .join('')
}
