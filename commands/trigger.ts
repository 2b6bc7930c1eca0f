import { Args, Flags } from '@oclif/core'
import chalk from 'chalk'
import { ClientCommand } from '../src/cli/base.js'
import { callbackModeFlag, callbackModeOf } from '../src/cli/callback-mode.js'
import { durationFlag } from '../src/cli/duration.js'
import { ExitCode } from '../src/cli/exit-codes.js'
import { fields, line, paint, parseNumber, status } from '../src/cli/format.js'
import type { TriggerResult } from '../src/cli/trigger.js'
import { usage } from '../src/cli/usage.js'
import { verifyMeaning } from '../src/cli/verify-answer.js'
import type { CreateBody } from '../src/client/index.js'
import { brief } from '../src/domain/brief.js'
import { formatCallbackMode, LATE_MODE_USAGE, namesWith, planOf } from '../src/domain/fault.js'
import { shownDelivery } from '../src/domain/display.js'
import { nearest } from '../src/domain/nearest.js'
import { AMOUNT_RULE, isFinal, isValidAmount, type Outcome, outcomes } from '../src/domain/payment.js'

export default class Trigger extends ClientCommand {
  static override summary = "One shot: create a payment, move it to an outcome as the customer would, and show whether the merchant's endpoint got the callback"
  static override description = `Creates a payment (POST /api/v1/request), simulates the outcome as \`pay payment simulate\` does, waits for the first attempt to deliver its callback (--wait, default 10s), and prints the trackId, the checkout URL, the status, the callback's answer (the receiver's HTTP status or the error, and how long it took) and what verify answers now.
  paid         verify: 100
  unfinalized  verify: 203 with the amount (paid, not yet final)
  failed       verify: 202
  expired      verify: 202
The callback goes to --callback-url (env PAY_CALLBACK_URL; asked for at a terminal). Without one, it goes to a receiver of this command's own on 127.0.0.1, which answers 200.
The verify answer comes from a real verify call, marked as the sandbox operator's (Pay-Sandbox-Operator), as every request of the CLI is: the verify journal shows it as the operator's, and \`pay audit\` and \`payment wait --verified\` judge only your code's calls.
--callback plays a fault on the notification, as with \`pay payment simulate\`: ${namesWith('lost')} and ${namesWith('held')} send nothing (exit 0), ${LATE_MODE_USAGE} makes it late on the sandbox clock.
Exits 8 when the callback was not delivered (the receiver answered non-2xx or not at all, or no attempt within --wait); 4 when create answers a failure (e.g. 104 for an unknown --merchant).`

  static override examples = [
    '<%= config.bin %> <%= command.id %> paid --callback-url http://localhost:3000/callback',
    'PAY_CALLBACK_URL=http://localhost:3000/callback <%= config.bin %> <%= command.id %> failed',
    '<%= config.bin %> <%= command.id %> paid',
    '<%= config.bin %> <%= command.id %> unfinalized --amount 99.9 --merchant shop_key --json',
    '<%= config.bin %> <%= command.id %> paid --callback-url http://localhost:3000/callback --callback duplicate=3',
    '<%= config.bin %> <%= command.id %> paid --callback delay=30s --wait 1m',
  ]

  static override args = {
    outcome: Args.string({
      description: `what the customer does: ${outcomes.join(', ')} (picked from a list at a terminal if missing)`,
      ignoreStdin: true,
    }),
  }

  static override flags = {
    amount: Flags.string({ description: `order amount: ${AMOUNT_RULE}`, default: '10' }),
    merchant: Flags.string({ description: 'merchant API key', env: 'PAY_MERCHANT_KEY', default: 'sandbox' }),
    'callback-url': Flags.string({
      description: "URL that receives the callback (asked for at a terminal; without one, a receiver of this command's own)",
      env: 'PAY_CALLBACK_URL',
    }),
    callback: callbackModeFlag(),
    wait: Flags.string({ description: 'how long to wait for the first attempt to deliver the callback, up to 24h (e.g. 10s, 1m)', default: '10s' }),
  }

