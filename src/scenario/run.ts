import { isDeepStrictEqual } from 'node:util'
import { SandboxApiError, type SandboxClient, type Delivery } from '../client/index.js'
import { compactFault, type FaultRuleInput } from '../domain/api-fault.js'
import { checkoutTrackId } from '../domain/checkout-url.js'
import { formatDuration } from '../domain/duration.js'
import { DEFAULT_CHAT_ID } from '../telegram/messages.js'
import { shownPattern } from './pattern.js'
import { CallbackReceiver, type ReceivedCallback } from './receiver.js'
import { ChatSteps, shownBot } from './run-chat.js'
import { type HttpAccess, LOCAL_ONLY } from './http-call.js'
import { HttpSteps } from './run-http.js'
import { LabSteps, Unmet } from './run-lab.js'
import { resolveValue, type Json } from './template.js'
import type { CallbackStep, ChatStep, CreateStep, FaultStep, HttpStep, JsonMatcher, PaymentRef, Presence, Scenario, SimulateStep, Step, StepKind, VerifyStep } from './types.js'

export type StepOutcome = 'passed' | 'failed' | 'skipped'

export interface StepReport {
  number: number
  kind: StepKind
  title: string
  outcome: StepOutcome
  ms: number
  /** Why it failed: an expectation not met, or a request that could not be made. */
  message?: string
  /** What a passed step found or did, when that is worth showing (a chat step: the bot's message it matched). */
  detail?: string
  /** The failure was not an expectation but an error (sandbox unreachable, a refused request …). */
  error?: boolean
}

export interface ScenarioReport {
  file: string
  name: string
  description?: string
  ok: boolean
  startedAt: string
  ms: number
  steps: StepReport[]
}

export interface RunReport {
  ok: boolean
  url: string
  ms: number
  totals: { scenarios: number; failedScenarios: number; steps: number; passed: number; failed: number; skipped: number }
  scenarios: ScenarioReport[]
}

export interface RunOptions {
  client: SandboxClient
  /** Told of each step as it ends (for streaming output). */
  onStep?: (scenario: Scenario, step: StepReport) => void
  onScenarioStart?: (scenario: Scenario) => void
  /** Poll interval for the sandbox's delivery log. */
  pollMs?: number
  /**
   * Which hosts http steps may call: by default loopback addresses, localhost and the sandbox's own host (a
   * scenario file must not be able to send its environment elsewhere).
   */
  http?: HttpAccess
}

/** Runs scenarios one after another against the sandbox the client talks to. Only the client is used. */
export async function runScenarios(scenarios: Scenario[], options: RunOptions): Promise<RunReport> {
  const started = performance.now()
  const reports: ScenarioReport[] = []
  for (const scenario of scenarios) reports.push(await runScenario(scenario, options))
  const steps = reports.flatMap((r) => r.steps)
  const count = (o: StepOutcome) => steps.filter((s) => s.outcome === o).length
  return {
    ok: reports.every((r) => r.ok),
    url: options.client.url,
    ms: Math.round(performance.now() - started),
    totals: {
      scenarios: reports.length,
      failedScenarios: reports.filter((r) => !r.ok).length,
      steps: steps.length,
      passed: count('passed'),
      failed: count('failed'),
      skipped: count('skipped'),
    },
    scenarios: reports,
  }
}

/** Runs one scenario; the steps after a failed one are skipped, since they may depend on it. */
export async function runScenario(scenario: Scenario, options: RunOptions): Promise<ScenarioReport> {
  options.onScenarioStart?.(scenario)
  const run = new ScenarioRun(scenario, options)
  const startedAt = new Date().toISOString()
  const started = performance.now()
  const steps: StepReport[] = []
  let failed = false
  try {
    for (const step of scenario.steps) {
      const title = step.title ?? defaultTitle(step)
      let report: StepReport
      if (failed) {
        report = { number: step.number, kind: step.kind, title, outcome: 'skipped', ms: 0 }
      } else {
        const t0 = performance.now()
        try {
          const detail = await run.step(step)
          report = { number: step.number, kind: step.kind, title, outcome: 'passed', ms: elapsed(t0), ...(typeof detail === 'string' ? { detail } : {}) }
        } catch (error) {
          failed = true
          report = {
            number: step.number,
            kind: step.kind,
            title,
            outcome: 'failed',
            ms: elapsed(t0),
            message: (error as Error).message,
            ...(error instanceof Unmet ? {} : { error: true }),
          }
        }
      }
      steps.push(report)
      options.onStep?.(scenario, report)
    }
  } finally {
    await run.close()
  }
  return {
    file: scenario.file,
    name: scenario.name,
    ...(scenario.description !== undefined ? { description: scenario.description } : {}),
    ok: !failed,
    startedAt,
    ms: elapsed(started),
    steps,
  }
}

