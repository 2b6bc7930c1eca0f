import { SandboxError } from '../domain/outcomes.js'
import { brief } from '../domain/brief.js'
import { CLOCK_RANGE } from '../domain/clock-range.js'
import type { Store } from '../store/store.js'
import type { ClockMove, SandboxClock } from './sandbox-clock.js'
import type { ClockChange, ClockView } from './schemas.js'

export type { ClockChange }

/**
 * Moves of the sandbox clock, one at a time: each is saved before it takes effect (so a restart keeps it), then
 * fires what became due and answers once that is done.
 */
export class ClockService {
  private tail: Promise<unknown> = Promise.resolve()

  constructor(
    private readonly store: Store,
    readonly clock: SandboxClock,
  ) {}

  view(): ClockView {
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

  private move(plan: () => ClockMove): Promise<ClockChange> {
    const run = this.tail.then(async () => {
      const move = plan()
      await this.store.putClock(move.record)
      const fired = await this.clock.apply(move)
      return { clock: this.clock.view(), fired }
    })
    this.tail = run.catch(() => {})
    return run
  }
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
