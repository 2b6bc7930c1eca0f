import { Args, Flags } from '@oclif/core'
import chalk from 'chalk'
import { ClientCommand } from '../../src/cli/base.js'
import { ExitCode } from '../../src/cli/exit-codes.js'
import { fields, line, paint, parseNumber, status } from '../../src/cli/format.js'
import type { Payment } from '../../src/client/index.js'
import { outcomes } from '../../src/domain/payment.js'

export default class PaymentSimulate extends ClientCommand {
  static override summary = 'Act as the customer: pay, pay without finalizing, or abandon a payment'
  static override description = `Moves the payment as the checkout page would, and triggers the callback.
  paid         the customer paid and the payment is final (verify: 100)
  unfinalized  the customer paid, not yet final (verify: 203 with amount); can later become paid or failed
  failed       the customer did not complete the payment (verify: 202)
--amount makes the paid amount differ from the order amount, to test the merchant's amount check.`

  static override examples = [
    '<%= config.bin %> <%= command.id %> Xq2w7Zb1Vh0Kc9LmN3pR4s --outcome paid',
    '<%= config.bin %> <%= command.id %> Xq2w7Zb1Vh0Kc9LmN3pR4s --outcome unfinalized',
    '<%= config.bin %> <%= command.id %> Xq2w7Zb1Vh0Kc9LmN3pR4s --outcome paid --amount 9.99',
  ]

  static override args = {
    trackId: Args.string({ description: 'trackId of the payment', required: true }),
  }

  static override flags = {
    outcome: Flags.string({
      description: 'what the customer does (picked from a list at a terminal if missing)',
      options: ['paid', 'unfinalized', 'failed'],
    }),
    amount: Flags.string({ description: 'amount the customer pays (default: the order amount)' }),
    asset: Flags.string({ description: 'sandbox asset the customer pays with, e.g. BTC' }),
  }

  async run(): Promise<Payment> {
    const { args, flags } = await this.parse(PaymentSimulate)
    let amount: number | undefined
    if (flags.amount !== undefined) {
      amount = parseNumber(flags.amount)
      if (amount === undefined) this.fail(`--amount must be a number (got ${JSON.stringify(flags.amount)})`, ExitCode.usage)
    }
    const outcome = await this.requiredChoice('outcome', flags.outcome, 'What does the customer do?', outcomes)
    const payment = await this.client(flags.url).simulate(args.trackId, {
      outcome,
      ...(amount !== undefined ? { amount } : {}),
      ...(flags.asset !== undefined ? { asset: flags.asset } : {}),
    })
    this.log(line`${paint(chalk.green, '✔')} Payment ${payment.trackId} is now ${status(payment.status)}`)
    this.log(
      fields([
        ['amount', payment.amount],
        ['paid', payment.paidAmount],
        ['refNumber', payment.refNumber],
      ]),
    )
    return payment
  }
}