function elapsed(t0: number): number {
  return Math.round(performance.now() - t0)
}

interface CreatedPayment {
  trackId: string
  checkoutUrl: string
  result: number
  message: string
  amount: unknown
  merchant: unknown
}

class ScenarioRun {
  private readonly client: SandboxClient
  private readonly pollMs: number
  private readonly bindings = new Map<string, Record<string, unknown>>()
  private readonly receivers = new Map<string, CallbackReceiver>()
  private readonly payments = new Map<string, CreatedPayment>()
  private readonly merchants = new Map<string, string>()
  /** Deliveries already matched by a callback step. */
  private readonly consumedDeliveries = new Set<string>()
  /** The API fault rules this run added: removed when it ends. */
  private readonly faults = new Set<string>()
  private readonly lab: LabSteps
  private readonly chat: ChatSteps
  private readonly http: HttpSteps

  constructor(
    private readonly scenario: Scenario,
    options: RunOptions,
  ) {
    this.client = options.client
    this.pollMs = options.pollMs ?? 50
    this.lab = new LabSteps(this.client, this.pollMs)
    this.chat = new ChatSteps(this.client, this.pollMs, (v) => this.resolve(v), this.lookup)
    this.http = new HttpSteps({ ...(options.http ?? LOCAL_ONLY), sandboxHost: new URL(this.client.url).hostname.replace(/^\[|\]$/g, '').toLowerCase() }, (v) => this.resolve(v), this.lookup)
    this.bindings.set('sandbox', { url: this.client.url })
    this.bindings.set('env', scenario.variables.env)
    this.bindings.set('vars', scenario.variables.vars)
  }

  private readonly lookup = (name: string, field: string, source: string): unknown => {
    const bound = this.bindings.get(name)
    if (!bound || !Object.hasOwn(bound, field) || bound[field] === undefined) throw new Unmet(`${source} has no value: "${name}" did not answer with ${field}`)
    return bound[field]
  }

  private resolve(value: Json): unknown {
    return resolveValue(value, this.lookup)
  }

  /** The trackId of a payment of this file, or the one a step names (a checkout URL stands for its trackId). */
  private trackIdOf(ref: PaymentRef): string {
    if ('payment' in ref) return this.payments.get(ref.payment)!.trackId
    const value = String(this.resolve(ref.trackId))
    return (value.includes('/') ? checkoutTrackId(value) : undefined) ?? value
  }

