import chalk from 'chalk'
import { ClientCommand } from '../../src/cli/base.js'
import { paint, table } from '../../src/cli/format.js'
import type { Merchant } from '../../src/client/index.js'

export default class MerchantList extends ClientCommand {
  static override summary = 'List merchants, their keys and whether they are enabled'
  static override examples = ['<%= config.bin %> <%= command.id %>', '<%= config.bin %> <%= command.id %> --json']

  async run(): Promise<{ merchants: Merchant[] }> {
    const { flags } = await this.parse(MerchantList)
    const merchants = await this.client(flags.url).listMerchants()
    this.log(
      table(
        ['KEY', 'NAME', 'STATUS'],
        merchants.map((m) => [m.key, m.name, m.enabled ? paint(chalk.green, 'enabled') : paint(chalk.red, 'disabled')]),
        { shrink: ['NAME'] },
      ),
    )
    return { merchants }
  }
}
