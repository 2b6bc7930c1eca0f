import { Command, Errors, Flags, type Interfaces } from '@oclif/core'
import chalk from 'chalk'
import { DEFAULT_URL, SandboxApiError, SandboxClient, SandboxUnreachableError } from '../client/index.js'
import { forTerminal, inertJson } from '../domain/display.js'
import { ExitCode, type ExitCodeValue, PayError } from './exit-codes.js'
import { Styled } from './format.js'
import { outOfDescriptorsMessage } from './open-files.js'
import { type Progress, progress } from './progress.js'
import { sandboxUrl } from './sandbox-url.js'
import { type CommandFacts, fromParseError, missingArguments, missingFlag, type OclifParseError, usage } from './usage.js'

type Output = { [name: string]: unknown }

/**
 * Base of every command: `--json`, `--no-color`, prompts, and one place that turns failures into a message
 * on stderr and an exit code. Whatever it prints passes through `forTerminal` unless it is Styled (built by
 * src/cli/format.ts from inert parts), so text from the sandbox never drives the terminal.
 */
export abstract class PayCommand extends Command {
  static override enableJsonFlag = true

  static override baseFlags = {
    color: Flags.boolean({
      description: 'colour in human output (off under NO_COLOR or when not a terminal)',
      allowNo: true,
      default: true,
      helpGroup: 'GLOBAL',
    }),
  }

  /** The exit code when the command cannot run at all for want of file descriptors: 7 for the commands that start a server. */
  protected readonly outOfDescriptorsExit: ExitCodeValue = ExitCode.error

  private _client: SandboxClient | undefined

  protected client(url: string): SandboxClient {
    // Every request of the CLI is the developer's, not the merchant's code: marked, so the audit leaves it out.
    this._client ??= new SandboxClient(url, { operator: true })
    return this._client
  }

  /** Colour off under --no-color, NO_COLOR or --json (chalk already turns it off when not a terminal). */
  protected override async init(): Promise<void> {
    await super.init()
    if (this.argv.includes('--no-color') || process.env.NO_COLOR || this.argv.includes('--json')) chalk.level = 0
  }

  /**
   * Flags whose text goes to the spec API as typed, so an empty value is a test case (`--return-url ''` is 107);
   * every other flag given empty is a usage error, as an empty argument is.
   */
  static emptyAllowed: readonly string[] = []

  /** Flags typed on the command line (not taken from the environment or a default). */
  private typed = new Set<string>()

  /** Parses, then refuses empty arguments and flags (`pay callback show ''`), naming them. */
  protected override async parse<F extends Output, B extends Output, A extends Output>(
    options?: Interfaces.Input<F, B, A>,
    argv?: string[],
  ): Promise<Interfaces.ParserOutput<F, B, A>> {
    const parsed = await super.parse(options, argv)
    const defined = Object.entries((options ?? this.ctor).args ?? {})
    parsed.argv.forEach((value, i) => {
      if (value !== '') return
      const [name, arg] = defined[Math.min(i, defined.length - 1)] ?? ['argument', undefined]
      const what = arg?.description ? ` — expected ${arg.description}` : ''
      throw usage(`the ${name} argument is empty${what}`)
    })
    const flags = (options ?? this.ctor).flags ?? {}
    const emptyAllowed = (this.ctor as unknown as typeof PayCommand).emptyAllowed
    for (const token of parsed.raw) {
      if (token.type !== 'flag') continue
      this.typed.add(token.flag)
      const flag = flags[token.flag]
      if (token.input === '' && flag?.type === 'option' && !emptyAllowed.includes(token.flag)) {
        throw usage(`--${token.flag} is empty — expected ${flag.description ?? 'a value'}`)
      }
    }
    return parsed
  }

  /** Whether `flag` was typed on the command line, rather than taken from the environment or its default. */
  protected typedFlag(flag: string): boolean {
    return this.typed.has(flag)
  }

  /** A usage error for a flag that would do nothing with the others given. */
  protected refuseTogether(flag: string, why: string): never {
    throw usage(`--${flag} ${why}`)
  }

  private spinner: Progress | undefined

  /**
   * Shows that long work is going on: a spinner with `text` on stderr, at a terminal only and never with --json.
   * Calling it again changes the text. Whatever the command prints clears it first; it ends with the command.
   */
  protected working(text: string): void {
    if (this.spinner) this.spinner.update(text)
    else this.spinner = progress(text, { json: this.jsonEnabled() })
  }

  /** Ends the spinner of `working`. */
  protected doneWorking(): void {
    this.spinner?.stop()
    this.spinner = undefined
  }

  override log(message: string | Styled = ''): void {
    this.spinner?.clear()
    super.log(message instanceof Styled ? message.text : forTerminal(message))
  }

  override logToStderr(message: string | Styled = ''): void {
    this.spinner?.clear()
    super.logToStderr(message instanceof Styled ? message.text : forTerminal(message))
  }

  /** Exact data; only C1 and bidi controls, which JSON leaves raw, are written as \u escapes. */
  override logJson(json: unknown): void {
    process.stdout.write(`${inertJson(JSON.stringify(json, null, 2))}\n`)
  }

  /** Whether a person is at a terminal who can be asked for a missing value. */
  protected canPrompt(): boolean {
    return Boolean(process.stdin.isTTY && process.stderr.isTTY && !process.env.CI)
  }

  /** This command as usage errors point to it: `pay payment create`, its flags and its examples. */
  protected facts(): CommandFacts {
    const ctor = this.ctor
    return {
      command: `${this.config.bin} ${this.id?.replaceAll(':', ' ') ?? ''}`.trim(),
      flags: (ctor.flags ?? {}) as CommandFacts['flags'],
      examples: (ctor.examples ?? []) as CommandFacts['examples'],
    }
  }