  /** Runs a step; resolves with what is worth showing of it, throws Unmet when an expectation is not met. */
  async step(step: Step): Promise<string | void> {
    switch (step.kind) {
      case 'receiver': {
        const verifyWith = step.verifyWith === undefined ? undefined : String(this.resolve(step.verifyWith))
        const receiver = new CallbackReceiver(step.as, step.failFirst, step.failStatus, {
          refuseRepeats: step.refuseRepeats,
          // A correct merchant: verify before answering.
          ...(verifyWith !== undefined
            ? { before: async (body: unknown) => {
                  const trackId = (body as { trackId?: unknown } | undefined)?.trackId
                  // The merchant's own verify: never marked as the operator's, whoever runs the scenario.
                  if (typeof trackId === 'string') await this.client.verifyPayment({ merchant: verifyWith, trackId }, { operator: false }).catch(() => {})
                } }
            : {}),
        })
        this.receivers.set(step.as, receiver)
        this.bindings.set(step.as, { url: await receiver.start() })
        return
      }
      case 'merchant': {
        const key = step.key === undefined ? undefined : this.resolve(step.key)
        const name = step.name === undefined ? `${this.scenario.name}: ${step.as}`.slice(0, 200) : this.resolve(step.name)
        const merchant = await this.client.createMerchant({
          ...(key !== undefined ? { key: key as string } : {}),
          name: name as string,
        })
        this.merchants.set(step.as, merchant.key)
        this.bindings.set(step.as, { key: merchant.key, name: merchant.name })
        return
      }
      case 'disable':
      case 'enable': {
        const merchant = await this.client.setMerchantEnabled(this.merchants.get(step.merchant)!, step.kind === 'enable')
        if (merchant.enabled !== (step.kind === 'enable')) throw new Unmet(`merchant ${merchant.key} is still ${merchant.enabled ? 'enabled' : 'disabled'}`)
        return
      }
      case 'wait':
        await new Promise((r) => setTimeout(r, step.ms))
        return
      case 'create':
        return this.create(step)
      case 'simulate':
        return this.simulate(step)
      case 'verify':
        return this.verify(step)
      case 'callback':
        return this.callback(step)
      case 'clock':
        return this.lab.clock(step)
      case 'mine':
        return this.lab.mine(step, step.until !== undefined ? this.payments.get(step.until)!.trackId : undefined)
      case 'verifies':
        return this.lab.verifies(step, this.trackIdOf(step))
      case 'audit': {
        const merchant = step.merchant === undefined ? undefined : String(this.resolve(step.merchant))
        const trackId = step.payment !== undefined ? this.payments.get(step.payment)!.trackId : step.trackId !== undefined ? this.trackIdOf({ trackId: step.trackId }) : undefined
        return this.lab.audit(step, { ...(merchant !== undefined ? { merchant } : {}), ...(trackId !== undefined ? { trackId } : {}) })
      }
      case 'fault':
        return this.fault(step)
      case 'chat': {
        const { detail, bound } = await this.chat.step(step)
        if (step.as !== undefined) this.bindings.set(step.as, bound ?? {})
        return detail
      }
      case 'http': {
        const { detail, bound } = await this.http.step(step)
        if (step.as !== undefined) this.bindings.set(step.as, bound)
        return detail
      }
    }
  }

  /** Adds the rule (references resolved, a payment of the file as its trackId), or removes every rule. */
  private async fault(step: FaultStep): Promise<string> {
    try {
      if ('clear' in step) {
        const cleared = await this.client.clearFaults()
        for (const rule of cleared) this.faults.delete(rule.id)
        return `${cleared.length} rule${cleared.length === 1 ? '' : 's'} removed`
      }
      const rule = this.resolve(step.rule) as Record<string, unknown>
      if (step.payment !== undefined) rule.trackId = this.payments.get(step.payment)!.trackId
      const added = await this.client.addFault(rule as unknown as FaultRuleInput)
      this.faults.add(added.id)
      return `rule ${added.id}: ${compactFault(added, 'show')}`
    } catch (error) {
      if (error instanceof SandboxApiError) throw new Unmet(`the sandbox refused the fault rule: ${error.message}`)
      throw error
    }
  }

