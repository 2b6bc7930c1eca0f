import type { Change } from '../../src/store/changes.js'
import type { EngineHost, EngineOpened, Leadership, RemoteUnit, StoreEngine, UnitResult, UnitWrite, WriteOutcome } from '../../src/store/engine.js'
import { keyOf, keyText } from '../../src/store/keys.js'

/**
 * A log in memory that several engines share, as instances share a database: units in seq order, and each record
 * key's version (the seq that last wrote it). It checks expectations as a shared engine must; it knows only the
 * keyed changes the tests make (no reset or import).
 */
export class SharedLog {
  readonly units: Array<RemoteUnit & { by: string }> = []
  private readonly heads = new Map<string, number>()
  /** Told after each write, as a database's notifications tell its listeners (when the log notifies). */
  readonly listeners = new Set<() => void>()
  seq = 0

  constructor(private readonly notify = false) {}

  /** Writes units whose expectations hold, in order; the others are answered with a conflict. */
  write(by: string, units: readonly UnitWrite[], refuse: (unit: UnitWrite) => string | undefined): UnitResult[] {
    const results: UnitResult[] = []
    for (const unit of units) {
      const stale = unit.expects.find((e) => (this.heads.get(e.key) ?? 0) !== e.version)
      const notWritten = unit.basedOn?.find((i) => !results[i]?.ok)
      const refused = refuse(unit)
      if (stale || notWritten !== undefined || refused) {
        results.push({ ok: false, conflict: refused ?? (stale ? `${stale.key} is no longer at ${stale.version}` : `unit ${notWritten} was not written`) })
        continue
      }
      const seq = this.seq + 1
      for (const change of unit.changes) {
        this.seq++
        const key = keyOf(change)
        if (key) this.heads.set(keyText(key), this.seq)
      }
      this.units.push({ seq, changes: unit.changes, by })
      results.push({ ok: true, seq })
    }
    if (this.notify && results.some((r) => r.ok)) setImmediate(() => this.listeners.forEach((listener) => listener()))
    return results
  }

  after(seq: number): RemoteUnit[] {
    return this.units.filter((u) => u.seq > seq)
  }
}

/** One instance's engine on a SharedLog; tests can refuse units, hold pulls, count calls. */
export class MemoryEngine implements StoreEngine {
  readonly location: string
  writes = 0
  pulls = 0
  /** Answers a unit with this conflict instead of writing it (undefined: write it). */
  refuse: (unit: UnitWrite) => string | undefined = () => undefined
  /** Awaited before a pull answers. */
  beforePull: () => Promise<void> = async () => {}
  failPull: Error | undefined

  readonly leadership: Leadership | undefined

  /**
   * `leads`: whether this instance runs the jobs that run once (one of those sharing a log should); null: the engine
   * says nothing of it, as an engine nothing else shares.
   */
  constructor(
    readonly log: SharedLog,
    readonly name: string,
    leads: boolean | null = true,
  ) {
    this.location = `memory:${name}`
    this.leadership =
      leads === null
        ? undefined
        : {
            leading: leads,
            watch(roles) {
              if (leads) roles.lead()
              return () => {}
            },
          }
  }

  onRemote(wake: () => void): () => void {
    this.log.listeners.add(wake)
    return () => this.log.listeners.delete(wake)
  }

  async open(into: EngineHost, seed: () => readonly Change[]): Promise<EngineOpened> {
    into.load({ merchants: [], payments: [], deliveries: [] }, 0)
    for (const unit of this.log.units) unit.changes.forEach((change, i) => into.replay(change, unit.seq + i))
    const created = this.log.units.length === 0
    if (created) {
      const changes = seed()
      this.log.write(this.name, [{ changes, expects: [] }], () => undefined)
      changes.forEach((change, i) => into.replay(change, i + 1))
    }
    return { seq: this.log.seq, report: { created, replayed: 0, tornBytes: 0, removedTemps: 0 } }
  }

  async write(units: readonly UnitWrite[], after: number): Promise<WriteOutcome> {
    this.writes++
    const remote = this.log.after(after)
    const results = this.log.write(this.name, units, (unit) => {
      const why = this.refuse(unit)
      return why
    })
    return { results, remote }
  }

  async pull(after: number): Promise<RemoteUnit[]> {
    this.pulls++
    await this.beforePull()
    if (this.failPull) throw this.failPull
    return this.log.after(after)
  }

  async flush(): Promise<void> {}
  async close(): Promise<void> {}
  async release(): Promise<void> {}
}

/** A refusal that answers the first unit writing `key` with a conflict, once. */
export function conflictOnce(key: string): (unit: UnitWrite) => string | undefined {
  let done = false
  return (unit) => {
    if (done || !unit.changes.some((c) => { const k = keyOf(c); return k !== undefined && keyText(k) === key })) return undefined
    done = true
    return `${key} changed meanwhile (the test's engine says so once)`
  }
}
