import { Args, Flags } from '@oclif/core'
import chalk from 'chalk'
import { ClientCommand } from '../../src/cli/base.js'
import { confirmDestructive } from '../../src/cli/confirm.js'
import { line, paint } from '../../src/cli/format.js'
import { usage } from '../../src/cli/usage.js'
import type { ImportResult } from '../../src/client/index.js'
import { forTerminal } from '../../src/domain/display.js'
import type { ExportCheck } from '../../src/domain/transfer.js'

export default class SandboxImport extends ClientCommand {
  static override summary = 'Replace the sandbox state with a file written by `pay sandbox export`, or with stdin given -'
  static override description =
    'Checks the whole file first (format, version, every record and its fields, references between records); an invalid file is refused with what is wrong and nothing changes. Replaces merchants, payments and deliveries. Asks for confirmation at a terminal; scripts pass --yes (so does - : stdin holds the file, not an answer).'

  static override examples = [
    '<%= config.bin %> <%= command.id %> state.json',
    '<%= config.bin %> <%= command.id %> seed.json --yes --json',
    'gunzip -c state.json.gz | <%= config.bin %> <%= command.id %> - --yes',
  ]

  static override args = {
    file: Args.string({ description: 'export file to load, or - for stdin', required: true, ignoreStdin: true }),
  }

  static override flags = {
    yes: Flags.boolean({ char: 'y', description: 'do not ask for confirmation' }),
  }

  async run(): Promise<ImportResult> {
    const { args, flags } = await this.parse(SandboxImport)
    const name = args.file === '-' ? 'stdin' : args.file
    // Checked with the sandbox's own reader, record by record, before anything is sent.
    // The file's reader and schema are loaded by this command only, not at every start of pay.
    const { checkImportFile, checkImportStream } = await import('../../src/cli/import-file.js')
    const { EXPORT_FORMAT, EXPORT_VERSION } = await import('../../src/domain/transfer.js')
    let check: ExportCheck
    try {
      check = args.file === '-' ? await checkImportStream(process.stdin) : await checkImportFile(args.file)
    } catch (error) {
      throw usage(`cannot read ${name}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`)
    }
    if (!check.ok) {
      throw usage(`${forTerminal(name)} is not a valid export file:\n${check.problems.map((p) => `  - ${forTerminal(p)}`).join('\n')}`, { multiline: true })
    }
    const { merchants, payments, deliveries } = check.image
    const client = this.client(flags.url)
    const { counts, url } = await client.health()
    await confirmDestructive({
      yes: flags.yes,
      // Given -, stdin held the file: there is nobody to ask.
      canPrompt: args.file !== '-' && this.canPrompt(),
      what: `import replaces all ${counts.merchants} merchants, ${counts.payments} payments and ${counts.deliveries} deliveries at ${url}`,
      question: `Replace everything at ${url} (${counts.merchants} merchants, ${counts.payments} payments, ${counts.deliveries} deliveries) with ${name}?`,
    })
    const result = await client.importState({ format: EXPORT_FORMAT, version: EXPORT_VERSION, merchants, payments, deliveries })
    this.log(
      line`${paint(chalk.green, '✔')} Loaded ${merchants.length} merchants, ${payments.length} payments and ${deliveries.length} deliveries from ${name}`,
    )
    return result
  }
}
