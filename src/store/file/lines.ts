import type { FileHandle } from './fs.js'

const CHUNK_BYTES = 1024 * 1024

export interface Line {
  /** 1-based line number. */
  number: number
  text: string
}

/**
 * Reads a file line by line without ever holding the whole file as one string, so a file of any size that was
 * written line by line can be read back. Yields complete lines (`\n`-terminated, without the `\n`); what follows
 * the last `\n` is the tail, reported by `tailBytes()` once iteration ends.
 */
export class LineReader {
  private tail = 0

  constructor(private readonly handle: FileHandle) {}

  async *lines(): AsyncGenerator<Line> {
    for await (const batch of this.batches()) yield* batch
  }

  /**
   * The same lines, a read's worth at a time: one await per megabyte rather than per line. The next megabyte is
   * read while the lines of this one are used (two buffers in turn), so that a large file's start does not wait
   * for the disk between megabytes.
   */
  async *batches(): AsyncGenerator<Line[]> {
    const buffers = [Buffer.allocUnsafe(CHUNK_BYTES), Buffer.allocUnsafe(CHUNK_BYTES)]
    let which = 0
    let reading = this.read(buffers[0]!)
    let pending: Buffer[] = []
    let pendingBytes = 0
    let number = 0
    for (;;) {
      const buffer = buffers[which]!
      const { bytesRead } = await reading
      if (bytesRead === 0) break
      which = 1 - which
      reading = this.read(buffers[which]!)
      const batch: Line[] = []
      let start = 0
      for (;;) {
        const end = buffer.indexOf(10, start)
        if (end === -1 || end >= bytesRead) break
        let text: string
        if (pendingBytes > 0) {
          text = Buffer.concat([...pending, buffer.subarray(start, end)]).toString('utf8')
          pending = []
          pendingBytes = 0
        } else {
          text = buffer.toString('utf8', start, end)
        }
        start = end + 1
        batch.push({ number: ++number, text })
      }
      if (start < bytesRead) {
        // Copied: the read buffer is reused for a later chunk.
        pending.push(Buffer.from(buffer.subarray(start, bytesRead)))
        pendingBytes += bytesRead - start
      }
      if (batch.length > 0) yield batch
    }
    this.tail = pendingBytes
  }

  /**
   * The next chunk, read from where the last one ended. A failure is the awaiting caller's to see: until it awaits,
   * or if it never does (it stopped at a refused record), a failed read is not an unhandled rejection.
   */
  private read(buffer: Buffer): Promise<{ bytesRead: number }> {
    const reading = this.handle.read(buffer, 0, CHUNK_BYTES, null)
    reading.catch(() => {})
    return reading
  }

  /** Bytes after the last newline (a line cut short), known once `lines()` is exhausted. */
  tailBytes(): number {
    return this.tail
  }
}
