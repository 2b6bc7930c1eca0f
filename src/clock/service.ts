import { SandboxError } from '../domain/outcomes.js'
import { brief } from '../domain/brief.js'
import { CLOCK_RANGE } from '../domain/clock-range.js'
import type { ClockRecord } from '../domain/types.js'
import type { SharedEntries, Store } from '../store/store.js'
import type { ClockMove, SandboxClock } from './sandbox-clock.js'
import type { ClockChange, ClockView } from './schemas.js'

export type { ClockChange }

/** How many of the leader's word on moves are kept (a waiter looks for its own among the newest). */
const FIRED_KEEP = 64
/** How long a move through an instance that does not lead waits for the leader (as long as an advance waits for its tasks). */
const LEADER_WAIT_MS = 60_000

/**
 * Moves of the sandbox clock, one at a time: each is saved before it takes effect (so a restart keeps it), then
 * fires what became due and answers once that is done. A move saved through another instance sharing the store
 * reaches this one through the store's change feed, and takes effect here too.
 */
export class ClockService {
  private tail: Promise<unknown> = Promise.resolve()
  /** A move saved through another instance (and its seq), not yet taken on here. */
  private remote: { record: ClockRecord; seq: number } | undefined
  private catchingUp = false
  /**
   * A team sandbox's leader says here which moves it has taken on (the seq of each, and what it fired): a move
   * through another instance answers once the leader has fired what it made due, as a move in one process does.
   */
  private readonly fired: SharedEntries | undefined

  constructor(
    private readonly store: Store,
    readonly clock: SandboxClock,
  ) {
    this.fired = store.sharedEntries('clock-fired', FIRED_KEEP)
    store.onApplied((applied, origin) => {
      if (origin !== 'remote') return
      for (const { change, seq } of applied) if (change.k === 'clock') this.follow(change.v, seq)
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
  private follow(record: ClockRecord, seq: number): void {
    this.remote = { record, seq }
    this.tail = this.tail.then(() => this.catchUp()).catch(() => {})
  }

  /** Applies the latest move saved through another instance that this clock has not taken on yet; the leader says so. */
  private async catchUp(): Promise<void> {
    const remote = this.remote
    if (!remote) return
    this.remote = undefined
    this.catchingUp = true
    try {
      const fired = await this.clock.apply(moveTo(this.clock, remote.record))
      if (this.fired && this.store.leadership.leading) await this.fired.append([JSON.stringify({ seq: remote.seq, fired })]).catch(() => {})
    } finally {
      this.catchingUp = false
    }
  }

  /**
   * What the leader fired for the move at `seq` (or a later one), once it says so; 0 when this instance leads, or
   * when no leader says so within the clock's wait for fired tasks.
   */
  private leaderFired(seq: number): Promise<number> {
    const fired = this.fired
    if (!fired || this.store.leadership.leading) return Promise.resolve(0)
    return new Promise<number>((resolve) => {
      let done = false
      const finish = (n: number) => {
        if (done) return
        done = true
        clearTimeout(timer)
        stop()
        resolve(n)
      }
      const look = () =>
        void fired
          .newest(FIRED_KEEP)
          .then((rows) => {
            for (const row of rows) {
              const said = JSON.parse(row.text) as { seq: number; fired: number }
              if (said.seq >= seq) return finish(said.fired)
            }
          })
          .catch(() => {})
      const stop = fired.onAppended(look)
      const timer = setTimeout(() => finish(0), LEADER_WAIT_MS)
      look()
    })
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
      let fired = await this.clock.apply(move)
      // Through an instance that does not lead: what the move made due is fired by the leader.
      if (this.fired) fired += await this.leaderFired(this.store.seq)
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
