import { Args } from '@oclif/core'
import chalk from 'chalk'
import { ClientCommand } from '../../src/cli/base.js'
import { clockFields } from '../../src/cli/clock.js'
import { ExitCode } from '../../src/cli/exit-codes.js'
import { CLOCK_LATEST, CLOCK_LATEST_MS, CLOCK_RANGE } from '../../src/domain/clock-range.js'
import { line, paint } from '../../src/cli/format.js'
import { SandboxApiError, type ClockChange } from '../../src/client/index.js'

export default class ClockSet extends ClientCommand {
  static override summary = 'Move the sandbox clock to a time (never back)'
  static override description = `Like \`pay clock advance\`, to a date and time. A time earlier than the sandbox's is refused (exit 2): the clock only moves forward; \`pay clock reset\` goes back to real time once real time catches up. So is a time after ${CLOCK_LATEST}, the latest the sandbox clock goes to.`

  static override examples = ['<%= config.bin %> <%= command.id %> 2030-01-31T12:00:00Z', '<%= config.bin %> <%= command.id %> 2030-01-31 --json']

  static override args = {
    time: Args.string({ description: 'an ISO 8601 date or date and time, e.g. 2030-01-31T12:00:00Z', required: true }),
  }

  async run(): Promise<ClockChange> {
    const { args, flags } = await this.parse(ClockSet)
    if (!/^\d{4}-\d\d-\d\d([T ][\d:.]+(Z|[+-]\d\d:?\d\d)?)?$/.test(args.time.trim()) || !Number.isFinite(Date.parse(args.time))) {
      this.fail(`time must be an ISO 8601 date or date and time, e.g. 2030-01-31T12:00:00Z (got ${JSON.stringify(args.time)})`, ExitCode.usage, { code: 'usage' })
    }
    if (Date.parse(args.time) > CLOCK_LATEST_MS) this.fail(`the sandbox clock can be set ${CLOCK_RANGE} (got ${JSON.stringify(args.time)})`, ExitCode.usage, { code: 'usage' })
    let change: ClockChange
    try {
      change = await this.client(flags.url).setClock(new Date(Date.parse(args.time)).toISOString())
    } catch (error) {
      // The sandbox's time is known only to the sandbox: a time before it is a mistake in the argument.
      if (error instanceof SandboxApiError && error.code === 'invalid_field') this.fail(error.message, ExitCode.usage, { code: 'usage' })
      throw error
    }
    this.log(line`${paint(chalk.green, '✔')} Clock set to ${change.clock.now}`)
    this.log(clockFields(change.clock, change.fired))
    return change
  }
}