  async run(): Promise<TriggerResult | CreateBody> {
    const { args, flags } = await this.parse(Trigger)
    const amount = parseNumber(flags.amount)
    if (amount === undefined || !isValidAmount(amount)) throw usage(`--amount must be ${AMOUNT_RULE} (got ${brief(flags.amount)})`)
    const mode = callbackModeOf(flags.callback)
    const waitMs = durationFlag('wait', flags.wait, { min: 1 })
    const outcome = await this.outcome(args.outcome)
    if (mode && planOf(mode).held && isFinal(outcome)) {
      this.refuseTogether('callback', `${formatCallbackMode(mode)} holds the notification until the payment's next one, and a ${outcome} payment has none; use ${LATE_MODE_USAGE} to make it late`)
    }
    const client = this.client(flags.url)
    await client.health()

    const given = flags['callback-url'] ? flags['callback-url'] : await this.askCallbackUrl()
    const { startListener } = await import('../src/callbacks/listener.js')
    const { actAndWatch, callbackFailure, callbackLine, callbackOk, callbackReport } = await import('../src/cli/trigger.js')
    const own = given === undefined ? await startListener({ port: 0, host: '127.0.0.1', onRequest: () => {} }) : undefined
    const callbackUrl = given ?? `${own!.url}/callback`
    try {
      const created = await client.createPayment({ merchant: flags.merchant, amount, callbackUrl, description: `pay trigger ${outcome}` })
      if (created.result !== 100) {
        this.failWithResult(`create answered result ${created.result} — ${created.message}`, ExitCode.specFailure)
        return created
      }
      const checkoutUrl = await client.checkoutUrlOf(created.trackId)
      const watched = await actAndWatch(
        client,
        created.trackId,
        () => client.simulate(created.trackId, { outcome, ...(flags.callback !== undefined ? { callback: flags.callback } : {}) }),
        {
          waitMs,
          // Its own receiver stays up until every copy of a duplicate has come, so none meets a closed port.
          allCopies: own !== undefined,
          onWaiting: () => this.working(`${created.trackId} is ${outcome}; waiting for the callback to ${callbackUrl} (up to ${flags.wait})`),
        },
      )
      this.doneWorking()
      const delivery = watched.delivery && shownDelivery(watched.delivery)
      const callback = callbackReport(callbackUrl, delivery, own !== undefined)
      // A real verify, marked as the operator's (as every request of the CLI is): what it prints is what verify
      // answers, and the audit, the verify journal's checks and payment wait --verified leave it out.
      const [{ payment }, verify] = await Promise.all([client.getPayment(created.trackId), client.verifyPayment({ merchant: flags.merchant, trackId: created.trackId })])
      const ok = callbackOk(callback, delivery)

      this.log(line`${paint(chalk.green, '✔')} Payment ${payment.trackId} is now ${status(payment.status)}`)
      this.log(
        fields([
          ['trackId', payment.trackId],
          ['checkout', checkoutUrl],
          ['amount', payment.amount],
          ['callback', callbackLine(callback, ok)],
          ['verify', line`${paint(verify.result === 100 ? chalk.green : chalk.yellow, verify.result)} (${verifyMeaning(verify)})${'amount' in verify ? `, amount ${verify.amount}` : ''}${'refNumber' in verify ? `, refNumber ${verify.refNumber}` : ''}`],
        ]),
      )
      if (!ok) this.failWithResult(callbackFailure(callback, delivery, waitMs), ExitCode.callbackFailed)
      return { trackId: payment.trackId, checkoutUrl, merchant: flags.merchant, amount: payment.amount, status: payment.status, callback, verify }
    } finally {
      await own?.close()
    }
  }

  /** The outcome argument: one of the outcomes, picked from a list at a terminal when missing. */
  private async outcome(typed: string | undefined): Promise<Outcome> {
    const outcome = await this.requiredArgumentChoice('outcome', typed, 'What does the customer do?', outcomes)
    if ((outcomes as readonly string[]).includes(outcome)) return outcome as Outcome
    const near = nearest(outcome, outcomes)
    throw usage(`unknown outcome ${brief(outcome)}: the outcomes are ${outcomes.join(', ')}${near ? `; did you mean ${near}?` : ''}`)
  }

  /** At a terminal: the callback URL, or none (Enter) for a receiver of this command's own. */
  private async askCallbackUrl(): Promise<string | undefined> {
    if (!this.canPrompt()) return undefined
    const { input } = await import('@inquirer/prompts')
    const answer = await input({ message: "Callback URL (Enter: a receiver of pay trigger's own)" }, { output: process.stderr })
    return answer.trim() === '' ? undefined : answer.trim()
  }
}
