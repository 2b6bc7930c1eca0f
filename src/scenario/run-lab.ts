import { SandboxApiError, type SandboxClient } from '../client/index.js'
import { readDuration } from '../domain/duration.js'
import { verifiedCurrent } from '../domain/verify-journal.js'
import type { AuditStep, ClockStep, MineStep, VerifiesStep } from './types.js'

/** An expectation that was not met; anything else thrown by a step is an error. */
export class Unmet extends Error {}

/** Blocks a `mine: {until}` step mines at most before it gives up. */
const MINE_UNTIL_MAX = 1000

/** The steps that rehearse unhappy paths: the clock, the chain, the verify journal and the audit. */
export class LabSteps {
  constructor(
    private readonly client: SandboxClient,
    private readonly pollMs: number,
  ) {}

  async clock(step: ClockStep): Promise<void> {
    const { move } = step
    try {
      if ('advance' in move) {
        const read = readDuration('clock.advance', move.advance, { min: 1 })
        if ('problem' in read) throw new Unmet(read.problem)
        await this.client.advanceClock(read.ms)
      } else if ('set' in move) {
        await this.client.setClock(new Date(Date.parse(move.set)).toISOString())
      } else {
        await this.client.resetClock()
      }
    } catch (error) {
      if (error instanceof SandboxApiError) throw new Unmet(`the sandbox refused the clock move: ${error.message}`)
      throw error
    }
  }

  async mine(step: MineStep, trackId: string | undefined): Promise<void> {
    if (trackId === undefined) {
      await this.client.mine(step.blocks)
      return
    }
    for (let mined = 0; ; mined++) {
      const { payment } = await this.client.getPayment(trackId)
      if (payment.status !== 'unfinalized') {
        if (payment.status !== 'paid') throw new Unmet(`payment ${trackId} is ${payment.status}, not waiting for confirmations`)
        return
      }
      if (mined >= MINE_UNTIL_MAX) throw new Unmet(`payment ${trackId} is still unfinalized after ${MINE_UNTIL_MAX} blocks`)
      await this.client.mine(1)
    }
  }

  async verifies(step: VerifiesStep, trackId: string): Promise<void> {
    const { expect } = step
    const deadline = performance.now() + (expect.verified ? step.within : 0)
    for (;;) {
      const { payment, verifies } = await this.client.getPayment(trackId)
      const seen = verifiedCurrent(payment, verifies, expect.result)
      const countOk = expect.count === undefined || verifies.count === expect.count
      if (Boolean(seen) === expect.verified && countOk) return
      if (performance.now() >= deadline) {
        const problems: string[] = []
        if (Boolean(seen) !== expect.verified) {
          const last = verifies.entries.at(-1)
          problems.push(
            expect.verified
              ? `the merchant did not verify the payment's ${payment.status} status${expect.result !== undefined ? ` with result ${expect.result}` : ''} after it changed, within ${step.within} ms (${verifies.count} verify calls${last ? `, the last at ${last.at}: result ${last.result}${last.owner ? '' : ', with another key'}` : ''})`
              : `the merchant verified the payment's ${payment.status} status at ${seen!.at} (result ${seen!.result}); expected no such verify`,
          )
        }
        if (!countOk) problems.push(`expected ${expect.count} verify calls, the sandbox observed ${verifies.count}`)
        throw new Unmet(problems.join('; '))
      }
      await new Promise((r) => setTimeout(r, this.pollMs))
    }
  }

  async audit(step: AuditStep, scope: { merchant?: string; trackId?: string }): Promise<void> {
    const report = await this.client.audit({ ...scope, strict: step.strict, ignore: step.ignore })
    const { expect } = step
    const problems: string[] = []
    const found = new Set(report.payments.flatMap((p) => p.findings.map((f) => f.check)))
    if (expect.verdict !== undefined && report.verdict !== expect.verdict) problems.push(`expected verdict ${expect.verdict}, got ${report.verdict}`)
    if (expect.fail !== undefined && report.totals.fail !== expect.fail) problems.push(`expected ${expect.fail} failures, got ${report.totals.fail}`)
    if (expect.warn !== undefined && report.totals.warn !== expect.warn) problems.push(`expected ${expect.warn} warnings, got ${report.totals.warn}`)
    for (const id of expect.found ?? []) if (!found.has(id as never)) problems.push(`expected check ${id} to be found, it was not`)
    for (const id of expect.absent ?? []) if (found.has(id as never)) problems.push(`expected no ${id}, it was found`)
    if (problems.length > 0) {
      const findings = report.payments.flatMap((p) => p.findings.map((f) => `${f.level.toUpperCase()} ${f.check} (${p.trackId}): ${f.reason}`))
      throw new Unmet(`${problems.join('; ')}${findings.length > 0 ? ` — findings: ${findings.slice(0, 5).join(' | ')}${findings.length > 5 ? ' | …' : ''}` : ''}`)
    }
  }
}
