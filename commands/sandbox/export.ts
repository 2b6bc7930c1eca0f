import { rename, writeFile } from 'node:fs/promises'
import { resolve } from 'node:path'
import { Args } from '@oclif/core'
import chalk from 'chalk'
import { ClientCommand } from '../../src/cli/base.js'
import { ExitCode } from '../../src/cli/exit-codes.js'
import { line, paint } from '../../src/cli/format.js'
import { exportFileText } from '../../src/domain/transfer.js'

export interface ExportResult {
  file: string
  merchants: number
  payments: number
  deliveries: number
}

export default class SandboxExport extends ClientCommand {
  static override summary = 'Write merchants, payments and deliveries to one versioned JSON file'
  static override description =
    'The file ({"format": "pay-sandbox-export", "version": 1, ...}) can be loaded into any sandbox with `pay sandbox import`, e.g. to share a reproduction or to seed CI. It is a backup: URLs are kept as stored, passwords and tokens in them included (other commands mask them).'

  static override examples = [
    '<%= config.bin %> <%= command.id %> state.json',
    '<%= config.bin %> <%= command.id %> fixtures/seed.json --url http://127.0.0.1:9000 --json',
  ]

  static override args = {
    file: Args.string({ description: 'file to write (replaced if it exists)', required: true }),
  }

  async run(): Promise<ExportResult> {
    const { args, flags } = await this.parse(SandboxExport)
    const data = await this.client(flags.url).exportState()
    const file = resolve(args.file)
    // Written beside the target and renamed, so a failed write never leaves half a file.
    const temp = `${file}.${process.pid}.tmp`
    try {
      await writeFile(temp, exportFileText(data))
      await rename(temp, file)
    } catch (error) {
      this.fail(`cannot write ${args.file}: ${(error as Error).message}`, ExitCode.usage)
    }
    const result = { file, merchants: data.merchants.length, payments: data.payments.length, deliveries: data.deliveries.length }
    this.log(
      line`${paint(chalk.green, '✔')} Exported ${result.merchants} merchants, ${result.payments} payments and ${result.deliveries} deliveries to ${args.file}`,
    )
    return result
  }
}
