import { Args } from '@oclif/core'
import chalk from 'chalk'
import { reportedStatus } from '../../src/callbacks/delivery.js'
import { ClientCommand } from '../../src/cli/base.js'
import { fields, status, table } from '../../src/cli/format.js'
import type { Delivery, Payment } from '../../src/client/index.js'

export default class PaymentShow extends ClientCommand {
  static override summary = 'Show one payment: its fields, state history and callback deliveries'
  static override examples = [
    '<%= config.bin %> <%= command.id %> Xq2w7Zb1Vh0Kc9LmN3pR4s',
    '<%= config.bin %> <%= command.id %> Xq2w7Zb1Vh0Kc9LmN3pR4s --json',
  ]

  static override args = {
    trackId: Args.string({ description: 'trackId of the payment', required: true }),
  }

  async run(): Promise<{ payment: Payment; deliveries: Delivery[] }> {
    const { args, flags } = await this.parse(PaymentShow)
    const client = this.client(flags.url)
    const { payment, deliveries } = await client.getPayment(args.trackId)
    this.log(`${chalk.bold('Payment')} ${payment.trackId}  ${status(payment.status)}`)
    this.log(
      fields([
        ['merchant', payment.merchant],
        ['amount', payment.amount],
        ['paid', payment.paidAmount],
        ['asset', payment.asset],
        ['refNumber', payment.refNumber],
        ['callback URL', payment.callbackUrl],
        ['return URL', payment.returnUrl],
        ['description', payment.description],
        ['mobile', payment.mobile],
        ['checkout', client.checkoutUrl(payment.trackId)],
        ['created', payment.createdAt],
        ['updated', payment.updatedAt],
      ]),
    )
    this.log('')
    this.log(chalk.bold('History'))
    this.log(
      table(
        ['AT', 'STATUS', 'BY', 'PAID'],
        payment.history.map((h) => [h.at, status(h.status), h.source, h.paidAmount === undefined ? '' : String(h.paidAmount)]),
      ),
    )
    this.log('')
    this.log(chalk.bold('Callbacks'))
    if (deliveries.length === 0) {
      this.log(chalk.dim('  none yet'))
    } else {
      this.log(
        table(
          ['DELIVERY', 'STATUS', 'STATE', 'ATTEMPTS', 'LAST', 'URL'],
          deliveries.map((d) => {
            const last = d.attempts[d.attempts.length - 1]
            const lastText = last ? (last.status !== undefined ? `HTTP ${last.status}` : (last.error ?? '')) : ''
            const state = d.state === 'delivered' ? chalk.green(d.state) : d.state === 'failed' ? chalk.red(d.state) : chalk.yellow(d.state)
            return [d.id, reportedStatus(d) ?? d.event, state, String(d.attempts.length), lastText, d.url]
          }),
        ),
      )
    }
    return { payment, deliveries }
  }
}
