import { Args, Flags } from '@oclif/core'
import chalk from 'chalk'
import { ClientCommand } from '../../src/cli/base.js'
import { confirmDestructive } from '../../src/cli/confirm.js'
import { ExitCode } from '../../src/cli/exit-codes.js'
import { checkImportFile } from '../../src/cli/import-file.js'
import { line, paint } from '../../src/cli/format.js'
import type { ImportResult } from '../../src/client/index.js'
import { forTerminal } from '../../src/domain/display.js'
import { EXPORT_FORMAT, EXPORT_VERSION, type ExportCheck } from '../../src/domain/transfer.js'

export default class SandboxImport extends ClientCommand {
  static override summary = 'Replace the sandbox state with a file written by `pay sandbox export`'
  static override description =
    'Checks the whole file first (format, version, every record and its fields, references between records); an invalid file is refused with what is wrong and nothing changes. Replaces merchants, payments and deliveries. Asks for confirmation at a terminal; scripts pass --yes.'

  static override examples = [
    '<%= config.bin %> <%= command.id %> state.json',
    '<%= config.bin %> <%= command.id %> fixtures/seed.json --yes --json',
  ]

  static override args = {
    file: Args.string({ description: 'export file to load', required: true }),
  }

  static override flags = {
    yes: Flags.boolean({ char: 'y', description: 'do not ask for confirmation' }),
  }

  async run(): Promise<ImportResult> {
    const { args, flags } = await this.parse(SandboxImport)
    let check: ExportCheck
    try {
      check = await checkImportFile(args.file)
    } catch (error) {
      this.fail(`cannot read ${args.file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`, ExitCode.usage)
    }
    if (!check.ok) {
      this.fail(`${forTerminal(args.file)} is not a valid export file:\n${check.problems.map((p) => `  - ${forTerminal(p)}`).join('\n')}`, ExitCode.usage, {
        code: 'invalid_file',
        multiline: true,
      })
    }
    const { merchants, payments, deliveries } = check.image
    const client = this.client(flags.url)
    const { counts, url } = await client.health()
    await confirmDestructive({
      yes: flags.yes,
      canPrompt: this.canPrompt(),
      what: `import replaces all ${counts.merchants} merchants, ${counts.payments} payments and ${counts.deliveries} deliveries at ${url}`,
      question: `Replace everything at ${url} (${counts.merchants} merchants, ${counts.payments} payments, ${counts.deliveries} deliveries) with ${args.file}?`,
    })
    const result = await client.importState({ format: EXPORT_FORMAT, version: EXPORT_VERSION, merchants, payments, deliveries })
    this.log(
      line`${paint(chalk.green, '✔')} Loaded ${merchants.length} merchants, ${payments.length} payments and ${deliveries.length} deliveries from ${args.file}`,
    )
    return result
  }
}
