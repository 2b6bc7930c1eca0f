import { Args } from '@oclif/core'
import chalk from 'chalk'
import { ClientCommand } from '../../src/cli/base.js'
import { faultFlags, playedText, ruleFromFlags } from '../../src/cli/fault.js'
import { fields, line, paint } from '../../src/cli/format.js'
import { missingFlag, usage } from '../../src/cli/usage.js'
import type { FaultRule } from '../../src/client/index.js'
import { API_FAULT_HELP, API_FAULTS, COMPACT_FORM, compactFault, faultOf, FAULT_ROUTES, parseCompactFault } from '../../src/domain/api-fault.js'

export default class FaultAdd extends ClientCommand {
  static override summary = 'Make the spec API fail: the next create, verify or checkout requests get a fault'
  static override description = `Adds a fault rule. Its route says which requests (${Object.entries(FAULT_ROUTES).map(([r, d]) => `${r}: ${d.request}`).join('; ')}); one fault says what they get: ${API_FAULT_HELP}. The scope flags narrow it: --times (how many), --rate with --seed (a share, the same requests on every run), --merchant, --track-id; --after (create only) makes the payment and then loses its answer. A rule plays until it is spent (--times) or removed (pay fault clear); pay sandbox reset removes every rule. It plays on your code's requests: those the sandbox's own clients mark (the pay CLI, the inspector) get real answers and are not counted. Faulted requests show in pay logs tail and the inspector, and pay audit judges how the merchant coped.
The rule may also be given as one argument in the compact form of pay sandbox start --api-fault: ${COMPACT_FORM}.`

  static override examples = [
    '<%= config.bin %> <%= command.id %> --route verify --status 503 --times 2',
    '<%= config.bin %> <%= command.id %> --route create --html 502',
    '<%= config.bin %> <%= command.id %> --route verify --delay 1500ms',
    '<%= config.bin %> <%= command.id %> --route verify --timeout --merchant shop_key',
    '<%= config.bin %> <%= command.id %> --route create --reset --after --times 1',
    '<%= config.bin %> <%= command.id %> --route all --retry-after 429 --seconds 2 --rate 0.3 --seed 42',
    '<%= config.bin %> <%= command.id %> verify:status=503:times=2 --json',
  ]

  static override args = {
    rule: Args.string({ description: `a rule in the compact form (${COMPACT_FORM}), instead of the flags`, required: false, ignoreStdin: true }),
  }

  static override flags = faultFlags()

  async run(): Promise<FaultRule> {
    const { args, flags } = await this.parse(FaultAdd)
    const fromFlags = ruleFromFlags(flags as Record<string, unknown>, () => missingFlag('route', this.facts()))
    if (args.rule !== undefined && fromFlags !== undefined) throw usage('give the rule as flags or as one argument in the compact form, not both')
    let input = fromFlags
    if (args.rule !== undefined) {
      const parsed = parseCompactFault(args.rule)
      if ('problem' in parsed) throw usage(parsed.problem)
      input = parsed.input
    }
    if (input === undefined) throw missingFlag('route', this.facts())
    const rule = await this.client(flags.url).addFault(input)
    const fault = faultOf(rule)
    this.log(line`${paint(chalk.green, '✔')} Fault rule ${rule.id} added`)
    this.log(
      fields([
        ['rule', compactFault(rule, 'show')],
        ['requests', FAULT_ROUTES[rule.route].request],
        ['fault', fault ? (API_FAULTS.row(fault.mode)?.description ?? fault.mode) : undefined],
        ['seed', rule.seed !== undefined ? `${rule.seed} (--seed ${rule.seed} faults the same requests again)` : undefined],
        ['played', playedText(rule)],
        ['plays on', "your code's requests; the pay CLI's own get real answers"],
        ['remove', `pay fault clear ${rule.id}`],
      ]),
    )
    return rule
  }
}
