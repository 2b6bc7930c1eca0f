import { ClientCommand } from '../../src/cli/base.js'
import { clockFields } from '../../src/cli/clock.js'
import type { ClockView } from '../../src/client/index.js'

export default class Clock extends ClientCommand {
  static override summary = "Show the sandbox clock: its time, and how far it is ahead of real time"
  static override description = `The sandbox has its own clock: real time plus an offset that \`pay clock advance\` and \`pay clock set\` move forward. It stamps every change, and drives expiry, automatic mining and the waits between callback retries. It never goes back.`

  static override examples = ['<%= config.bin %> <%= command.id %>', '<%= config.bin %> <%= command.id %> --json']

  async run(): Promise<ClockView> {
    const { flags } = await this.parse(Clock)
    const clock = await this.client(flags.url).clock()
    this.log(clockFields(clock))
    return clock
  }
}
