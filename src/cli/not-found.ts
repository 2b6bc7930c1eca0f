import type { Hook } from '@oclif/core'
import chalk from 'chalk'
import { inertJson } from '../domain/display.js'
import { nearest } from '../domain/nearest.js'
import { writeFailure } from './base.js'
import { ExitCode, type ExitCodeValue } from './exit-codes.js'

/**
 * `pay nosuch`: exit 127 naming the closest command or topic (`pay paymnt` → `pay payment`), on stderr and, under
 * --json, as the error document on stdout. Words after a command that takes no argument (`pay payment list extra`)
 * are a usage error of that command. At a terminal, the closest name is offered and run when accepted (a topic
 * shows its commands).
 */
const hook: Hook.CommandNotFound = async function (options) {
  const { config, id } = options
  const argv = options.argv ?? []
  const json = argv.includes('--json') || id === '--json'
  const spaced = (commandId: string) => commandId.replaceAll(':', ' ')
  const words = id.split(':')
  const command = words.map((_, i) => words.slice(0, words.length - i).join(':')).find((prefix) => config.findCommand(prefix))
  const visible = config.commands.filter((c) => !c.hidden).map((c) => c.id)
  const topics = config.topics.filter((t) => !t.hidden).map((t) => t.name)
  const near = command !== undefined || id.startsWith('-') ? undefined : nearest(spaced(id), [...visible, ...topics].map(spaced))

  if (!json && near !== undefined && process.stdin.isTTY && process.stderr.isTTY) {
    const { confirm } = await import('@inquirer/prompts')
    writeFailure(`${spaced(id)} is not a ${config.bin} command`)
    const meant = await confirm({ message: `Did you mean ${near}?`, default: true }, { output: process.stderr }).catch(() => false)
    if (meant) {
      const chosen = near.replaceAll(' ', ':')
      // A topic answers with its commands, as `pay payment` does.
      return config.findCommand(chosen) ? config.runCommand(chosen, argv) : config.runCommand('help', near.split(' '))
    }
    process.stderr.write(`  ${chalk.dim('→')} ${config.bin} help lists every command\n`)
    return this.exit(ExitCode.unknownCommand)
  }

  let message: string
  let exit: ExitCodeValue
  let suggestions: string[]
  if (command !== undefined) {
    const extra = words.slice(command.split(':').length)
    message = `unexpected argument${extra.length === 1 ? '' : 's'} ${extra.join(' ')}: ${config.bin} ${spaced(command)} takes none`
    exit = ExitCode.usage
    suggestions = [`${config.bin} ${spaced(command)} --help`]
  } else {
    const typed = spaced(id)
    message = id.startsWith('-')
      ? `${config.bin} needs a command before ${typed}`
      : `${typed} is not a ${config.bin} command${near ? `; did you mean ${config.bin} ${near}?` : ''}`
    exit = ExitCode.unknownCommand
    suggestions = [`${config.bin} help lists every command`]
  }
  if (json) {
    const code = exit === ExitCode.usage ? 'usage' : 'unknown_command'
    process.stdout.write(`${inertJson(JSON.stringify({ error: { code, message, exit } }, null, 2))}\n`)
  }
  writeFailure(message, { suggestions })
  this.exit(exit)
}

export default hook
