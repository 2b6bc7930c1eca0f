import { Flags } from '@oclif/core'
import chalk from 'chalk'
import { ClientCommand } from '../../src/cli/base.js'
import { sleep } from '../../src/cli/detach.js'
import { durationFlag } from '../../src/cli/duration.js'
import { ExitCode } from '../../src/cli/exit-codes.js'
import { line, paint } from '../../src/cli/format.js'
import { type Health, SandboxUnreachableError } from '../../src/client/index.js'

export default class SandboxWait extends ClientCommand {
  static override summary = 'Wait until a sandbox answers at the URL (exit 0), or exit 6 after --timeout'
  static override examples = [
    '<%= config.bin %> <%= command.id %>',
    '<%= config.bin %> <%= command.id %> --timeout 60s --url http://127.0.0.1:9000',
    '<%= config.bin %> sandbox start & <%= config.bin %> <%= command.id %> && npm test',
  ]

  static override flags = {
    timeout: Flags.string({ description: 'how long to wait, up to 24h (e.g. 30s, 500ms, 2m)', default: '30s' }),
  }

  async run(): Promise<Health> {
    const { flags } = await this.parse(SandboxWait)
    const timeoutMs = durationFlag('timeout', flags.timeout)
    const client = this.client(flags.url)
    const deadline = Date.now() + timeoutMs
    this.working(`waiting for a sandbox at ${client.url} (up to ${flags.timeout})`)
    for (;;) {
      try {
        const health = await client.health()
        this.doneWorking()
        this.log(line`${paint(chalk.green, '●')} sandbox ready at ${paint(chalk.cyan, health.url)}`)
        return health
      } catch (error) {
        if (!(error instanceof SandboxUnreachableError)) throw error
      }
      if (Date.now() >= deadline) {
        this.fail(`no sandbox answered at ${client.url} within ${flags.timeout}`, ExitCode.expectationFailed, {
          code: 'timeout',
          suggestions: ['start one with `pay sandbox start --detach`'],
        })
      }
      await sleep(Math.min(100, Math.max(0, deadline - Date.now())))
    }
  }
}
