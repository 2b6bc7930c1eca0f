import chalk from 'chalk'
import { ClientCommand } from '../../src/cli/base.js'
import { deliveryTable } from '../../src/cli/deliveries.js'
import { fields, line, paint, status, table } from '../../src/cli/format.js'
import { trackIdArg } from '../../src/cli/track-id.js'
import type { Delivery, Payment, VerifyJournal } from '../../src/client/index.js'
import { formatAmount } from '../../src/domain/amount.js'
import { shownDelivery, shownPayment } from '../../src/domain/display.js'

export default class PaymentShow extends ClientCommand {
  static override summary = 'Show one payment: its fields, state history, callback deliveries and verify calls'
  static override description = `Verify calls are the verify requests for this payment, as the sandbox observed them: time, key (a key this sandbox does not know is shown by its first characters), result and amount answered. Those the sandbox's operator made (pay payment verify, pay trigger, a scenario checking as the operator) are marked "operator" and never count as the merchant's. The latest 50 are kept, with the count of all. An entry shows once it is written (a verify answer never waits for it), so one made in the last few milliseconds may not show yet.`
  static override examples = [
    '<%= config.bin %> <%= command.id %> Xq2w7Zb1Vh0Kc9LmN3pR4s',
    '<%= config.bin %> <%= command.id %> http://127.0.0.1:8787/pay/Xq2w7Zb1Vh0Kc9LmN3pR4s',
    '<%= config.bin %> <%= command.id %> Xq2w7Zb1Vh0Kc9LmN3pR4s --json',
  ]

  static override args = {
    trackId: trackIdArg(),
  }

  async run(): Promise<{ payment: Payment; deliveries: Delivery[]; verifies: VerifyJournal }> {
    const { args, flags } = await this.parse(PaymentShow)
    const client = this.client(flags.url)
    const found = await client.getPayment(args.trackId)
    const payment = shownPayment(found.payment)
    const deliveries = found.deliveries.map(shownDelivery)
    this.log(line`${paint(chalk.bold, 'Payment')} ${payment.trackId}  ${status(payment.status)}`)
    this.log(
      fields([
        ['merchant', payment.merchant],
        ['amount', payment.amount],
        ['paid', payment.paidAmount],
        ['asset', payment.asset],
        ['refNumber', payment.refNumber],
        ['confirmations', payment.confirmationsRequired !== undefined ? `${payment.confirmations ?? 0} of ${payment.confirmationsRequired}` : undefined],
        ['callback URL', payment.callbackUrl],
        ['return URL', payment.returnUrl],
        ['description', payment.description],
        ['mobile', payment.mobile],
        ['checkout', await client.checkoutUrlOf(payment.trackId)],
        ['created', payment.createdAt],
        ['updated', payment.updatedAt],
      ]),
    )
    this.log('')
    this.log(paint(chalk.bold, 'History'))
    this.log(
      table(
        ['AT', 'STATUS', 'BY', 'PAID'],
        payment.history.map((h) => [h.at, status(h.status), h.source, h.paidAmount === undefined ? '' : formatAmount(h.paidAmount)]),
      ),
    )
    this.log('')
    this.log(paint(chalk.bold, 'Callbacks'))
    this.log(deliveries.length === 0 ? paint(chalk.dim, '  none yet') : deliveryTable(deliveries, { trackId: false }))
    const verifies = found.verifies ?? { trackId: payment.trackId, count: 0, entries: [] }
    this.log('')
    this.log(paint(chalk.bold, `Verify calls${verifies.count > verifies.entries.length ? ` (latest ${verifies.entries.length} of ${verifies.count})` : ''}`))
    if (verifies.count === 0) {
      this.log(paint(chalk.dim, '  none yet'))
    } else {
      this.log(
        table(
          ['AT', 'KEY', 'RESULT', 'AMOUNT', 'STATUS THEN'],
          verifies.entries.map((e) => [
            e.at,
            e.operator
              ? paint(chalk.dim, `${e.key ?? e.keyHint ?? ''} (operator: not the merchant's call)`)
              : e.owner
                ? (e.key ?? '')
                : paint(chalk.yellow, `${e.key ?? e.keyHint ?? ''} (not the merchant's)`),
            String(e.result),
            e.amount === undefined ? '' : formatAmount(e.amount),
            status(e.status),
          ]),
        ),
      )
    }
    return { payment, deliveries, verifies }
  }
}
