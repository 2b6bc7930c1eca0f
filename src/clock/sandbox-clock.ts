import { CLOCK_LATEST, CLOCK_LATEST_MS, CLOCK_RANGE } from '../domain/clock-range.js'
import { formatDuration } from '../domain/duration.js'
import type { ClockRecord } from '../domain/types.js'
import { TimerHeap, type TimerEntry, type TimerTask } from './timers.js'
import type { ClockView } from './schemas.js'

export type { ClockRecord }

/** The sandbox clock at real time: no offset, nothing held. */
export const REAL_TIME: ClockRecord = Object.freeze({ offsetMs: 0 })

/** Node's timers fire at once beyond this; a longer wait is armed again when it ends. */
const MAX_TIMEOUT_MS = 2 ** 31 - 1

export interface ClockOptions {
  /** Real time; by default the wall clock read once at start and moved on by the monotonic clock. */
  real?: () => Date
  /** Monotonic milliseconds, by default performance.now(). */
  monotonic?: () => number
  /** A timer task that threw or rejected. */
  onError?: (error: unknown) => void
  /**
   * How long an advance waits, in all, for the tasks it fires (default 60 s): past it, what is still due is fired
   * without waiting, so a callback receiver that hangs cannot hold the answer for its every retry.
   */
  advanceWaitMs?: number
}

export interface Timer {
  cancel(): void
}

/** What `pay clock` shows: the answer of GET /_sandbox/clock (schemas.ts). */
export type { ClockView }

/** A move of the clock, worked out before it is saved and applied once it is durable. */
export interface ClockMove {
  record: ClockRecord
  /** How far the sandbox's time moves forward: timers due within it fire, in due order. */
  jumpMs: number
  /** The sandbox time the move goes to. */
  target: number
}

/**
 * The sandbox's own time, and timers that run on it.
 *
 * Time is real time plus an offset that only grows (`advance`, `set`): the clock never goes back. `reset`
 * removes the offset, and the time then stands still until real time catches up with it. Real time is the wall
 * clock read once at start and moved on by the monotonic clock, so setting the computer's clock back changes
 * nothing here; every stamp is also at least the one before it. The time goes no later than CLOCK_LATEST: a move
 * past it is refused, and the time stands still once it gets there.
 *
 * Timers wait on their own monotonic time, moved forward by the same jumps: a retry due in 5 s fires 5 s later
 * in real time, or at once when the clock is advanced past it. A reset does not stop them: their waits go on.
 * Advancing fires every timer that becomes due, one due time after another, with the time standing at each one
 * while its tasks run (so a block mined 10 minutes into an advance is stamped 10 minutes in), and waits for the
 * promises they return, so that what became due is done when the advance answers.
 */
export class SandboxClock {
  private readonly realTime: () => number
  private readonly monotonic: () => number
  private readonly onError: (error: unknown) => void
  private readonly advanceWaitMs: number
  private offset = 0
  private hold = -Infinity
  /** How far timer time has been moved ahead of the monotonic clock. */
  private jumped = 0
  private last = -Infinity
  /** While an advance fires what it made due: the time stands at each due time. */
  private pinned: { stamp: number; timer: number } | undefined
  private readonly timers = new TimerHeap()
  private armed: { due: number; handle: NodeJS.Timeout } | undefined
  private advancing = false
  private stopped = false

  constructor(options: ClockOptions = {}) {
    this.monotonic = options.monotonic ?? (() => performance.now())
    if (options.real) {
      const real = options.real
      this.realTime = () => real().getTime()
    } else {
      const wallAtStart = Date.now()
      const monoAtStart = this.monotonic()
      this.realTime = () => wallAtStart + (this.monotonic() - monoAtStart)
    }
    this.onError = options.onError ?? (() => {})
    this.advanceWaitMs = options.advanceWaitMs ?? 60_000
  }

  /** The sandbox's time: never earlier than the last time it gave. */
  now(): Date {
    return new Date(this.nowMs())
  }