  /** A required value: the flag's, else asked for at a terminal, else a usage error naming the flag (with an example). */
  protected async required(flag: string, value: string | undefined, message: string): Promise<string> {
    if (value !== undefined && value !== '') return value
    if (!this.canPrompt()) throw missingFlag(flag, this.facts())
    const { input } = await import('@inquirer/prompts')
    return input({ message, required: true }, { output: process.stderr })
  }

  /** A required choice: the flag's, else picked from a list at a terminal, else a usage error naming the flag (with an example). */
  protected async requiredChoice<T extends string>(flag: string, value: string | undefined, message: string, choices: readonly T[]): Promise<T> {
    if (value !== undefined && value !== '') return value as T
    if (!this.canPrompt()) throw missingFlag(flag, this.facts())
    const { select } = await import('@inquirer/prompts')
    return select({ message, choices: choices.map((c) => ({ value: c, name: c })) }, { output: process.stderr })
  }

  /**
   * An argument with fixed choices, as typed (the caller checks it), else picked from a list at a terminal, else a
   * usage error naming it (with an example).
   */
  protected async requiredArgumentChoice<T extends string>(arg: string, value: string | undefined, message: string, choices: readonly T[]): Promise<T | string> {
    if (value !== undefined) return value
    if (!this.canPrompt()) throw missingArguments([{ name: arg, ...(this.ctor.args?.[arg] ?? {}) }], this.facts())
    const { select } = await import('@inquirer/prompts')
    return select({ message, choices: choices.map((c) => ({ value: c, name: c })) }, { output: process.stderr })
  }

  protected fail(message: string, exit: ExitCodeValue, options: { code?: string; suggestions?: string[]; multiline?: boolean } = {}): never {
    throw new PayError(message, exit, options)
  }

  protected override async catch(err: Error & { oclif?: { exit?: number } }): Promise<void> {
    // Refused while parsing (an invalid flag): the arguments were read, so oclif's "did not parse" warning, meant
    // for commands that never call parse, would only add noise under NODE_ENV=development.
    this.parsed = true
    this.doneWorking()
    const failure = toPayError(err, this.facts(), this.outOfDescriptorsExit)
    process.exitCode = failure.exit
    if (this.jsonEnabled()) {
      this.logJson({ error: { code: failure.code, message: failure.message, exit: failure.exit } })
    }
    writeFailure(failure.message, { multiline: failure.multiline, suggestions: failure.suggestions })
  }

  /**
   * A failure that still has a result to print (a spec failure answer, replays not delivered, a failed scenario):
   * the message goes to stderr and the exit code is set, while `run()` returns the result for stdout.
   */
  protected failWithResult(message: string, exit: ExitCodeValue, suggestions?: string[]): void {
    this.doneWorking()
    process.exitCode = exit
    writeFailure(message, suggestions ? { suggestions } : {})
  }

  protected override async finally(err: Error | undefined): Promise<void> {
    this.doneWorking()
    this._client?.close()
    await super.finally(err)
  }
}

/** Base of every command that talks to a running sandbox: adds `--url` (env PAY_SANDBOX_URL). */
export abstract class ClientCommand extends PayCommand {
  static override baseFlags = {
    ...PayCommand.baseFlags,
    url: Flags.string({
      description: 'URL of the sandbox',
      env: 'PAY_SANDBOX_URL',
      default: DEFAULT_URL,
      helpGroup: 'GLOBAL',
    }),
  }

  protected override async parse<F extends Output, B extends Output, A extends Output>(
    options?: Interfaces.Input<F, B, A>,
    argv?: string[],
  ): Promise<Interfaces.ParserOutput<F, B, A>> {
    const parsed = await super.parse(options, argv)
    const url = (parsed.flags as { url?: unknown }).url
    if (typeof url === 'string') sandboxUrl(url, this.typedFlag('url') || !process.env.PAY_SANDBOX_URL ? '--url' : 'PAY_SANDBOX_URL')
    return parsed
  }
}

/** `Error: message` on stderr, with suggestions below it; made inert, whatever the message holds. */
export function writeFailure(message: string, options: { multiline?: boolean; suggestions?: string[] } = {}): void {
  const lines = [
    `${chalk.red('Error:')} ${forTerminal(message, { multiline: options.multiline ?? false })}`,
    ...(options.suggestions ?? []).map((s) => `  ${chalk.dim('→')} ${forTerminal(s)}`),
  ]
  process.stderr.write(`${lines.join('\n')}\n`)
}

function toPayError(err: Error & { oclif?: { exit?: number } }, command: CommandFacts, outOfDescriptorsExit: ExitCodeValue): PayError {
  if (err instanceof PayError) return err
  const code = (err as NodeJS.ErrnoException).code
  if (code === 'EMFILE' || code === 'ENFILE') return new PayError(outOfDescriptorsMessage(code, `to run ${command.command}`), outOfDescriptorsExit)
  if (err instanceof SandboxUnreachableError) return new PayError(err.message, ExitCode.unreachable, { code: 'unreachable' })
  if (err instanceof SandboxApiError) return new PayError(err.message, ExitCode.rejected, { code: err.code })
  if (err instanceof Errors.CLIError || err.oclif) {
    if (err.oclif?.exit === 0) return new PayError(err.message, ExitCode.ok)
    // oclif's own parse errors: unknown or invalid flags, missing arguments.
    return fromParseError(err as OclifParseError, command)
  }
  return new PayError(err.message || String(err), ExitCode.error, { code: 'unexpected' })
}
