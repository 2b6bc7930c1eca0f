import chalk from 'chalk'
import { ClientCommand } from '../../src/cli/base.js'
import { clockFields } from '../../src/cli/clock.js'
import { line, paint } from '../../src/cli/format.js'
import type { ClockChange } from '../../src/client/index.js'

export default class ClockReset extends ClientCommand {
  static override summary = 'Go back to real time'
  static override description = `Removes the clock's offset. The clock never goes back: if it is ahead of real time, it stands still until real time catches up (stamps keep that time; callback retries keep their waits; expiries wait for the time they are due).`

  static override examples = ['<%= config.bin %> <%= command.id %>']

  async run(): Promise<ClockChange> {
    const { flags } = await this.parse(ClockReset)
    const change = await this.client(flags.url).resetClock()
    this.log(line`${paint(chalk.green, '✔')} Clock reset`)
    this.log(clockFields(change.clock))
    return change
  }
}
