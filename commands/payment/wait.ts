import { Flags } from '@oclif/core'
import chalk from 'chalk'
import { ClientCommand } from '../../src/cli/base.js'
import { sleep } from '../../src/cli/detach.js'
import { durationFlag } from '../../src/cli/duration.js'
import { ExitCode } from '../../src/cli/exit-codes.js'
import { line, paint, status } from '../../src/cli/format.js'
import { trackIdArg } from '../../src/cli/track-id.js'
import { usage } from '../../src/cli/usage.js'
import type { Payment, PaymentStatus, VerifyEntry } from '../../src/client/index.js'
import { canReach, paymentStatuses } from '../../src/domain/payment.js'
import { verifiedCurrent } from '../../src/domain/verify-journal.js'

export default class PaymentWait extends ClientCommand {
  static override summary = 'Wait until a payment reaches a state, or until its merchant has verified it'
  static override description = `Exits 0 once the payment is in --status; 6 if --timeout passes first; 5 as soon as the payment is in a state from which --status can no longer be reached (e.g. failed while waiting for paid).
--verified waits until the payment's merchant has called verify with its own key after the payment's status last changed, and saw that status (with --result, got that result): a test's proof that a shop or bot looked before it delivered. With --status too, both must hold.`

  static override examples = [
    '<%= config.bin %> <%= command.id %> Xq2w7Zb1Vh0Kc9LmN3pR4s --status paid',
    '<%= config.bin %> <%= command.id %> Xq2w7Zb1Vh0Kc9LmN3pR4s --status failed --timeout 2m --json',
    '<%= config.bin %> <%= command.id %> Xq2w7Zb1Vh0Kc9LmN3pR4s --status paid --verified --result 100',
  ]

  static override args = {
    trackId: trackIdArg(),
  }

  static override flags = {
    status: Flags.string({ description: 'state to wait for', options: paymentStatuses }),
    verified: Flags.boolean({ description: "wait until the merchant has verified the payment's current status (after its last change)" }),
    result: Flags.integer({ description: 'with --verified: the result that verify must have answered, e.g. 100', dependsOn: ['verified'] }),
    timeout: Flags.string({ description: 'how long to wait, up to 24h (e.g. 30s, 500ms, 2m)', default: '30s' }),
    interval: Flags.string({ description: 'how often to look, from 10ms to 24h', default: '200ms' }),
  }

  async run(): Promise<Payment & { verifiedBy?: VerifyEntry }> {
    const { args, flags } = await this.parse(PaymentWait)
    if (flags.status === undefined && !flags.verified) throw usage('give --status <state>, --verified, or both')
    const timeoutMs = durationFlag('timeout', flags.timeout)
    const intervalMs = durationFlag('interval', flags.interval, { min: 10 })
    const wanted = flags.status as PaymentStatus | undefined
    const client = this.client(flags.url)
    const deadline = Date.now() + timeoutMs
    this.working(`waiting for ${args.trackId}: ${[wanted, flags.verified ? 'verified by its merchant' : undefined].filter(Boolean).join(', ')} (up to ${flags.timeout})`)
    for (;;) {
      const { payment, verifies } = await client.getPayment(args.trackId)
      const verified = flags.verified ? verifiedCurrent(payment, verifies, flags.result) : undefined
      const inStatus = wanted === undefined || payment.status === wanted
      if (inStatus && (!flags.verified || verified)) {
        this.doneWorking()
        this.log(line`${paint(chalk.green, '✔')} Payment ${payment.trackId} is ${status(payment.status)}${verified ? line`, verified by its merchant at ${verified.at} (result ${verified.result})` : ''}`)
        return verified ? { ...payment, verifiedBy: verified } : payment
      }
      if (wanted !== undefined && !canReach(payment.status, wanted)) {
        this.fail(`payment ${payment.trackId} is ${payment.status} and can never become ${wanted}`, ExitCode.rejected, {
          code: 'unreachable_state',
        })
      }
      if (Date.now() >= deadline) {
        const waitingFor = inStatus
          ? `its merchant to verify its ${payment.status} status${flags.result !== undefined ? ` with result ${flags.result}` : ''} (${verifies?.count ?? 0} verify calls so far)`
          : wanted
        this.fail(`payment ${payment.trackId} is still ${payment.status} after ${flags.timeout} (waiting for ${waitingFor})`, ExitCode.expectationFailed, {
          code: 'timeout',
        })
      }
      await sleep(Math.min(intervalMs, Math.max(0, deadline - Date.now())))
    }
  }
}
