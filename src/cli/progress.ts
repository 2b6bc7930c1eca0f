import { forTerminal } from '../domain/display.js'

const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏']
const FRAME_MS = 80

/** Shows that long work is going on; a no-op when nobody watches. */
export interface Progress {
  /** What is being waited for now. */
  update(text: string): void
  /** Clears the line, so what is printed next starts clean; the spinner comes back on its next frame. */
  clear(): void
  /** Clears the line for good. */
  stop(): void
}

const silent: Progress = { update: () => {}, clear: () => {}, stop: () => {} }

/**
 * A one-line spinner on stderr, only when stderr is a terminal and the output is not --json: a pipe, a file or a
 * script gets nothing. Whatever else writes to the terminal meanwhile calls `clear()` first.
 */
export function progress(text: string, options: { json: boolean; stream?: NodeJS.WriteStream }): Progress {
  const stream = options.stream ?? process.stderr
  if (options.json || !stream.isTTY) return silent
  let current = forTerminal(text)
  let frame = 0
  let shown = false
  const draw = () => {
    const width = stream.columns > 4 ? stream.columns - 3 : 76
    const label = current.length > width ? `${current.slice(0, width - 1)}…` : current
    stream.write(`\r${FRAMES[frame++ % FRAMES.length]} ${label}\u001b[K`)
    shown = true
  }
  const clear = () => {
    if (shown) stream.write('\r\u001b[K')
    shown = false
  }
  const timer = setInterval(draw, FRAME_MS)
  // The spinner never keeps the process alive on its own.
  timer.unref()
  draw()
  return {
    update: (next) => {
      current = forTerminal(next)
      draw()
    },
    clear,
    stop: () => {
      clearInterval(timer)
      clear()
    },
  }
}
