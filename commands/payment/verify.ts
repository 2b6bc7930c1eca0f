import { Args, Flags } from '@oclif/core'
import chalk from 'chalk'
import { ClientCommand } from '../../src/cli/base.js'
import { ExitCode } from '../../src/cli/exit-codes.js'
import { fields, line, paint } from '../../src/cli/format.js'
import type { VerifyBody } from '../../src/client/index.js'

const meaning: Record<number, string> = {
  100: 'paid and verified',
  202: 'not completed by the customer',
  103: 'merchant account disabled',
  104: 'invalid API key',
}

export default class PaymentVerify extends ClientCommand {
  static override summary = 'Verify a payment (POST /api/v1/verify), as a merchant server would'
  static override description =
    'Prints the spec response. Exits 4 when the answer is a failure (103, 104, or 203 "Invalid track ID"); with --expect, exits 0 when the result matches and 6 when it does not.'

  static override examples = [
    '<%= config.bin %> <%= command.id %> Xq2w7Zb1Vh0Kc9LmN3pR4s',
    '<%= config.bin %> <%= command.id %> Xq2w7Zb1Vh0Kc9LmN3pR4s --expect 100 --json',
    '<%= config.bin %> <%= command.id %> Xq2w7Zb1Vh0Kc9LmN3pR4s --merchant shop_key',
  ]

  static override args = {
    trackId: Args.string({ description: 'trackId returned by create', required: true }),
  }

  static override flags = {
    merchant: Flags.string({ description: 'merchant API key', env: 'PAY_MERCHANT_KEY', default: 'sandbox' }),
    expect: Flags.integer({ description: 'result code expected; exit 6 when the answer differs' }),
  }

  async run(): Promise<VerifyBody> {
    const { args, flags } = await this.parse(PaymentVerify)
    const body = await this.client(flags.url).verifyPayment({ merchant: flags.merchant, trackId: args.trackId })
    const what = 'message' in body ? body.message : body.result === 203 ? 'exists, not finalized' : meaning[body.result]
    this.log(
      fields([
        ['result', line`${paint(body.result === 100 ? chalk.green : chalk.yellow, body.result)} (${what ?? ''})`],
        ['amount', 'amount' in body ? body.amount : undefined],
        ['refNumber', 'refNumber' in body ? body.refNumber : undefined],
      ]),
    )
    if (flags.expect !== undefined) {
      if (body.result !== flags.expect) {
        process.exitCode = ExitCode.expectationFailed
        process.stderr.write(`${chalk.red('Expectation failed:')} expected result ${flags.expect}, got ${body.result}\n`)
      }
    } else if ('message' in body) {
      process.exitCode = ExitCode.specFailure
    }
    return body
  }
}