  private async create(step: CreateStep): Promise<void> {
    const body = this.resolve(step.body) as Record<string, unknown>
    let answer: Record<string, unknown>
    try {
      // The merchant's own create: never marked as the operator's, so API faults play on it.
      answer = (await this.client.createPayment(body as never, { operator: false })) as unknown as Record<string, unknown>
    } catch (error) {
      if (error instanceof SandboxApiError && 'error' in step.expect) {
        const problems = [...check('error', step.expect.error, error.code)]
        if (step.expect.message !== undefined) problems.push(...presence('message', this.presenceValue(step.expect.message), error.message))
        if (problems.length > 0) throw new Unmet(problems.join('; '))
        if (step.as !== undefined) this.bindings.set(step.as, { message: error.message })
        return
      }
      throw error
    }
    const expect = step.expect
    if ('error' in expect) throw new Unmet(`expected request error ${expect.error}, got result ${String(answer.result)}${answer.message ? ` (${String(answer.message)})` : ''}`)
    const problems = [...check('result', expect.result, answer.result, answer.message)]
    if (expect.message !== undefined) problems.push(...presence('message', this.presenceValue(expect.message), answer.message))
    if (expect.trackId !== undefined) problems.push(...presence('trackId', expect.trackId, answer.trackId))
    if (problems.length > 0) throw new Unmet(problems.join('; '))
    if (step.as === undefined) return
    const bound: Record<string, unknown> = { result: answer.result, message: answer.message }
    if (typeof answer.trackId === 'string') {
      const created: CreatedPayment = {
        trackId: answer.trackId,
        checkoutUrl: this.client.checkoutUrl(answer.trackId),
        result: answer.result as number,
        message: answer.message as string,
        amount: body.amount,
        merchant: body.merchant,
      }
      this.payments.set(step.as, created)
      Object.assign(bound, created)
    }
    this.bindings.set(step.as, bound)
  }

  private async simulate(step: SimulateStep): Promise<void> {
    const trackId = this.trackIdOf(step)
    const amount = step.amount === undefined ? undefined : this.resolve(step.amount)
    const asset = step.asset === undefined ? undefined : this.resolve(step.asset)
    try {
      const payment = await this.client.simulate(trackId, {
        outcome: step.outcome,
        ...(amount !== undefined ? { amount: amount as number } : {}),
        ...(asset !== undefined ? { asset: asset as string } : {}),
        ...(step.callback !== undefined ? { callback: step.callback } : {}),
      })
      if ('error' in step.expect) throw new Unmet(`expected the sandbox to refuse with ${step.expect.error}, but the payment became ${payment.status}`)
      const problems = check('status', step.expect.status, payment.status)
      if (problems.length > 0) throw new Unmet(problems.join('; '))
    } catch (error) {
      if (!(error instanceof SandboxApiError)) throw error
      if (!('error' in step.expect)) throw new Unmet(`the sandbox refused: ${error.message} (${error.code})`)
      const problems = check('error', step.expect.error, error.code, error.message)
      if (problems.length > 0) throw new Unmet(problems.join('; '))
    }
  }

  private async verify(step: VerifyStep): Promise<void> {
    const payment = step.payment === undefined ? undefined : this.payments.get(step.payment)
    const trackId = step.trackId !== undefined ? this.resolve(step.trackId) : payment?.trackId
    const merchant = step.merchant !== undefined ? this.resolve(step.merchant) : payment?.merchant
    // By default the step plays the merchant's verify; with operator, the sandbox operator's look, which judges nothing.
    // Every answer under /api/v1 carries a result, a request error's or an API fault's (503) too: it is checked as any.
    const res = await this.client.raw({ method: 'POST', path: '/api/v1/verify', body: { trackId, merchant }, operator: step.operator })
    const answer = res.json as Record<string, unknown> | undefined
    if (typeof answer?.result !== 'number') {
      throw new Unmet(`verify answered HTTP ${res.status} with no result code${res.text ? `: ${JSON.stringify(res.text.slice(0, 120))}` : ''}${res.headers['x-pay-sandbox-fault'] !== undefined ? ` (fault rule ${String(res.headers['x-pay-sandbox-fault'])})` : ''}`)
    }
    if (step.as !== undefined) this.bindings.set(step.as, { ...answer })
    const { expect } = step
    const problems: string[] = []
    if (expect.result !== undefined) problems.push(...check('result', expect.result, answer.result, answer.message))
    if (expect.amount !== undefined) problems.push(...check('amount', this.resolve(expect.amount), answer.amount))
    if (expect.amountMatchesOrder !== undefined && payment) {
      const matches = answer.amount === payment.amount
      if (matches !== expect.amountMatchesOrder) {
        problems.push(
          expect.amountMatchesOrder
            ? `amount ${String(answer.amount)} differs from the order amount ${String(payment.amount)}`
            : `amount ${String(answer.amount)} equals the order amount; expected it to differ`,
        )
      }
    }
    if (expect.refNumber !== undefined) problems.push(...presence('refNumber', this.presenceValue(expect.refNumber), answer.refNumber))
    if (expect.message !== undefined) problems.push(...presence('message', this.presenceValue(expect.message), answer.message))
    if (problems.length > 0) throw new Unmet(`${problems.join('; ')} — answer ${JSON.stringify(answer)}`)
  }

