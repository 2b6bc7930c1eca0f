import { SandboxError } from '../domain/outcomes.js'
import { brief } from '../domain/brief.js'
import { CLOCK_RANGE } from '../domain/clock-range.js'
import type { ClockRecord } from '../domain/types.js'
import type { Store } from '../store/store.js'
import type { ClockMove, SandboxClock } from './sandbox-clock.js'
import type { ClockChange, ClockView } from './schemas.js'

export type { ClockChange }

/**
 * Moves of the sandbox clock, one at a time: each is saved before it takes effect (so a restart keeps it), then
 * fires what became due and answers once that is done. A move saved through another instance sharing the store
 * reaches this one through the store's change feed, and takes effect here too.
 */
export class ClockService {
  private tail: Promise<unknown> = Promise.resolve()
  /** A move saved through another instance, not yet taken on here. */
  private remote: ClockRecord | undefined
  private catchingUp = false

  constructor(
    private readonly store: Store,
    readonly clock: SandboxClock,
  ) {
    store.onApplied((applied, origin) => {
      if (origin !== 'remote') return
      for (const { change } of applied) if (change.k === 'clock') this.follow(change.v)
    })
  }

  view(): ClockView {
    return this.clock.view()
  }

  /** The clock once a move saved through another instance has taken effect here (what it made due has run). */
  async settledView(): Promise<ClockView> {
    if (this.remote || this.catchingUp) await this.tail
    return this.clock.view()
  }

  /** By `ms`; 400 when that would take the clock past CLOCK_LATEST. */
  advance(ms: number): Promise<ClockChange> {
    return this.move(() => refused(() => this.clock.advanceBy(ms)))
  }

  /** To `time` (ISO 8601); 400 naming it when it is before the sandbox's time or past CLOCK_LATEST. */
  set(time: string): Promise<ClockChange> {
    const ms = Date.parse(time)
    if (!Number.isFinite(ms)) {
      throw new SandboxError('invalidField', `time must be an ISO 8601 date and time ${CLOCK_RANGE}, e.g. 2030-01-31T12:00:00Z (got ${brief(time)})`)
    }
    return this.move(() => refused(() => this.clock.setTo(ms, brief(time))))
  }

  reset(): Promise<ClockChange> {
    return this.move(() => this.clock.resetMove())
  }

  /** Takes on a move saved through another instance (in turn with this one's own moves), firing what became due here. */
  private follow(record: ClockRecord): void {
    this.remote = record
    this.tail = this.tail.then(() => this.catchUp()).catch(() => {})
  }

  /** Applies the latest move saved through another instance that this clock has not taken on yet. */
  private async catchUp(): Promise<void> {
    const record = this.remote
    if (!record) return
    this.remote = undefined
    this.catchingUp = true
    try {
      await this.clock.apply(moveTo(this.clock, record))
    } finally {
      this.catchingUp = false
    }
  }

  private move(plan: () => ClockMove): Promise<ClockChange> {
    const run = this.tail.then(async () => {
      // Worked out again when another instance moved the clock meanwhile: from the time that move set.
      const move = await this.store.retrying(async () => {
        await this.catchUp()
        const planned = plan()
        await this.store.putClock(planned.record)
        return planned
      })
      const fired = await this.clock.apply(move)
      return { clock: this.clock.view(), fired }
    })
    this.tail = run.catch(() => {})
    return run
  }
}

/** The move a clock record saved elsewhere makes here: to its time (an advance or a set), or back to real time. */
function moveTo(clock: SandboxClock, record: ClockRecord): ClockMove {
  const now = clock.nowMs()
  const held = record.holdUntil !== undefined ? Date.parse(record.holdUntil) : Number.NaN
  const target = record.offsetMs !== 0 && Number.isFinite(held) ? held : now
  return { record, jumpMs: Math.max(0, target - now), target }
}

/** A move the clock refuses (RangeError: out of its range) is a 400 naming the field. */
function refused(plan: () => ClockMove): ClockMove {
  try {
    return plan()
  } catch (error) {
    if (error instanceof RangeError) throw new SandboxError('invalidField', error.message)
    throw error
  }
}
