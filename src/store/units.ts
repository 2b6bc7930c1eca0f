import type { Change } from './changes.js'
import type { Expectation, UnitWrite } from './engine.js'
import { keyOf, keyText, type RecordKey, type RecordKind, REPLACE_KINDS, RESET_KINDS } from './keys.js'
import type { PendingView } from './pending.js'
import type { State } from './state.js'

/** A unit waiting to be written, being written, or settled. */
export interface Unit {
  changes: readonly Change[]
  expects: Expectation[]
  /** Local units not yet durable when this one was made, and the record it took from each. */
  deps: Dep[] | undefined
  /** Units made on top of this one while it was not yet durable. */
  dependents: Dep[] | undefined
  /** Order of making, for the writers' view (0: observations, which that view never shows). */
  ticket: number
  state: 'queued' | 'writing' | 'done'
  /** Its place in the write under way. */
  index: number
  resolve: () => void
  reject: (error: Error) => void
}

interface Dep {
  unit: Unit
  key: RecordKey
}

/**
 * The units not yet durable, and what each was based on. A unit expects of each record it writes the version the
 * writer saw: the durable one, or, when a unit not yet durable writes (or clears) that record, whatever that unit
 * leaves. It then depends on that unit: written in the same write, it says so (`basedOn`); written in a later
 * one, it expects the version the earlier one gave the record once applied; refused with it when it is refused.
 */
export class Units {
  private tickets = 0
  /** Per record key, the latest unit not yet durable that writes it. */
  private readonly writers = new Map<string, Unit>()
  /** Per kind of record, a reset or import not yet durable that clears them. */
  private readonly clearing = new Map<RecordKind, Unit>()

  constructor(
    private readonly durable: State,
    private readonly pending: PendingView,
  ) {}

  /** A unit of changes someone waits for, laid over the writers' view. */
  make(changes: readonly Change[], resolve: () => void, reject: (error: Error) => void): Unit {
    const unit: Unit = { changes, expects: [], deps: undefined, dependents: undefined, ticket: ++this.tickets, state: 'queued', index: -1, resolve, reject }
    for (const change of changes) this.note(unit, change)
    return unit
  }

  /** Observations: written with a batch, expecting nothing, shown to no writer before they are durable. */
  observations(changes: readonly Change[]): Unit {
    return { changes, expects: [], deps: undefined, dependents: undefined, ticket: 0, state: 'queued', index: -1, resolve: noop, reject: noop }
  }

  private note(unit: Unit, change: Change): void {
    this.pending.noted(unit.ticket, change)
    if (change.k === 'reset' || change.k === 'replace') {
      const kinds = change.k === 'reset' ? RESET_KINDS : REPLACE_KINDS
      for (const kind of kinds) this.clearing.set(kind, unit)
      for (const key of [...this.writers.keys()]) if (kinds.some((kind) => key.startsWith(`${kind}:`))) this.writers.delete(key)
      return
    }
    const key = keyOf(change)
    if (!key) return
    const text = keyText(key)
    const writer = this.writers.get(text) ?? this.clearing.get(key.kind)
    if (writer === unit) return
    if (writer) {
      ;(unit.deps ??= []).push({ unit: writer, key })
      ;(writer.dependents ??= []).push({ unit, key })
    } else {
      unit.expects.push({ key: text, version: this.durable.versionOf(key) })
    }
    this.writers.set(text, unit)
  }

  /** The batch as the engine writes it. Units it depends on that are not yet durable are in the same batch. */
  toWrite(batch: readonly Unit[]): UnitWrite[] {
    return batch.map((unit, index) => {
      unit.state = 'writing'
      unit.index = index
      if (!unit.deps) return { changes: unit.changes, expects: unit.expects }
      return { changes: unit.changes, expects: unit.expects, basedOn: unit.deps.map((d) => d.unit.index) }
    })
  }

  /** The unit is written and applied: units made on top of it and still queued expect what it left. */
  written(unit: Unit): void {
    this.settle(unit)
    for (const dep of unit.dependents ?? []) {
      const waiting = dep.unit
      if (waiting.state !== 'queued') continue
      waiting.expects.push({ key: keyText(dep.key), version: this.durable.versionOf(dep.key) })
      waiting.deps = waiting.deps?.filter((d) => d.unit !== unit)
      if (waiting.deps?.length === 0) waiting.deps = undefined
    }
  }

  /** The unit is not written: it, and the queued units made on top of it, are settled; those are returned. */
  refused(unit: Unit): Unit[] {
    this.settle(unit)
    const more: Unit[] = []
    for (const dep of unit.dependents ?? []) if (dep.unit.state === 'queued') more.push(dep.unit, ...this.refused(dep.unit))
    return more
  }

  /** A write failed: every unit not yet durable failed with it. */
  clear(): void {
    this.pending.clear()
    this.writers.clear()
    this.clearing.clear()
  }

  /** The durable state answers for the unit's records now. */
  private settle(unit: Unit): void {
    unit.state = 'done'
    for (const change of unit.changes) {
      if (unit.ticket > 0) this.pending.settled(unit.ticket, change)
      const key = keyOf(change)
      if (key) {
        const text = keyText(key)
        if (this.writers.get(text) === unit) this.writers.delete(text)
      } else if (change.k === 'reset' || change.k === 'replace') {
        for (const [kind, clearer] of [...this.clearing]) if (clearer === unit) this.clearing.delete(kind)
      }
    }
  }
}

function noop(): void {}
