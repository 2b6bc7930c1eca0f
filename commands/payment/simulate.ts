import { Flags } from '@oclif/core'
import chalk from 'chalk'
import { ClientCommand } from '../../src/cli/base.js'
import { callbackModeFlag, callbackModeOf } from '../../src/cli/callback-mode.js'
import { fields, line, paint, parseNumber, status } from '../../src/cli/format.js'
import { trackIdArg } from '../../src/cli/track-id.js'
import { usage } from '../../src/cli/usage.js'
import type { Payment } from '../../src/client/index.js'
import { ASSET_CODES } from '../../src/domain/assets.js'
import { brief } from '../../src/domain/brief.js'
import { CALLBACK_MODE_HELP } from '../../src/domain/fault.js'
import { AMOUNT_RULE, isValidAmount, outcomes } from '../../src/domain/payment.js'

export default class PaymentSimulate extends ClientCommand {
  static override summary = 'Act as the customer: pay, pay without finalizing, or abandon a payment'
  static override description = `Moves the payment as the checkout page would, and triggers the callback.
  paid         the customer paid and the payment is final (verify: 100)
  unfinalized  the customer paid, not yet final (verify: 203 with amount); can later become paid or failed
  failed       the customer did not complete the payment (verify: 202)
  expired      the time to pay ran out (verify: 202); only a pending payment expires
An unfinalized payment starts at 0 confirmations and becomes paid once enough blocks are mined (pay chain mine); --outcome paid finalizes it at once.
--amount makes the paid amount differ from the order amount, to test the merchant's amount check. --amount and --asset describe a payment, so they are refused with --outcome failed or expired.
--callback says what the sandbox does with this change's notification: ${CALLBACK_MODE_HELP}.`

  static override examples = [
    '<%= config.bin %> <%= command.id %> Xq2w7Zb1Vh0Kc9LmN3pR4s --outcome paid',
    '<%= config.bin %> <%= command.id %> http://127.0.0.1:8787/pay/Xq2w7Zb1Vh0Kc9LmN3pR4s --outcome paid',
    '<%= config.bin %> <%= command.id %> Xq2w7Zb1Vh0Kc9LmN3pR4s --outcome unfinalized --asset ETH',
    '<%= config.bin %> <%= command.id %> Xq2w7Zb1Vh0Kc9LmN3pR4s --outcome paid --amount 9.99',
    '<%= config.bin %> <%= command.id %> Xq2w7Zb1Vh0Kc9LmN3pR4s --outcome paid --callback drop',
    '<%= config.bin %> <%= command.id %> Xq2w7Zb1Vh0Kc9LmN3pR4s --outcome unfinalized --callback reorder',
    '<%= config.bin %> <%= command.id %> Xq2w7Zb1Vh0Kc9LmN3pR4s --outcome paid --callback duplicate=3',
  ]

  static override args = {
    trackId: trackIdArg(),
  }

  static override flags = {
    outcome: Flags.string({
      description: 'what the customer does (picked from a list at a terminal if missing)',
      options: outcomes,
    }),
    amount: Flags.string({ description: `amount the customer pays: ${AMOUNT_RULE} (default: the order amount)` }),
    asset: Flags.string({ description: 'sandbox asset the customer pays with', options: ASSET_CODES }),
    callback: callbackModeFlag(),
  }

  async run(): Promise<Payment> {
    const { args, flags } = await this.parse(PaymentSimulate)
    let amount: number | undefined
    if (flags.amount !== undefined) {
      amount = parseNumber(flags.amount)
      if (amount === undefined || !isValidAmount(amount)) {
        throw usage(
          `--amount must be ${AMOUNT_RULE} (got ${brief(flags.amount)})`,
        )
      }
    }
    callbackModeOf(flags.callback)
    const outcome = await this.requiredChoice('outcome', flags.outcome, 'What does the customer do?', outcomes)
    if (outcome === 'failed' || outcome === 'expired') {
      for (const flag of ['amount', 'asset'] as const) {
        if (flags[flag] !== undefined) this.refuseTogether(flag, `does nothing with --outcome ${outcome}: the customer pays nothing`)
      }
    }
    const payment = await this.client(flags.url).simulate(args.trackId, {
      outcome,
      ...(amount !== undefined ? { amount } : {}),
      ...(flags.asset !== undefined ? { asset: flags.asset } : {}),
      ...(flags.callback !== undefined ? { callback: flags.callback } : {}),
    })
    this.log(line`${paint(chalk.green, '✔')} Payment ${payment.trackId} is now ${status(payment.status)}`)
    this.log(
      fields([
        ['amount', payment.amount],
        ['paid', payment.paidAmount],
        ['asset', payment.asset],
        ['refNumber', payment.refNumber],
        ['confirmations', payment.status === 'unfinalized' && payment.confirmationsRequired !== undefined ? `${payment.confirmations ?? 0} of ${payment.confirmationsRequired}` : undefined],
        ['notification', flags.callback],
      ]),
    )
    return payment
  }
}
