import { Flags } from '@oclif/core'
import chalk from 'chalk'
import { ClientCommand } from '../../src/cli/base.js'
import { paint, status, table, truncate } from '../../src/cli/format.js'
import type { Payment, PaymentStatus } from '../../src/client/index.js'
import { formatAmount } from '../../src/domain/amount.js'
import { shownPayment } from '../../src/domain/display.js'
import { paymentStatuses } from '../../src/domain/payment.js'

export default class PaymentList extends ClientCommand {
  static override summary = 'List payments, oldest first (with --limit, the newest N)'
  static override examples = [
    '<%= config.bin %> <%= command.id %>',
    '<%= config.bin %> <%= command.id %> --status paid --limit 20',
    '<%= config.bin %> <%= command.id %> --merchant shop_key --json',
  ]

  static override flags = {
    status: Flags.string({ description: 'only payments in this state', options: paymentStatuses }),
    merchant: Flags.string({ description: 'only payments of this merchant API key' }),
    limit: Flags.integer({ description: 'only the newest N', min: 1, max: 100_000 }),
  }

  async run(): Promise<{ payments: Payment[] }> {
    const { flags } = await this.parse(PaymentList)
    const stored = await this.client(flags.url).listPayments({
      ...(flags.status !== undefined ? { status: flags.status as PaymentStatus } : {}),
      ...(flags.merchant !== undefined ? { merchant: flags.merchant } : {}),
      ...(flags.limit !== undefined ? { limit: flags.limit } : {}),
    })
    const payments = stored.map(shownPayment)
    if (payments.length === 0) {
      this.log(paint(chalk.dim, 'No payments.'))
    } else {
      this.log(
        table(
          ['TRACK ID', 'STATUS', 'AMOUNT', 'PAID', 'MERCHANT', 'CREATED', 'DESCRIPTION'],
          payments.map((p) => [
            p.trackId,
            status(p.status),
            formatAmount(p.amount),
            p.paidAmount === undefined ? '' : p.paidAmount === p.amount ? formatAmount(p.paidAmount) : paint(chalk.yellow, formatAmount(p.paidAmount)),
            p.merchant,
            p.createdAt.replace('T', ' ').slice(0, 19),
            truncate(p.description ?? '', 40),
          ]),
        ),
      )
    }
    return { payments }
  }
}