  nowMs(): number {
    return this.nowAt(this.realTime())
  }

  /** The sandbox's time when real time is `real` (read once by a move, which works out both from it). */
  private nowAt(real: number): number {
    const t = Math.min(this.pinned ? this.pinned.stamp : Math.max(this.hold, real + this.offset), CLOCK_LATEST_MS)
    if (t > this.last) this.last = t
    return this.last
  }

  /** Puts back the clock as saved (at start). */
  load(record: ClockRecord): void {
    this.offset = Number.isFinite(record.offsetMs) ? record.offsetMs : 0
    const hold = record.holdUntil !== undefined ? Date.parse(record.holdUntil) : Number.NaN
    this.hold = Number.isFinite(hold) ? hold : -Infinity
  }

  record(): ClockRecord {
    return { offsetMs: this.offset, ...(Number.isFinite(this.hold) ? { holdUntil: new Date(this.hold).toISOString() } : {}) }
  }

  view(): ClockView {
    const real = this.realTime()
    const now = this.nowAt(real)
    const holding = this.offset === 0 && this.hold > real
    return {
      now: new Date(now).toISOString(),
      realNow: new Date(real).toISOString(),
      aheadMs: Math.max(0, Math.round(now - real)),
      offsetMs: this.offset,
      ...(holding ? { holdingUntil: new Date(this.hold).toISOString() } : {}),
      real: this.offset === 0 && !holding,
    }
  }

  // ── moves: worked out, saved by the owner, then applied ───────────────

  /** The move to `ms` milliseconds from now; a RangeError when that is past CLOCK_LATEST. */
  advanceBy(ms: number): ClockMove {
    const real = this.realTime()
    const now = this.nowAt(real)
    if (now + ms > CLOCK_LATEST_MS) {
      throw new RangeError(
        `the sandbox clock goes no later than ${CLOCK_LATEST}: it is at ${new Date(now).toISOString()}, and ${formatDuration(ms)} more would pass that`,
      )
    }
    return this.moveTo(now + ms, real)
  }

  /**
   * The move to `time`; a RangeError when it is earlier than the sandbox's time (the clock never goes back) or
   * later than CLOCK_LATEST. `text` is the time as asked, for the message.
   */
  setTo(time: number, text = String(time)): ClockMove {
    const real = this.realTime()
    const now = this.nowAt(real)
    if (time > CLOCK_LATEST_MS) throw new RangeError(`the sandbox clock can be set ${CLOCK_RANGE} (got ${text})`)
    if (time < now) {
      throw new RangeError(
        `${new Date(time).toISOString()} is before the sandbox clock's time ${new Date(now).toISOString()}; the clock only moves forward (pay clock reset goes back to real time once real time catches up)`,
      )
    }
    return this.moveTo(time, real)
  }

  /** Back to real time: the offset goes, and the time stands still until real time reaches it. */
  resetMove(): ClockMove {
    const now = this.nowMs()
    const real = this.realTime()
    return { record: now > real ? { offsetMs: 0, holdUntil: new Date(now).toISOString() } : REAL_TIME, jumpMs: 0, target: now }
  }

  /**
   * Both the offset and the jump from one reading of real time (`real`, the one `now` was read at): an advance by
   * an hour puts the clock exactly an hour ahead, however long the machine takes between two readings.
   */
  private moveTo(target: number, real: number): ClockMove {
    return { record: { offsetMs: target - real, holdUntil: new Date(target).toISOString() }, jumpMs: target - this.nowAt(real), target }
  }

