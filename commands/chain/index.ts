import { ClientCommand } from '../../src/cli/base.js'
import { fields, table } from '../../src/cli/format.js'
import type { ChainView } from '../../src/client/index.js'
import { formatDuration } from '../../src/domain/duration.js'

export default class Chain extends ClientCommand {
  static override summary = 'Show the sandbox chain: confirmations needed per asset, block time, payments confirming'
  static override description = `An unfinalized payment (the customer's transaction is seen, not final) counts confirmations: each block mined adds one, and once it has the number its asset needs it becomes paid (a notification; verify answers 100). Until then verify answers 203 with the amount. Blocks are mined by \`pay chain mine\`, the checkout page's Mine a block, or every --block-time of \`pay sandbox start\`.`

  static override examples = ['<%= config.bin %> <%= command.id %>', '<%= config.bin %> <%= command.id %> --json']

  async run(): Promise<ChainView> {
    const { flags } = await this.parse(Chain)
    const chain = await this.client(flags.url).chain()
    this.log(
      fields([
        ['blocks mined', chain.height],
        ['block time', chain.blockTimeMs !== undefined ? formatDuration(chain.blockTimeMs) : 'none (mine with pay chain mine)'],
        ['confirming', `${chain.unfinalized} payment${chain.unfinalized === 1 ? '' : 's'}`],
      ]),
    )
    this.log('')
    this.log(table(['ASSET', 'CONFIRMATIONS'], Object.entries(chain.confirmations).map(([asset, n]) => [asset, n])))
    return chain
  }
}
