import { Args, loadHelpClass } from '@oclif/core'
import { PayCommand } from '../src/cli/base.js'
import { fillExample, usage } from '../src/cli/usage.js'
import { nearest } from '../src/domain/nearest.js'

interface CommandHelp {
  command: string
  summary: string | undefined
  flags: Array<{ name: string; description: string | undefined; options?: string[]; env?: string }>
  examples: string[]
}
export type HelpResult = CommandHelp | { commands: Array<{ command: string; summary: string | undefined }> }

export default class Help extends PayCommand {
  static override summary = 'Show the commands of pay or of a topic, or the flags and examples of one command'
  static override description = '`pay <command> --help` and `-h` show the same. With --json: the commands and their summaries, or one command with its flags and examples.'
  static override examples = [
    '<%= config.bin %> <%= command.id %>',
    '<%= config.bin %> <%= command.id %> payment',
    '<%= config.bin %> <%= command.id %> payment create',
    '<%= config.bin %> <%= command.id %> payment simulate --json',
  ]

  static override strict = false

  static override args = {
    command: Args.string({ description: 'a command or topic, e.g. payment create', ignoreStdin: true }),
  }

  async run(): Promise<HelpResult> {
    const { argv } = await this.parse(Help)
    const words = argv as string[]
    const id = words.join(':')
    const spaced = (commandId: string) => commandId.replaceAll(':', ' ')
    const visible = this.config.commands.filter((c) => !c.hidden)
    const command = id === '' ? undefined : this.config.findCommand(id)
    if (id !== '' && !command && !this.config.findTopic(id)) {
      const near = nearest(spaced(id), [...visible.map((c) => spaced(c.id)), ...this.config.topics.map((t) => spaced(t.name))])
      throw usage(`${spaced(id)} is not a ${this.config.bin} command or topic${near ? `; did you mean ${this.config.bin} help ${near}?` : ''}`, {
        suggestions: [`${this.config.bin} help lists every command`],
      })
    }
    if (!this.jsonEnabled()) {
      const HelpClass = await loadHelpClass(this.config)
      await new HelpClass(this.config).showHelp(words)
    }
    if (!command) {
      const under = visible.filter((c) => id === '' || c.id.startsWith(`${id}:`))
      return { commands: under.map((c) => ({ command: `${this.config.bin} ${spaced(c.id)}`, summary: c.summary ?? c.description })) }
    }
    return {
      command: `${this.config.bin} ${spaced(command.id)}`,
      summary: command.summary ?? command.description,
      flags: Object.values(command.flags)
        .filter((f) => !f.hidden)
        .map((f) => ({
          name: `--${f.name}`,
          description: f.description,
          ...(f.type === 'option' && f.options ? { options: [...f.options] } : {}),
          ...(f.type === 'option' && typeof f.env === 'string' ? { env: f.env } : {}),
        })),
      examples: (command.examples ?? []).map((e) => fillExample(e, `${this.config.bin} ${spaced(command.id)}`)),
    }
  }
}
