import { badRequest } from './errors.js'

/** A file sent in a multipart request. */
export interface UploadedFile {
  filename: string
  mimeType: string
  data: Buffer
}

/**
 * A method's parameters, the way the Bot API server sees them whatever the request looked like (query string,
 * form, multipart or JSON): every value a string, JSON-serialized where it is an object or an array, plus the
 * files of a multipart request by part name (`attach://<name>` refers to one).
 */
export class Params {
  constructor(
    private readonly values: ReadonlyMap<string, string>,
    private readonly files: ReadonlyMap<string, UploadedFile> = new Map(),
  ) {}

  /** From a JSON body: strings as they are, other values as their JSON text; null means absent. */
  static fromJson(body: Record<string, unknown>, extra: Iterable<[string, string]> = []): Params {
    const values = new Map(extra)
    for (const [key, value] of Object.entries(body)) {
      if (value === null || value === undefined) continue
      values.set(key, typeof value === 'string' ? value : JSON.stringify(value))
    }
    return new Params(values)
  }

  has(name: string): boolean {
    return (this.values.get(name) ?? '') !== '' || this.files.has(name)
  }

  /** The raw value; absent and empty are the same to Telegram. */
  string(name: string): string {
    return this.values.get(name) ?? ''
  }

  /** Integers as the server reads them: missing or not a number gives the default, then clamped. */
  clampedInt(name: string, fallback: number, min: number, max: number): number {
    const text = this.string(name).trim()
    const parsed = /^[-+]?\d+/.exec(text)
    const value = text === '' || !parsed ? fallback : Number(parsed[0])
    return Math.min(max, Math.max(min, value))
  }

  /** `true`, `1` (any case) are true; anything else is false. */
  bool(name: string): boolean {
    const v = this.string(name).trim().toLowerCase()
    return v === 'true' || v === '1'
  }

  /** A JSON-serialized value, or undefined when absent; `what` names it in Telegram's error. */
  json(name: string, what: string): unknown {
    const text = this.string(name)
    if (text === '') return undefined
    try {
      return JSON.parse(text)
    } catch {
      throw badRequest(`Can't parse ${what} JSON object`)
    }
  }

  /** A file part: by its own name, or the part an `attach://<name>` value points at. */
  file(name: string): UploadedFile | undefined {
    const direct = this.files.get(name)
    if (direct) return direct
    const value = this.string(name)
    return value.startsWith('attach://') ? this.files.get(value.slice('attach://'.length)) : undefined
  }

  /** Message identifiers: a positive integer, else 0. */
  messageId(name = 'message_id'): number {
    const text = this.string(name).trim()
    return /^\d{1,15}$/.test(text) ? Number(text) : 0
  }
}
