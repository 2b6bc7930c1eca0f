import { Args } from '@oclif/core'
import chalk from 'chalk'
import { ClientCommand } from '../../src/cli/base.js'
import { clockFields } from '../../src/cli/clock.js'
import { ExitCode } from '../../src/cli/exit-codes.js'
import { CLOCK_LATEST } from '../../src/domain/clock-range.js'
import { readDuration } from '../../src/domain/duration.js'
import { line, paint } from '../../src/cli/format.js'
import { SandboxApiError, type ClockChange } from '../../src/client/index.js'

export default class ClockAdvance extends ClientCommand {
  static override summary = 'Move the sandbox clock forward, firing what becomes due'
  static override description = `Every timer that becomes due fires at once, in due order, with the clock standing at its due time: callback retries and delayed notifications are sent, pending payments past their time to live expire, blocks are mined (with --block-time). Returns once that is done. A retry is scheduled when its attempt has been made, so each attempt of a failing callback that falls within the advance is sent.`

  static override examples = [
    '<%= config.bin %> <%= command.id %> 30s',
    '<%= config.bin %> <%= command.id %> 15m    # past a 15-minute --payment-ttl: pending payments expire',
    '<%= config.bin %> <%= command.id %> 1h --json',
  ]

  static override args = {
    duration: Args.string({ description: `how far: 500ms, 30s, 15m, 2h, or a bare number of seconds (at most 24h; pay clock set goes further); the clock goes no later than ${CLOCK_LATEST}`, required: true }),
  }

  async run(): Promise<ClockChange> {
    const { args, flags } = await this.parse(ClockAdvance)
    const read = readDuration('the duration argument', args.duration, { min: 1 })
    if ('problem' in read) this.fail(read.problem, ExitCode.usage, { code: 'usage' })
    const { ms } = read
    let change: ClockChange
    try {
      change = await this.client(flags.url).advanceClock(ms)
    } catch (error) {
      // Only an advance past the latest time the clock goes to is refused: the argument asks too much.
      if (error instanceof SandboxApiError && error.code === 'invalid_field') this.fail(error.message, ExitCode.usage, { code: 'usage' })
      throw error
    }
    this.log(line`${paint(chalk.green, '✔')} Clock advanced by ${args.duration}`)
    this.log(clockFields(change.clock, change.fired))
    return change
  }
}
