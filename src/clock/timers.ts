/** What a timer runs: its promise, if any, is awaited when the clock is advanced past it. */
export type TimerTask = () => unknown

export interface TimerEntry {
  /** Timer time (see SandboxClock) at which it is due. */
  due: number
  /** Order of scheduling: among timers due at the same moment, the older runs first. */
  seq: number
  task: TimerTask
  cancelled: boolean
}

/** Timers by due time, earliest first (a binary heap); cancelled ones are dropped as they surface. */
export class TimerHeap {
  private readonly items: TimerEntry[] = []
  private seq = 0

  get size(): number {
    return this.items.length
  }

  push(due: number, task: TimerTask): TimerEntry {
    const entry: TimerEntry = { due, seq: this.seq++, task, cancelled: false }
    this.items.push(entry)
    this.up(this.items.length - 1)
    return entry
  }

  /** The earliest timer that is not cancelled. */
  peek(): TimerEntry | undefined {
    while (this.items.length > 0 && this.items[0]!.cancelled) this.pop()
    return this.items[0]
  }

  pop(): TimerEntry | undefined {
    const top = this.items[0]
    const last = this.items.pop()
    if (top !== undefined && last !== undefined && last !== top) {
      this.items[0] = last
      this.down(0)
    }
    return top
  }

  clear(): void {
    for (const item of this.items) item.cancelled = true
    this.items.length = 0
  }

  private before(a: TimerEntry, b: TimerEntry): boolean {
    return a.due < b.due || (a.due === b.due && a.seq < b.seq)
  }

  private up(at: number): void {
    const items = this.items
    while (at > 0) {
      const parent = (at - 1) >> 1
      if (!this.before(items[at]!, items[parent]!)) return
      ;[items[at], items[parent]] = [items[parent]!, items[at]!]
      at = parent
    }
  }

  private down(at: number): void {
    const items = this.items
    for (;;) {
      const left = at * 2 + 1
      const right = left + 1
      let least = at
      if (left < items.length && this.before(items[left]!, items[least]!)) least = left
      if (right < items.length && this.before(items[right]!, items[least]!)) least = right
      if (least === at) return
      ;[items[at], items[least]] = [items[least]!, items[at]!]
      at = least
    }
  }
}
