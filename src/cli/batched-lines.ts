/**
 * Lines for a stream, written together once per event-loop turn: a busy sandbox makes one write of its request
 * lines per turn rather than one per request (a write to a pipe or file blocks the process on Linux). Lines keep
 * their order; whatever is pending is written when the process exits.
 */
export function batchedLines(stream: NodeJS.WritableStream): (line: string) => void {
  let pending: string[] = []
  const flush = () => {
    if (pending.length === 0) return
    const text = pending.join('')
    pending = []
    stream.write(text)
  }
  process.once('exit', flush)
  return (line) => {
    if (pending.push(`${line}\n`) === 1) setImmediate(flush)
  }
}
