import { Args } from '@oclif/core'
import chalk from 'chalk'
import { ClientCommand } from '../../src/cli/base.js'
import { line, paint } from '../../src/cli/format.js'
import type { FaultRule } from '../../src/client/index.js'
import { compactFault } from '../../src/domain/api-fault.js'

export default class FaultClear extends ClientCommand {
  static override summary = 'Remove one API fault rule, or all of them'
  static override description = 'Without an id every rule goes, and every request gets its real answer again. An id the sandbox does not have is exit 5.'
  static override examples = ['<%= config.bin %> <%= command.id %>', '<%= config.bin %> <%= command.id %> flt_3cosjY6QVuE1', '<%= config.bin %> <%= command.id %> --json']

  static override args = {
    id: Args.string({ description: 'the rule to remove (flt_…, from pay fault list); all of them when left out', required: false, ignoreStdin: true }),
  }

  async run(): Promise<{ cleared: FaultRule[] }> {
    const { args, flags } = await this.parse(FaultClear)
    const cleared = await this.client(flags.url).clearFaults(args.id)
    const mark = paint(chalk.green, '✔')
    if (cleared.length === 0) this.log(line`${mark} No fault rules to remove`)
    else if (args.id !== undefined) this.log(line`${mark} Removed ${cleared[0]!.id} (${compactFault(cleared[0]!, 'show')})`)
    else this.log(line`${mark} Removed ${cleared.length} fault rule${cleared.length === 1 ? '' : 's'}`)
    return { cleared }
  }
}