  private presenceValue(p: Presence): Presence {
    return typeof p === 'string' ? String(this.resolve(p)) : p
  }

  private async callback(step: CallbackStep): Promise<void> {
    const match = this.resolve(step.match) as Record<string, unknown>
    if (step.payment !== undefined) match.trackId = this.payments.get(step.payment)!.trackId
    else if (step.trackId !== undefined) match.trackId = this.trackIdOf({ trackId: step.trackId })
    const wanted = describeMatch(match)
    if (step.receiver !== undefined) return this.callbackAtReceiver(step, match, wanted)
    return this.callbackInLog(step, match, wanted)
  }

  /** The receiver of this run got a POST with the fields, and answered it 2xx. */
  private async callbackAtReceiver(step: CallbackStep, match: Record<string, unknown>, wanted: string): Promise<void> {
    const receiver = this.receivers.get(step.receiver!)!
    const matching = () => receiver.received.filter((r) => !r.consumed && matches(r.body, match))
    const found = await receiver.waitFor(() => {
      const list = matching()
      const okAt = list.findIndex((r) => r.answered >= 200 && r.answered < 300)
      return okAt === -1 ? undefined : list.slice(0, okAt + 1)
    }, step.within)
    if (!found) {
      const seen = receiver.received.filter((r) => !r.consumed)
      throw new Unmet(
        `no callback ${wanted} answered 2xx at receiver ${receiver.name} within ${step.within} ms; ${
          seen.length === 0 ? 'it received nothing' : `it received ${seen.map(describeReceived).join(', ')}`
        }`,
      )
    }
    for (const r of found) r.consumed = true
    const success = found.at(-1)!
    const problems: string[] = []
    if (success.method !== 'POST') problems.push(`sent with ${success.method}, expected POST`)
    const type = String(success.headers['content-type'] ?? '')
    if (!/^application\/json\b/i.test(type)) problems.push(`Content-Type ${JSON.stringify(type)}, expected application/json`)
    if (step.attempts !== undefined && found.length !== step.attempts) {
      problems.push(`took ${found.length} attempt${found.length === 1 ? '' : 's'}, expected ${step.attempts}`)
    }
    if (problems.length > 0) throw new Unmet(`callback ${wanted}: ${problems.join('; ')}`)
  }

  /** The sandbox's delivery log shows a delivery with the fields delivered: the merchant's own URL got it. */
  private async callbackInLog(step: CallbackStep, match: Record<string, unknown>, wanted: string): Promise<void> {
    const trackId = match.trackId as string
    const deadline = performance.now() + step.within
    let deliveries: Delivery[] = []
    for (;;) {
      deliveries = (await this.client.getPayment(trackId)).deliveries.filter((d) => !this.consumedDeliveries.has(d.id))
      const found = deliveries.find((d) => d.state === 'delivered' && matches(d.body, match))
      if (found) {
        this.consumedDeliveries.add(found.id)
        if (step.attempts !== undefined && found.attempts.length !== step.attempts) {
          throw new Unmet(`callback ${wanted} (delivery ${found.id}) took ${found.attempts.length} attempts, expected ${step.attempts}`)
        }
        return
      }
      if (performance.now() >= deadline) break
      await new Promise((r) => setTimeout(r, this.pollMs))
    }
    throw new Unmet(
      `no delivered callback ${wanted} in the sandbox's log within ${step.within} ms; ${
        deliveries.length === 0
          ? 'no deliveries recorded for the payment'
          : `deliveries: ${deliveries.map((d) => `${d.id} status=${String(d.body.status)} ${d.state} after ${d.attempts.length} attempt(s)${d.attempts.at(-1)?.error ? ` (${d.attempts.at(-1)!.error})` : ''}`).join(', ')}`
      }`,
    )
  }

