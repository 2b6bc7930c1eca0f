import chalk from 'chalk'
import { ClientCommand } from '../../src/cli/base.js'
import { fields, line, paint } from '../../src/cli/format.js'
import type { Health } from '../../src/client/index.js'
import { describeSettings } from '../../src/cli/lab-options.js'

export default class SandboxStatus extends ClientCommand {
  static override summary = 'Show whether a sandbox is running at the URL (exit 0 when up, 3 when not)'
  static override examples = [
    '<%= config.bin %> <%= command.id %>',
    '<%= config.bin %> <%= command.id %> --url http://127.0.0.1:9000 --json',
  ]

  async run(): Promise<Health> {
    const { flags } = await this.parse(SandboxStatus)
    const health = await this.client(flags.url).health()
    this.log(line`${paint(chalk.green, '●')} sandbox running at ${paint(chalk.cyan, health.url)}`)
    this.log(
      fields([
        ['version', health.version],
        ['pid', health.pid],
        health.store?.engine === 'postgres'
          ? ['store', `${health.store.location} (${plural(health.store.instances, 'sandbox', 'sandboxes')} live on it${health.store.leading ? '; this one leads' : ''})`]
          : ['data file', health.dataFile],
        ['since', health.startedAt],
        ['merchants', health.counts.merchants],
        ['payments', health.counts.payments],
        ['deliveries', health.counts.deliveries],
        ...(health.settings ? describeSettings(health.settings) : []),
      ]),
    )
    return health
  }
}

function plural(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`
}