  /**
   * Applies a saved move: fires, in due order, every timer that becomes due within it, waiting for each due
   * time's tasks before the next. Resolves with the number of timers fired. Moves must not overlap (their owner
   * runs one at a time).
   */
  async apply(move: ClockMove): Promise<number> {
    this.advancing = true
    let fired = 0
    const stamp0 = this.nowMs()
    const timer0 = this.timerNow()
    const end = timer0 + Math.max(0, move.jumpMs)
    // Real time: the budget for waiting on fired tasks.
    const giveUpAt = performance.now() + this.advanceWaitMs
    try {
      for (;;) {
        const top = this.timers.peek()
        if (!top || top.due > end || this.stopped) break
        const due = top.due
        this.pinned = { stamp: Math.max(stamp0 + (due - timer0), stamp0), timer: due }
        const batch: TimerEntry[] = []
        while (this.timers.peek()?.due === due) batch.push(this.timers.pop()!)
        fired += batch.length
        const running = Promise.allSettled(batch.map((t) => this.run(t)))
        const left = giveUpAt - performance.now()
        if (left > 0) {
          let timeout: NodeJS.Timeout | undefined
          await Promise.race([running, new Promise((r) => (timeout = setTimeout(r, left)))])
          clearTimeout(timeout)
        }
      }
    } finally {
      this.pinned = undefined
      this.offset = move.record.offsetMs
      const hold = move.record.holdUntil !== undefined ? Date.parse(move.record.holdUntil) : Number.NaN
      // Stamps given since the move was worked out count too: the time never goes back.
      this.hold = Number.isFinite(hold) ? Math.max(hold, this.last) : -Infinity
      this.jumped += Math.max(0, move.jumpMs)
      this.advancing = false
      this.arm()
    }
    return fired
  }

  // ── timers ────────────────────────────────────────────────────────────

  /** Runs `task` once `ms` of sandbox time have passed (at once when the clock is advanced past it). */
  after(ms: number, task: TimerTask): Timer {
    const entry = this.timers.push(this.timerNow() + Math.max(0, ms), task)
    this.arm()
    return { cancel: () => this.cancel(entry) }
  }

  /** Runs `task` once the sandbox's time reaches `time` (ms since the epoch), even while the clock stands still. */
  at(time: number, task: TimerTask): Timer {
    let current: Timer | undefined
    let cancelled = false
    const schedule = (): void => {
      current = this.after(time - this.nowMs(), () => {
        if (cancelled) return undefined
        // A reset made the time stand still meanwhile: wait on until it is reached.
        if (this.nowMs() < time) return schedule()
        return task()
      })
    }
    schedule()
    return {
      cancel: () => {
        cancelled = true
        current?.cancel()
      },
    }
  }

  /** Cancels every timer; none is armed again. */
  stop(): void {
    this.stopped = true
    this.timers.clear()
    if (this.armed) clearTimeout(this.armed.handle)
    this.armed = undefined
  }

  /** Timers waiting (cancelled ones may still be counted until they surface). */
  get waiting(): number {
    return this.timers.size
  }

  private timerNow(): number {
    return this.pinned ? this.pinned.timer : this.monotonic() + this.jumped
  }

  private cancel(entry: TimerEntry): void {
    entry.cancelled = true
  }

  /** One real timeout, for the earliest timer. */
  private arm(): void {
    if (this.stopped || this.advancing) return
    const top = this.timers.peek()
    if (this.armed && (!top || this.armed.due !== top.due)) {
      clearTimeout(this.armed.handle)
      this.armed = undefined
    }
    if (!top || this.armed) return
    const wait = Math.min(Math.max(top.due - this.timerNow(), 0), MAX_TIMEOUT_MS)
    const handle = setTimeout(() => {
      this.armed = undefined
      this.fireDue()
    }, wait)
    handle.unref()
    this.armed = { due: top.due, handle }
  }

  /** Real time reached the earliest timers: they run, without waiting for one another. */
  private fireDue(): void {
    if (this.advancing || this.stopped) return
    const now = this.timerNow()
    for (let top = this.timers.peek(); top && top.due <= now; top = this.timers.peek()) {
      void this.run(this.timers.pop()!)
    }
    this.arm()
  }

  private async run(entry: TimerEntry): Promise<void> {
    if (entry.cancelled) return
    try {
      await entry.task()
    } catch (error) {
      this.onError(error)
    }
  }
}
