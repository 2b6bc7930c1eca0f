import { Flags } from '@oclif/core'
import chalk from 'chalk'
import { ClientCommand } from '../../src/cli/base.js'
import { fields, line, paint } from '../../src/cli/format.js'
import { usage } from '../../src/cli/usage.js'
import type { Merchant } from '../../src/client/index.js'
import { isMerchantKey, isMerchantName, merchantKeyRule, merchantNameRule } from '../../src/domain/merchant.js'

export default class MerchantCreate extends ClientCommand {
  static override summary = 'Create a merchant and its API key'
  static override examples = [
    '<%= config.bin %> <%= command.id %> --name "Coffee shop"',
    '<%= config.bin %> <%= command.id %> --key shop_test_key --name "Coffee shop" --json',
  ]

  static override flags = {
    key: Flags.string({ description: 'API key to use: 1 to 128 letters, digits or . _ ~ - (default: a random sandbox_… key)' }),
    name: Flags.string({ description: 'merchant name, shown on the checkout page: 1 to 200 characters' }),
  }

  async run(): Promise<Merchant> {
    const { flags } = await this.parse(MerchantCreate)
    if (flags.key !== undefined && !isMerchantKey(flags.key)) throw usage(`--key: ${merchantKeyRule(flags.key)}`)
    if (flags.name !== undefined && !isMerchantName(flags.name)) throw usage(`--name: ${merchantNameRule(flags.name)}`)
    const merchant = await this.client(flags.url).createMerchant({
      ...(flags.key !== undefined ? { key: flags.key } : {}),
      ...(flags.name !== undefined ? { name: flags.name } : {}),
    })
    this.log(line`${paint(chalk.green, '✔')} Merchant created`)
    this.log(fields([['key', merchant.key], ['name', merchant.name]]))
    return merchant
  }
}
