import { rename, writeFile } from 'node:fs/promises'
import { resolve } from 'node:path'
import { Args } from '@oclif/core'
import chalk from 'chalk'
import { ClientCommand } from '../../src/cli/base.js'
import { line, paint } from '../../src/cli/format.js'
import { usage } from '../../src/cli/usage.js'

export interface ExportResult {
  /** The file written, or `-` for stdout. */
  file: string
  merchants: number
  payments: number
  deliveries: number
}

export default class SandboxExport extends ClientCommand {
  static override summary = 'Write merchants, payments and deliveries to one versioned JSON file, or to stdout with -'
  static override description =
    'The file ({"format": "pay-sandbox-export", "version": 1, ...}) can be loaded into any sandbox with `pay sandbox import`, e.g. to share a reproduction or to seed CI. It is a backup: URLs are kept as stored, passwords and tokens in them included (other commands mask them). With - the export is the only thing on stdout (the summary goes to stderr), so --json, which would add a second document, is refused.'

  static override examples = [
    '<%= config.bin %> <%= command.id %> state.json',
    '<%= config.bin %> <%= command.id %> seed.json --url http://127.0.0.1:9000 --json',
    '<%= config.bin %> <%= command.id %> - | gzip > state.json.gz',
    '<%= config.bin %> <%= command.id %> - --url http://127.0.0.1:8787 | <%= config.bin %> sandbox import - --url http://127.0.0.1:9000 --yes',
  ]

  static override args = {
    file: Args.string({ description: 'file to write (replaced if it exists), or - for stdout', required: true, ignoreStdin: true }),
  }

  async run(): Promise<ExportResult> {
    const { args, flags } = await this.parse(SandboxExport)
    const toStdout = args.file === '-'
    if (toStdout && this.jsonEnabled()) {
      throw usage('--json does nothing with -: the export itself is the JSON on stdout', { suggestions: ['drop --json, or name a file'] })
    }
    const data = await this.client(flags.url).exportState()
    const { exportFileText } = await import('../../src/domain/transfer.js')
    const text = exportFileText(data)
    const file = toStdout ? '-' : resolve(args.file)
    if (toStdout) {
      await new Promise<void>((done, fail) => process.stdout.write(text, (error) => (error ? fail(error) : done())))
    } else {
      // Written beside the target and renamed, so a failed write never leaves half a file.
      const temp = `${file}.${process.pid}.tmp`
      try {
        await writeFile(temp, text)
        await rename(temp, file)
      } catch (error) {
        throw usage(`cannot write ${args.file}: ${(error as Error).message}`)
      }
    }
    const result = { file, merchants: data.merchants.length, payments: data.payments.length, deliveries: data.deliveries.length }
    const done = line`${paint(chalk.green, '✔')} Exported ${result.merchants} merchants, ${result.payments} payments and ${result.deliveries} deliveries to ${toStdout ? 'stdout' : args.file}`
    if (toStdout) this.logToStderr(done)
    else this.log(done)
    return result
  }
}
