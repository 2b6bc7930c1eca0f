import { Flags } from '@oclif/core'
import chalk from 'chalk'
import { ClientCommand } from '../../src/cli/base.js'
import { confirmDestructive } from '../../src/cli/confirm.js'
import { line, paint } from '../../src/cli/format.js'
import type { ResetResult } from '../../src/client/index.js'

export default class SandboxReset extends ClientCommand {
  static override summary = 'Delete every payment, callback delivery and API fault rule; merchants and their keys are kept'
  static override description =
    'Gives a clean slate between test runs without changing API keys. Asks for confirmation at a terminal; scripts and CI pass --yes (without it and without a terminal the command refuses and exits 2).'

  static override examples = [
    '<%= config.bin %> <%= command.id %>',
    '<%= config.bin %> <%= command.id %> --yes',
    '<%= config.bin %> <%= command.id %> --yes --json --url http://127.0.0.1:9000',
  ]

  static override flags = {
    yes: Flags.boolean({ char: 'y', description: 'do not ask for confirmation' }),
  }

  async run(): Promise<ResetResult> {
    const { flags } = await this.parse(SandboxReset)
    const client = this.client(flags.url)
    const { counts, url } = await client.health()
    await confirmDestructive({
      yes: flags.yes,
      canPrompt: this.canPrompt(),
      what: `reset deletes all ${counts.payments} payments and ${counts.deliveries} deliveries at ${url}`,
      question: `Delete all ${counts.payments} payments and ${counts.deliveries} deliveries at ${url}? Merchants are kept.`,
    })
    const result = await client.reset()
    this.log(
      line`${paint(chalk.green, '✔')} Deleted ${result.cleared.payments} payments and ${result.cleared.deliveries} deliveries${result.cleared.faults ? `, and ${result.cleared.faults} fault rule${result.cleared.faults === 1 ? '' : 's'}` : ''}; kept ${result.kept.merchants} merchants`,
    )
    return result
  }
}
