import { Flags } from '@oclif/core'
import chalk from 'chalk'
import { CHECK_IDS, isCheckId, type Level } from '../src/audit/rules.js'
import { ClientCommand } from '../src/cli/base.js'
import { ExitCode } from '../src/cli/exit-codes.js'
import { line, lines, paint, type Styled } from '../src/cli/format.js'
import type { AuditReport } from '../src/client/index.js'
import { formatDuration } from '../src/domain/duration.js'

const mark: Record<Level, Styled> = {
  fail: paint(chalk.red.bold, 'FAIL'),
  warn: paint(chalk.yellow, 'WARN'),
  info: paint(chalk.cyan, 'INFO'),
}

export default class Audit extends ClientCommand {
  static override summary = 'Grade the merchant integration the sandbox observed: callbacks, answers, verify calls, API faults'
  static override description = `Looks at every payment (or those of --merchant, --since, --track-id) and what happened to it: the notifications sent and how the merchant's endpoint answered, the faults played on them, the verify calls the merchant made, and how it coped with faults of the API itself (pay fault add). Each check has a level:
  FAIL  unverified-notification  a notification was acknowledged and the merchant did not verify within the grace period (10 s of sandbox clock)
  FAIL  dropped-unreconciled     a notification was lost and the merchant never verified: no reconciliation
  FAIL  retries-exhausted        a notification was never answered 2xx
  WARN  not-idempotent           a duplicate or out-of-order notification was answered non-2xx
  WARN  slow-callback            an answer took longer than 2 s (or none came)
  WARN  callback-retried         a notification was answered 2xx only after retries
  WARN  foreign-key              verify calls with another merchant's key
  WARN  verify-polling           more than 10 verify calls of one payment within 10 s
  WARN  insecure-url             http, loopback or private callback and return URLs (fine locally, not in production)
  INFO  amount-differs           a payment paid with another amount was verified: check that the amount is compared
  FAIL  outage-taken-as-answer   a paid payment's verify got a fault and the merchant never verified it successfully after (10 s)
  WARN  no-client-timeout        a held or delayed request was kept open by the merchant's client for more than 60 s
  FAIL  retry-storm              a failed call (verify of a payment, create of an order) retried more than 10 times within 10 s
  WARN  retry-too-soon           a failed call retried within 0.25 s, or before the Retry-After it carried
Findings about creates, which have no payment of their own, are listed by merchant. Exits 6 when anything fails (with --strict, when anything warns too). Notifications and failed verifies still within the grace period are judged later: advance the clock (pay clock advance 10s) to judge them now.`

  static override examples = [
    '<%= config.bin %> <%= command.id %>',
    '<%= config.bin %> <%= command.id %> --merchant shop_key --since 10m',
    '<%= config.bin %> <%= command.id %> --strict --ignore insecure-url',
    '<%= config.bin %> <%= command.id %> --json > audit.json',
  ]

  static override flags = {
    merchant: Flags.string({ description: 'only payments of this merchant API key' }),
    'track-id': Flags.string({ description: 'only this payment' }),
    since: Flags.string({ description: 'only payments created since this time (ISO 8601) or this long ago on the sandbox clock (10m, 1h)' }),
    strict: Flags.boolean({ description: 'warnings fail too (exit 6)' }),
    ignore: Flags.string({ description: `checks to leave out, comma-separated (${CHECK_IDS.join(', ')})` }),
  }

  async run(): Promise<AuditReport> {
    const { flags } = await this.parse(Audit)
    const ignore = (flags.ignore ?? '').split(',').map((s) => s.trim()).filter(Boolean)
    const unknown = ignore.filter((id) => !isCheckId(id))
    if (unknown.length > 0) this.fail(`--ignore: no check ${unknown.map((u) => JSON.stringify(u)).join(', ')}; checks: ${CHECK_IDS.join(', ')}`, ExitCode.usage, { code: 'usage' })
    const report = await this.client(flags.url).audit({
      ...(flags.merchant !== undefined ? { merchant: flags.merchant } : {}),
      ...(flags['track-id'] !== undefined ? { trackId: flags['track-id'] } : {}),
      ...(flags.since !== undefined ? { since: flags.since } : {}),
      strict: flags.strict,
      ignore,
    })
    this.log(summary(report))
    const findings = (list: AuditReport['payments'][number]['findings']) => {
      for (const f of list) {
        this.log(line`    ${mark[f.level]} ${f.check}: ${f.reason}`)
        const advice = report.checks.find((c) => c.id === f.check)?.advice
        if (advice) this.log(line`         ${paint(chalk.dim, `→ ${advice}`)}`)
      }
    }
    for (const p of report.payments) {
      this.log('')
      this.log(line`${sign(p.verdict)} ${paint(chalk.bold, p.trackId)}  ${p.status}  merchant ${p.merchant}`)
      findings(p.findings)
    }
    for (const c of report.creates) {
      this.log('')
      this.log(line`${sign(c.verdict)} ${paint(chalk.bold, 'creates')}  merchant ${c.merchant}`)
      findings(c.findings)
    }
    if (report.totals.waiting > 0) {
      this.log('')
      this.log(
        paint(
          chalk.dim,
          `${report.totals.waiting} notification${report.totals.waiting === 1 ? ' or failed verify is' : 's or failed verifies are'} still within the ${formatDuration(report.settings.graceMs)} grace period and will be judged later (pay clock advance ${formatDuration(report.settings.graceMs)} judges ${report.totals.waiting === 1 ? 'it' : 'them'} now).`,
        ),
      )
    }
    if (!report.ok) process.exitCode = ExitCode.expectationFailed
    return report
  }
}

function sign(verdict: AuditReport['verdict']): Styled {
  return verdict === 'fail' ? paint(chalk.red, '✖') : verdict === 'warn' ? paint(chalk.yellow, '!') : paint(chalk.cyan, 'i')
}

function summary(report: AuditReport): Styled {
  const { totals } = report
  const verdict =
    report.verdict === 'fail' ? paint(chalk.red.bold, 'FAIL') : report.verdict === 'warn' ? paint(chalk.yellow.bold, report.strict ? 'FAIL (strict)' : 'WARN') : paint(chalk.green.bold, 'PASS')
  const count = (n: number, what: string) => `${n} ${what}${n === 1 ? '' : 's'}`
  return lines([
    line`Audit: ${verdict} — ${count(totals.payments, 'payment')} observed, ${totals.passed} clean`,
    line`  ${count(totals.fail, 'failure')}, ${count(totals.warn, 'warning')}, ${count(totals.info, 'note')} (sandbox time ${report.at})`,
  ])
}
