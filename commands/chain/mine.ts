import { Flags } from '@oclif/core'
import chalk from 'chalk'
import { ClientCommand } from '../../src/cli/base.js'
import { line, paint, status, table } from '../../src/cli/format.js'
import type { MineResult, PaymentStatus } from '../../src/client/index.js'
import { MAX_BLOCKS_PER_MINE } from '../../src/chain/rules.js'

export default class ChainMine extends ClientCommand {
  static override summary = 'Mine blocks: one more confirmation for every unfinalized payment'
  static override description = `A payment that reaches the confirmations its asset needs becomes paid: its notification is sent and verify answers 100. \`pay chain\` shows how many each asset needs.`

  static override examples = ['<%= config.bin %> <%= command.id %>', '<%= config.bin %> <%= command.id %> --blocks 3 --json']

  static override flags = {
    blocks: Flags.integer({ description: 'blocks to mine', default: 1, min: 1, max: MAX_BLOCKS_PER_MINE }),
  }

  async run(): Promise<MineResult> {
    const { flags } = await this.parse(ChainMine)
    const mined = await this.client(flags.url).mine(flags.blocks)
    this.log(line`${paint(chalk.green, '✔')} Mined ${mined.blocks} block${mined.blocks === 1 ? '' : 's'} (height ${mined.height})`)
    if (mined.payments.length === 0) this.log(paint(chalk.dim, 'No payment was waiting for confirmations.'))
    else {
      this.log(
        table(
          ['TRACK ID', 'CONFIRMATIONS', 'STATUS'],
          mined.payments.map((p) => [p.trackId, `${p.confirmations} of ${p.confirmationsRequired}`, status(p.status as PaymentStatus)]),
        ),
      )
    }
    return mined
  }
}
