import { Flags } from '@oclif/core'
import { PayCommand } from '../../src/cli/base.js'
import { ExitCode } from '../../src/cli/exit-codes.js'
import { readConfig, startFlags } from '../../src/cli/sandbox-config.js'
import { usage } from '../../src/cli/usage.js'

export default class SandboxExec extends PayCommand {
  protected override readonly outOfDescriptorsExit = ExitCode.startFailed
  static override summary = 'Run a command against a fresh sandbox, then stop it and exit with the command\'s code'
  static override description = `Starts a sandbox on a free port with a temporary data file (or --data), runs the command after -- with PAY_SANDBOX_URL and PAY_MERCHANT_KEY set, then stops the sandbox (saving its state; --export-on-exit writes it to a file) and exits with the command's exit code (128+n when a signal ended it, as shells do). The command's input and output pass through; Ctrl-C and SIGTERM are passed on to it. The command runs as given, not through a shell: use -- sh -c '…' for pipes and &&.
The sandbox's request log is off; --log <file> writes it, with the sandbox's other messages, to a file. --json (before --) makes this command's own errors JSON on stdout; the command's output stays its own. Exit 127 when the command is not found, 7 when the sandbox cannot start; when the command succeeded but the state could not be saved or exported, 1.`

  static override examples = [
    '<%= config.bin %> <%= command.id %> -- npm test',
    '<%= config.bin %> <%= command.id %> --import fixtures/seed.json --export-on-exit state.json -- npm test',
    '<%= config.bin %> <%= command.id %> --log sandbox.log -- sh -c \'curl -s "$PAY_SANDBOX_URL/_sandbox/health"\'',
  ]

  static override flags = {
    ...startFlags('exec'),
    log: Flags.string({ description: 'write the sandbox\'s request log and messages to this file (appended)' }),
  }

  async run(): Promise<void> {
    // Everything after the first -- is the command, as typed; parsing leaves this.argv changed.
    const split = this.argv.indexOf('--')
    const command = split === -1 ? [] : this.argv.slice(split + 1)
    const { flags } = await this.parse(SandboxExec, split === -1 ? [...this.argv] : this.argv.slice(0, split))
    if (command.length === 0) {
      throw usage('missing the command to run, after --', { suggestions: ['e.g. pay sandbox exec -- npm test'] })
    }
    const config = readConfig(flags)
    const { execWithSandbox } = await import('../../src/cli/exec.js')
    const code = await execWithSandbox(command, config, flags.log)
    // The command's code, whatever it is: exit now rather than let oclif map it.
    process.exit(code)
  }
}
