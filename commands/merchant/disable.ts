import chalk from 'chalk'
import { ClientCommand } from '../../src/cli/base.js'
import { line, paint } from '../../src/cli/format.js'
import { merchantKeyArg } from '../../src/cli/merchant.js'
import type { Merchant } from '../../src/client/index.js'

export default class MerchantDisable extends ClientCommand {
  static override summary = 'Disable a merchant: create and verify answer 103 for its key'
  static override examples = ['<%= config.bin %> <%= command.id %> sandbox']

  static override args = {
    key: merchantKeyArg(),
  }

  async run(): Promise<Merchant> {
    const { args, flags } = await this.parse(MerchantDisable)
    const merchant = await this.client(flags.url).setMerchantEnabled(args.key, false)
    this.log(line`${paint(chalk.green, '✔')} Merchant ${merchant.key} is ${merchant.enabled ? 'enabled' : 'disabled'}`)
    return merchant
  }
}
