import { randomInt } from 'node:crypto'
import { type ApiFault, faultOf, type FaultRule, type FaultRuleInput, faultRuleProblem, type FaultSource, type FaultTarget, MAX_SEED, newFaultRule, plays, ruleMatches } from '../domain/api-fault.js'
import type { FaultChange, FaultHit } from '../domain/api-fault-hit.js'
import { newFaultId } from '../domain/ids.js'
import { SandboxError } from '../domain/outcomes.js'
import type { PaymentListener } from '../service/sandbox.js'
import type { Store } from '../store/store.js'

/** Rules kept at most: each request is matched against every rule. */
export const MAX_FAULT_RULES = 200

/** A rule that decided to play its fault on a request. */
export interface FaultDecision {
  rule: FaultRule
  fault: ApiFault
  /** The rule's new counts, on disk: the fault plays once it is (a restart goes on from the same place). */
  saved: Promise<void>
}

/**
 * The API fault rules: added, listed and removed through the store, and asked, request by request, whether one
 * plays its fault. Decisions are taken from the rules as they are now, pending writes included, in one turn of the
 * event loop, so two requests never take the same place in a rule's sequence; each rule's counts are written before
 * its fault plays. A reset or an import removes the rules with the payments.
 */
export class FaultService implements PaymentListener {
  /** The rules, pending changes included: the writers' view. Readers get the store's durable rules. */
  private readonly rules = new Map<string, FaultRule>()
  private readonly listeners = new Set<() => void>()

  constructor(
    private readonly store: Store,
    private readonly now: () => Date,
  ) {
    for (const rule of store.faultRules()) this.rules.set(rule.id, rule)
    store.onApplied((applied, origin) => {
      let changed = false
      for (const { change } of applied) {
        // Rules another instance of the sandbox added, counted or removed join this one's view as they come.
        if (origin === 'remote' && (change.k === 'reset' || change.k === 'replace')) this.rules.clear()
        if (change.k !== 'fault') continue
        changed = true
        if (origin === 'remote') this.follow(change.v)
      }
      if (changed) for (const listener of this.listeners) listener()
    })
  }

  /** A change another instance made to the rules, in this one's view. */
  private follow(c: FaultChange): void {
    if (c.t === 'rule') this.rules.set(c.v.id, c.v)
    else if (c.t === 'count') {
      const rule = this.rules.get(c.id)
      if (rule) this.rules.set(c.id, { ...rule, matched: Math.max(rule.matched, c.matched), played: Math.max(rule.played, c.played) })
    } else if (c.t === 'off') this.rules.delete(c.id)
    else if (c.t === 'clear') this.rules.clear()
  }

  /** Whether there is any rule to ask: without one, a request is not looked at. */
  get active(): boolean {
    return this.rules.size > 0
  }

  /** The rules as written, oldest first. */
  list(): FaultRule[] {
    return this.store.faultRules()
  }

  /** Adds a rule; 400 invalid_field naming what is wrong with one that is not a rule. */
  async add(input: unknown, source: FaultSource = 'api'): Promise<FaultRule> {
    const problem = faultRuleProblem(input)
    if (problem !== undefined) throw new SandboxError('invalidField', problem)
    if (this.rules.size >= MAX_FAULT_RULES) throw new SandboxError('invalidField', `the sandbox keeps at most ${MAX_FAULT_RULES} fault rules; remove some first (pay fault clear)`)
    let id = newFaultId()
    while (this.rules.has(id)) id = newFaultId()
    const rule = newFaultRule(input as FaultRuleInput, { id, at: this.now().toISOString(), source, randomSeed: () => randomInt(0, MAX_SEED + 1) })
    this.rules.set(id, rule)
    try {
      await this.store.putFault({ t: 'rule', v: rule })
    } catch (error) {
      if (this.rules.get(id) === rule) this.rules.delete(id)
      throw error
    }
    return rule
  }

  /** Removes one rule; 404 for an id the sandbox does not have. */
  async remove(id: string): Promise<FaultRule> {
    const rule = this.rules.get(id)
    if (!rule) throw new SandboxError('notFound', `no fault rule ${id}${this.rules.size > 0 ? ` (rules: ${[...this.rules.keys()].slice(0, 10).join(', ')})` : ' (there are none)'}`)
    this.rules.delete(id)
    await this.store.putFault({ t: 'off', id })
    return rule
  }

  /** Removes every rule (or only those `source` made); resolves with the rules removed. */
  async clear(source?: FaultSource): Promise<FaultRule[]> {
    const removed = [...this.rules.values()].filter((r) => source === undefined || r.source === source)
    if (removed.length === 0) return []
    if (source === undefined) {
      this.rules.clear()
      await this.store.putFault({ t: 'clear' })
      return removed
    }
    for (const rule of removed) this.rules.delete(rule.id)
    await Promise.all(removed.map((rule) => this.store.putFault({ t: 'off', id: rule.id })))
    return removed
  }

  /**
   * Whether a rule plays its fault on this request: the rules in the order they were added, each whose route and scope
   * the request is in counting it, until one plays. Undefined when none does.
   */
  decide(target: FaultTarget): FaultDecision | undefined {
    const counted: Promise<void>[] = []
    for (const rule of this.rules.values()) {
      if (!ruleMatches(rule, target)) continue
      const matched = rule.matched + 1
      const playing = plays(rule, matched)
      const next: FaultRule = { ...rule, matched, played: rule.played + (playing ? 1 : 0) }
      this.rules.set(rule.id, next)
      counted.push(this.store.putFault({ t: 'count', id: rule.id, matched: next.matched, played: next.played }))
      if (playing) return { rule: next, fault: faultOf(next)!, saved: Promise.all(counted).then(() => undefined) }
    }
    // Counts of rules that did not play are written all the same; a failed write is the next request's to report.
    for (const c of counted) c.catch(() => {})
    return undefined
  }

  /** Records a fault played, for the audit and the pages (written without holding anything). */
  record(hit: FaultHit): void {
    this.store.observeFaultHit(hit)
  }

  /** Calls `listener` once a change of the rules, or a fault played, is durable (whichever instance made it); returns how to stop. */
  onChanged(listener: () => void): () => void {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }

  /** The latest faults played, as written, oldest first. */
  hits(): FaultHit[] {
    return this.store.faultHits()
  }

  /** The latest faults played on a payment's requests (its verifies and checkout page, or the create that made it), oldest first. */
  hitsOf(trackId: string): FaultHit[] {
    return this.hits().filter((h) => h.trackId === trackId)
  }

  /** A reset or an import is being written: the rules go with the payments. */
  activityCleared(): void {
    this.rules.clear()
  }
}
