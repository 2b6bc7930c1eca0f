/** How long a line may wait for others to share its write. */
const BATCH_MS = 10
/** Pending text written at once, without waiting, past this many characters. */
const BATCH_CHARS = 64 * 1024

/**
 * Lines for a stream, written together: a busy sandbox makes one write of its request lines every few
 * milliseconds rather than one per request or per event-loop turn (a write to a pipe, file or terminal blocks the
 * process on Linux, and one of a hundred lines costs about what one of a single line does). Lines keep their
 * order and are written within BATCH_MS; whatever is pending is written when the process exits, and `flush`
 * writes it at once (before another message on the same stream).
 */
export function batchedLines(stream: NodeJS.WritableStream): ((line: string) => void) & { flush: () => void } {
  let pending: string[] = []
  let chars = 0
  let timer: NodeJS.Timeout | undefined
  const flush = () => {
    clearTimeout(timer)
    timer = undefined
    if (pending.length === 0) return
    const text = pending.join('')
    pending = []
    chars = 0
    stream.write(text)
  }
  process.once('exit', flush)
  const add = (line: string) => {
    pending.push(`${line}\n`)
    chars += line.length + 1
    if (chars >= BATCH_CHARS) flush()
    else timer ??= setTimeout(flush, BATCH_MS).unref()
  }
  return Object.assign(add, { flush })
}
