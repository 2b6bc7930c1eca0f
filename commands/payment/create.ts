import { Flags } from '@oclif/core'
import chalk from 'chalk'
import { ClientCommand } from '../../src/cli/base.js'
import { ExitCode } from '../../src/cli/exit-codes.js'
import { fields, line, paint, parseNumber } from '../../src/cli/format.js'
import { usage } from '../../src/cli/usage.js'
import type { CreateBody } from '../../src/client/index.js'
import { brief } from '../../src/domain/brief.js'

export type CreateResult = CreateBody & { checkoutUrl?: string }

export default class PaymentCreate extends ClientCommand {
  static override summary = 'Create a payment (POST /api/v1/request), as a merchant server would'
  static override description =
    'Prints the trackId and the checkout URL to send the customer to. A spec failure (result 103–109) goes to stderr with its code and message, and the command exits 4. The flags are sent as typed, so invalid values test the spec\'s answers (an empty --return-url is 107); only --amount must be a number, since JSON carries it as one.'

  static override examples = [
    '<%= config.bin %> <%= command.id %> --amount 25.5 --callback-url http://localhost:3000/callback',
    '<%= config.bin %> <%= command.id %> --amount 10 --callback-url http://localhost:3000/cb --return-url http://localhost:3000/thanks --description "Order #1042" --json',
    'PAY_MERCHANT_KEY=shop_key <%= config.bin %> <%= command.id %> --amount 5 --callback-url https://example.test/cb --open',
  ]

  static override flags = {
    amount: Flags.string({ description: 'order amount, greater than 0 (asked for at a terminal if missing)' }),
    'callback-url': Flags.string({ description: 'URL that receives the callback (asked for at a terminal if missing)' }),
    'return-url': Flags.string({ description: 'URL the customer returns to after checkout' }),
    description: Flags.string({ description: 'order description, shown on checkout and in the inspector' }),
    mobile: Flags.string({ description: 'customer mobile number' }),
    merchant: Flags.string({ description: 'merchant API key', env: 'PAY_MERCHANT_KEY', default: 'sandbox' }),
    open: Flags.boolean({ description: 'open the checkout page in the browser' }),
  }

  static override emptyAllowed = ['callback-url', 'return-url', 'description', 'mobile', 'merchant']

  async run(): Promise<CreateResult> {
    const { flags } = await this.parse(PaymentCreate)
    const amountText = await this.required('amount', flags.amount, 'Amount')
    const amount = parseNumber(amountText)
    if (amount === undefined) throw usage(`--amount must be a number, e.g. 25.5 (got ${brief(amountText)})`)
    const callbackUrl = await this.required('callback-url', flags['callback-url'], 'Callback URL')
    const client = this.client(flags.url)
    const body = await client.createPayment({
      merchant: flags.merchant,
      amount,
      callbackUrl,
      ...(flags['return-url'] !== undefined ? { returnUrl: flags['return-url'] } : {}),
      ...(flags.description !== undefined ? { description: flags.description } : {}),
      ...(flags.mobile !== undefined ? { mobile: flags.mobile } : {}),
    })
    if (body.result !== 100) {
      this.failWithResult(`create answered result ${body.result} — ${body.message}`, ExitCode.specFailure)
      return body
    }
    const checkoutUrl = await client.checkoutUrlOf(body.trackId)
    this.log(line`${paint(chalk.green, '✔')} Payment created`)
    this.log(fields([['trackId', body.trackId], ['checkout', checkoutUrl]]))
    if (flags.open) {
      const { openInBrowser } = await import('../../src/cli/browser.js')
      await openInBrowser(checkoutUrl, (line) => this.logToStderr(line))
    }
    return { ...body, checkoutUrl }
  }
}
