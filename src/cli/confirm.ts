import { forTerminal } from '../domain/display.js'
import { ExitCode, PayError } from './exit-codes.js'
import { usage } from './usage.js'

/**
 * Asks before a command destroys data. `--yes` skips the question; without a terminal to ask at (no TTY, or
 * CI set) and without `--yes`, it refuses with a usage error, so scripts never hang on a prompt.
 */
export async function confirmDestructive(options: { yes: boolean; canPrompt: boolean; question: string; what: string }): Promise<void> {
  if (options.yes) return
  if (!options.canPrompt) {
    throw usage(`${options.what}; pass --yes to confirm (there is no terminal to ask at)`)
  }
  const { confirm } = await import('@inquirer/prompts')
  const ok = await confirm({ message: forTerminal(options.question), default: false }, { output: process.stderr })
  if (!ok) throw new PayError('cancelled; nothing was changed', ExitCode.error, { code: 'cancelled' })
}
