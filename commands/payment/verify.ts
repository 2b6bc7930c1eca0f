import { Flags } from '@oclif/core'
import chalk from 'chalk'
import { ClientCommand } from '../../src/cli/base.js'
import { ExitCode } from '../../src/cli/exit-codes.js'
import { fields, line, paint } from '../../src/cli/format.js'
import { trackIdArg } from '../../src/cli/track-id.js'
import { verifyMeaning } from '../../src/cli/verify-answer.js'
import { SandboxApiError, type SandboxClient, type VerifyBody } from '../../src/client/index.js'
import { VERIFY_RESULTS } from '../../src/domain/outcomes.js'

export default class PaymentVerify extends ClientCommand {
  static override summary = 'Verify a payment (POST /api/v1/verify), as a merchant server would'
  static override description =
    'Prints the spec response. A failure answer (103, 104, or 203 "Invalid track ID") goes to stderr and exits 4; with --expect, exits 0 when the result matches and 6 when it does not. --merchant is sent as typed, so an empty or unknown key tests the 104 answer. When the payment exists in the sandbox under another key, stderr says which key owns it (a sandbox hint; the answer itself is the spec\'s). The call is marked as the sandbox operator\'s, so pay audit and payment wait --verified leave it out: they judge the merchant\'s own code.'

  static override examples = [
    '<%= config.bin %> <%= command.id %> Xq2w7Zb1Vh0Kc9LmN3pR4s',
    '<%= config.bin %> <%= command.id %> http://127.0.0.1:8787/pay/Xq2w7Zb1Vh0Kc9LmN3pR4s --expect 100 --json',
    '<%= config.bin %> <%= command.id %> Xq2w7Zb1Vh0Kc9LmN3pR4s --merchant shop_key',
  ]

  static override args = {
    trackId: trackIdArg('trackId returned by create, or its checkout URL (…/pay/<trackId>)'),
  }

  static override flags = {
    merchant: Flags.string({ description: 'merchant API key', env: 'PAY_MERCHANT_KEY', default: 'sandbox' }),
    expect: Flags.string({ description: 'result code expected; exit 6 when the answer differs', options: VERIFY_RESULTS.map(String) }),
  }

  static override emptyAllowed = ['merchant']

  async run(): Promise<VerifyBody> {
    const { args, flags } = await this.parse(PaymentVerify)
    const client = this.client(flags.url)
    const body = await client.verifyPayment({ merchant: flags.merchant, trackId: args.trackId })
    const what = verifyMeaning(body)
    const answer = `result ${body.result} — ${what}`
    const hint = await ownerHint(client, body, args.trackId, flags.merchant)
    if (flags.expect !== undefined && body.result !== Number(flags.expect)) {
      this.failWithResult(`expected result ${flags.expect}, got ${answer}`, ExitCode.expectationFailed, hint ? [hint] : undefined)
    } else if (flags.expect === undefined && 'message' in body) {
      this.failWithResult(`verify answered ${answer}`, ExitCode.specFailure, hint ? [hint] : undefined)
    } else {
      if (hint) this.logToStderr(line`${paint(chalk.dim, '→')} ${hint}`)
      this.log(
        fields([
          ['result', line`${paint(body.result === 100 ? chalk.green : chalk.yellow, body.result)} (${what})`],
          ['amount', 'amount' in body ? body.amount : undefined],
          ['refNumber', 'refNumber' in body ? body.refNumber : undefined],
        ]),
      )
    }
    return body
  }
}

/**
 * For a verify the spec answers as if the payment did not exist (203 "Invalid track ID", or 104 for a key the
 * sandbox does not know): whether it exists here under another merchant's key, and which. Asked of the control
 * API, so the spec's answer stays exactly the spec's.
 */
async function ownerHint(client: SandboxClient, body: VerifyBody, trackId: string, key: string): Promise<string | undefined> {
  if (!(body.result === 203 && 'message' in body) && body.result !== 104) return undefined
  let payment
  try {
    payment = (await client.getPayment(trackId)).payment
  } catch (error) {
    if (error instanceof SandboxApiError) return undefined
    throw error
  }
  if (payment.merchant === key) return undefined
  return `sandbox hint: payment ${payment.trackId} exists here, created with the merchant key ${payment.merchant} (not ${key === '' ? 'an empty key' : key}); verify it with --merchant ${payment.merchant}`
}