  async close(): Promise<void> {
    // The run's fault rules go with it: the sandbox answers for real again (one already removed is no matter).
    const faults = [...this.faults].map((id) => this.client.clearFaults(id).catch(() => []))
    await Promise.all([...[...this.receivers.values()].map((r) => r.stop()), ...faults])
  }
}

function matches(body: unknown, match: Record<string, unknown>): boolean {
  if (typeof body !== 'object' || body === null) return false
  const record = body as Record<string, unknown>
  return Object.entries(match).every(([k, v]) => isDeepStrictEqual(record[k], v))
}

function describeMatch(match: Record<string, unknown>): string {
  return `{${Object.entries(match).map(([k, v]) => `${k}: ${JSON.stringify(v)}`).join(', ')}}`
}

function describeReceived(r: ReceivedCallback): string {
  const body = r.body as Record<string, unknown> | undefined
  const what = body && typeof body === 'object' ? `trackId=${String(body.trackId)} status=${String(body.status)}` : 'a body that is not JSON'
  return `#${r.seq} ${r.method} ${what} (answered ${r.answered})`
}

function check(field: string, expected: unknown, actual: unknown, message?: unknown): string[] {
  if (isDeepStrictEqual(expected, actual)) return []
  return [`expected ${field} ${JSON.stringify(expected)}, got ${actual === undefined ? 'none' : JSON.stringify(actual)}${typeof message === 'string' && message ? ` (${message})` : ''}`]
}

function presence(field: string, expected: Presence, actual: unknown): string[] {
  if (expected === true) return actual === undefined ? [`expected ${field} to be present, it is absent`] : []
  if (expected === false) return actual === undefined ? [] : [`expected no ${field}, got ${JSON.stringify(actual)}`]
  return check(field, expected, actual)
}

/** A readable default title, e.g. `create order → 100`, `callback at receiver {status: "paid"}`. */
export function defaultTitle(step: Step): string {
  switch (step.kind) {
    case 'receiver':
      return `receiver ${step.as}${step.failFirst > 0 ? ` (fails the first ${step.failFirst} with ${step.failStatus})` : ''}`
    case 'merchant':
      return `merchant ${step.as}`
    case 'disable':
    case 'enable':
      return `${step.kind} merchant ${step.merchant}`
    case 'create':
      return `create${step.as ? ` ${step.as}` : ''} → ${'error' in step.expect ? step.expect.error : step.expect.result}`
    case 'simulate':
      return `simulate ${paymentTitle(step)} ${step.outcome}${step.amount !== undefined ? ` (amount ${JSON.stringify(step.amount)})` : ''}${step.callback !== undefined ? ` (notification: ${step.callback})` : ''}${'error' in step.expect ? ` → ${step.expect.error}` : ''}`
    case 'verify': {
      const target = step.payment ?? 'trackId'
      return `verify ${target}${step.operator ? ' as the operator' : ''}${step.expect.result !== undefined ? ` → ${step.expect.result}` : ''}${step.expect.amountMatchesOrder === false ? ' (amount differs from order)' : ''}`
    }
    case 'callback': {
      const fields = Object.entries(step.match)
        .map(([k, v]) => `${k}: ${JSON.stringify(v)}`)
        .join(', ')
      return `callback ${step.receiver ? `at ${step.receiver}` : 'in delivery log'}${step.payment ? ` for ${step.payment}` : step.trackId !== undefined ? ` for ${paymentTitle({ trackId: step.trackId })}` : ''}${fields ? ` {${fields}}` : ''}${step.attempts ? ` after ${step.attempts} attempts` : ''}`
    }
    case 'wait':
      return `wait ${step.ms} ms`
    case 'clock':
      return 'advance' in step.move ? `clock advance ${step.move.advance}` : 'set' in step.move ? `clock set ${step.move.set}` : 'clock reset'
    case 'mine':
      return step.until !== undefined ? `mine until ${step.until} is confirmed` : `mine ${step.blocks} block${step.blocks === 1 ? '' : 's'}`
    case 'verifies':
      return `verify calls of ${paymentTitle(step)}: ${step.expect.verified ? 'verified' : 'not verified'}${step.expect.result !== undefined ? ` → ${step.expect.result}` : ''}${step.expect.count !== undefined ? `, ${step.expect.count} in all` : ''}`
    case 'audit': {
      const e = step.expect
      const wanted = [e.verdict, e.fail !== undefined ? `${e.fail} fail` : undefined, e.warn !== undefined ? `${e.warn} warn` : undefined, ...(e.found ?? []).map((c) => `finds ${c}`), ...(e.absent ?? []).map((c) => `no ${c}`)]
      return `audit${step.payment ? ` ${step.payment}` : step.trackId !== undefined ? ` ${paymentTitle({ trackId: step.trackId })}` : ''}${step.merchant !== undefined ? ' (merchant)' : ''} → ${wanted.filter(Boolean).join(', ') || 'any'}`
    }
    case 'fault':
      return 'clear' in step ? 'fault: clear every rule' : `fault ${compactFault(step.rule as unknown as FaultRuleInput, 'show')}${step.payment !== undefined ? ` on ${step.payment}` : ''}`
    case 'chat':
      return chatTitle(step)
    case 'http':
      return httpTitle(step)
  }
}

