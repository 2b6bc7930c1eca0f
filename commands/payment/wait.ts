import { Flags } from '@oclif/core'
import chalk from 'chalk'
import { ClientCommand } from '../../src/cli/base.js'
import { sleep } from '../../src/cli/detach.js'
import { durationFlag } from '../../src/cli/duration.js'
import { ExitCode } from '../../src/cli/exit-codes.js'
import { line, paint, status } from '../../src/cli/format.js'
import { trackIdArg } from '../../src/cli/track-id.js'
import type { Payment, PaymentStatus } from '../../src/client/index.js'
import { canReach, paymentStatuses } from '../../src/domain/payment.js'

export default class PaymentWait extends ClientCommand {
  static override summary = 'Wait until a payment reaches a state'
  static override description =
    'Exits 0 once the payment is in --status; 6 if --timeout passes first; 5 as soon as the payment is in a state from which --status can no longer be reached (e.g. failed while waiting for paid).'

  static override examples = [
    '<%= config.bin %> <%= command.id %> Xq2w7Zb1Vh0Kc9LmN3pR4s --status paid',
    '<%= config.bin %> <%= command.id %> Xq2w7Zb1Vh0Kc9LmN3pR4s --status failed --timeout 2m --json',
  ]

  static override args = {
    trackId: trackIdArg(),
  }

  static override flags = {
    status: Flags.string({ description: 'state to wait for', options: paymentStatuses, required: true }),
    timeout: Flags.string({ description: 'how long to wait, up to 24h (e.g. 30s, 500ms, 2m)', default: '30s' }),
    interval: Flags.string({ description: 'how often to look, from 10ms to 24h', default: '200ms' }),
  }

  async run(): Promise<Payment> {
    const { args, flags } = await this.parse(PaymentWait)
    const timeoutMs = durationFlag('timeout', flags.timeout)
    const intervalMs = durationFlag('interval', flags.interval, { min: 10 })
    const wanted = flags.status as PaymentStatus
    const client = this.client(flags.url)
    const deadline = Date.now() + timeoutMs
    for (;;) {
      const { payment } = await client.getPayment(args.trackId)
      if (payment.status === wanted) {
        this.log(line`${paint(chalk.green, '✔')} Payment ${payment.trackId} is ${status(payment.status)}`)
        return payment
      }
      if (!canReach(payment.status, wanted)) {
        this.fail(`payment ${payment.trackId} is ${payment.status} and can never become ${wanted}`, ExitCode.rejected, {
          code: 'unreachable_state',
        })
      }
      if (Date.now() >= deadline) {
        this.fail(`payment ${payment.trackId} is still ${payment.status} after ${flags.timeout} (waiting for ${wanted})`, ExitCode.expectationFailed, {
          code: 'timeout',
        })
      }
      await sleep(Math.min(intervalMs, Math.max(0, deadline - Date.now())))
    }
  }
}
