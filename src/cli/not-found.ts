import type { Hook } from '@oclif/core'
import { inertJson } from '../domain/display.js'
import { nearest } from '../domain/nearest.js'
import { writeFailure } from './base.js'
import { ExitCode, type ExitCodeValue } from './exit-codes.js'

/**
 * `pay nosuch`: exit 127 naming the closest command, on stderr and, under --json, as the error document on
 * stdout. Words after a command that takes no argument (`pay payment list extra`) are a usage error of that
 * command. At a terminal, @oclif/plugin-not-found asks whether the closest command was meant.
 */
const hook: Hook.CommandNotFound = async function (options) {
  const { config, id } = options
  const argv = options.argv ?? []
  const json = argv.includes('--json') || id === '--json'
  const spaced = (commandId: string) => commandId.replaceAll(':', ' ')
  const words = id.split(':')
  const command = words.map((_, i) => words.slice(0, words.length - i).join(':')).find((prefix) => config.findCommand(prefix))

  if (!json && command === undefined && process.stdin.isTTY) {
    const { default: offer } = await import('@oclif/plugin-not-found')
    return offer.call(this, options)
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
    const near = id.startsWith('-') ? undefined : nearest(typed, config.commandIDs.map(spaced))
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