/** `http POST ${vars.shop}/orders → 303`, `http GET … → /state "delivered" within 10s`. */
function httpTitle(step: HttpStep): string {
  const { expect } = step
  const wanted = [
    ...(expect.status ? [expect.status.map(String).join(' or ')] : []),
    ...Object.entries(expect.json ?? {}).map(([pointer, m]) => `${pointer || 'body'} ${m.equals !== undefined && Object.keys(m).length === 1 ? JSON.stringify(m.equals) : describeMatcher(m)}`),
    ...(expect.body !== undefined ? [`body ${shownPattern(expect.body)}`] : []),
    ...Object.entries(expect.headers ?? {}).map(([name, p]) => `${name} ${shownPattern(p)}`),
  ]
  const url = typeof step.url === 'string' ? step.url : JSON.stringify(step.url)
  return `http ${step.method} ${url}${wanted.length > 0 ? ` → ${wanted.join(', ')}` : ''}${step.withinMs !== undefined ? ` within ${formatDuration(step.withinMs)}` : ''}`
}

function describeMatcher(m: JsonMatcher): string {
  const parts: string[] = []
  if (m.equals !== undefined) parts.push(`= ${JSON.stringify(m.equals)}`)
  if (m.pattern !== undefined) parts.push(`~ ${shownPattern(m.pattern)}`)
  for (const [key, sign] of [['gt', '>'], ['gte', '≥'], ['lt', '<'], ['lte', '≤']] as const) if (m[key] !== undefined) parts.push(`${sign} ${JSON.stringify(m[key])}`)
  if (m.exists !== undefined) parts.push(m.exists ? 'exists' : 'absent')
  return parts.join(' ')
}

/** `order`, or the trackId as written (`trackId ${link.trackId}`). */
function paymentTitle(ref: PaymentRef): string {
  return 'payment' in ref ? ref.payment : `trackId ${typeof ref.trackId === 'string' ? ref.trackId : JSON.stringify(ref.trackId)}`
}

/** `chat send "/buy"`, `chat expect /Pay here/ within 10s`, `chat press "Check payment"`, with the bot and chat when named. */
function chatTitle(step: ChatStep): string {
  const { action } = step
  const what =
    'send' in action
      ? `send ${JSON.stringify(action.send)}`
      : 'expect' in action
        ? `expect ${shownPattern(action.expect)} within ${formatDuration(action.within)}`
        : `press ${JSON.stringify(action.press)}${action.message !== undefined ? ` of message ${String(action.message)}` : ''}`
  const where = [step.bot !== undefined ? `bot ${shownBot(step.bot)}` : '', step.chat !== DEFAULT_CHAT_ID ? `chat ${step.chat}` : ''].filter(Boolean).join(', ')
  return `chat ${what}${where ? ` (${where})` : ''}`
}
