import { mkdir, writeFile } from 'node:fs/promises'
import { dirname } from 'node:path'
import { Args, Flags } from '@oclif/core'
import chalk from 'chalk'
import { ClientCommand } from '../../src/cli/base.js'
import { ExitCode } from '../../src/cli/exit-codes.js'
import { Styled } from '../../src/cli/format.js'
import { usage } from '../../src/cli/usage.js'
import type { SandboxOptions } from '../../src/index.js'
import type { SandboxClient } from '../../src/client/index.js'
import { forTerminal, inertJson } from '../../src/domain/display.js'
import { REPORTERS, scenarioHeading, stepLine, summaryLine, toJUnit, type Reporter } from '../../src/scenario/report.js'
import type { RunReport } from '../../src/scenario/run.js'

/** Retries for the throwaway sandbox of --start: quick enough that a failing receiver recovers in well under a second. */
const START_CALLBACKS = { retries: 5, timeoutMs: 2_000, scheduleMs: [100, 200, 400] }

/** The usage error (exit 2) for mistakes in scenario files, one line each. */
function filesRefused(problems: string[]) {
  const count = `${problems.length} problem${problems.length === 1 ? '' : 's'}`
  return usage(`${count} in scenario files; nothing was run:\n  ${problems.map((p) => forTerminal(p)).join('\n  ')}`, { multiline: true })
}

export default class ScenarioRun extends ClientCommand {
  static override summary = 'Run scenario files against a sandbox and check every expectation'
  static override description = `A scenario file (JSON or YAML, "version": 1) is a list of steps: create merchants and payments, simulate the customer, verify, expect callbacks, wait. Its JSON Schema ships as pay-sandbox/schemas/scenario.schema.json, for editors. All files are checked before anything runs: an invalid file exits 2 naming the file, line, step and field. A folder stands for its *.json, *.yaml and *.yml files. Exits 6 when an expectation fails (the steps after it in that scenario are skipped), 0 when all pass.

--start runs a throwaway sandbox in this process (temporary data file, callback retries after 100/200/400 ms), so --url is refused with it (PAY_SANDBOX_URL is ignored); otherwise the sandbox at --url is used, which must be able to reach 127.0.0.1, where callback receivers listen. --json prints the json report on stdout, so --reporter junit or --output with it is refused.`

  static override examples = [
    '<%= config.bin %> <%= command.id %> fixtures/scenarios --start',
    '<%= config.bin %> <%= command.id %> fixtures/scenarios/paid.json --url http://127.0.0.1:8787',
    '<%= config.bin %> <%= command.id %> my-flow.yaml --start',
    '<%= config.bin %> <%= command.id %> fixtures/scenarios --start --reporter junit > scenarios.xml',
    '<%= config.bin %> <%= command.id %> fixtures/scenarios --reporter junit --output reports/scenarios.xml',
  ]

  static override strict = false

  static override args = {
    files: Args.string({ description: 'scenario files or folders of them', required: true, ignoreStdin: true }),
  }

  static override flags = {
    start: Flags.boolean({ description: 'start a throwaway sandbox for this run (not with --url)' }),
    reporter: Flags.option({ description: 'output format', options: REPORTERS, default: 'human' as Reporter })(),
    output: Flags.string({ description: 'write the json or junit report to this file; progress is printed as with human' }),
  }

  async run(): Promise<RunReport> {
    const { argv, flags } = await this.parse(ScenarioRun)
    if (flags.start && this.typedFlag('url')) this.refuseTogether('url', 'does nothing with --start, which runs a sandbox of its own; drop one of them')
    if (this.jsonEnabled() && this.typedFlag('reporter') && flags.reporter !== 'json') {
      this.refuseTogether('reporter', `${flags.reporter} does nothing with --json, which prints the json report; drop one of them`)
    }
    if (this.jsonEnabled() && flags.output !== undefined) {
      this.refuseTogether('output', 'does nothing with --json, which prints the report on stdout; use --reporter json --output <file> to write it to a file')
    }
    const files = argv as string[]
    // YAML, the schema checker and the runner load with this command only.
    const { loadScenarios } = await import('../../src/scenario/load.js')
    const { runScenarios } = await import('../../src/scenario/run.js')
    const { botProblems } = await import('../../src/scenario/run-chat.js')
    const { scenarios, problems } = await loadScenarios(files)
    if (problems.length > 0) throw filesRefused(problems)
    const reporter: Reporter = this.jsonEnabled() ? 'json' : flags.reporter
    if (flags.output !== undefined && reporter === 'human') throw usage('--output needs --reporter json or junit')
    const streaming = !this.jsonEnabled() && (reporter === 'human' || flags.output !== undefined)
    const paint = { green: chalk.green, red: chalk.red, dim: chalk.dim, bold: chalk.bold }

    let stop: (() => Promise<void>) | undefined
    let client: SandboxClient
    if (flags.start) {
      const { startSandbox } = await import('../../src/index.js')
      const options: SandboxOptions = { callbacks: START_CALLBACKS }
      try {
        const sandbox = await startSandbox(options)
        stop = () => sandbox.stop()
        client = sandbox.client
      } catch (error) {
        this.fail(`could not start a sandbox: ${(error as Error).message}`, ExitCode.startFailed)
      }
    } else {
      client = this.client(flags.url)
      await client.health()
    }
    // Chat steps need their bots running against this sandbox; a bot it does not know is a mistake in the file.
    if (scenarios.some((s) => s.steps.some((step) => step.kind === 'chat'))) {
      const unknown = botProblems(scenarios, await client.listBots())
      if (unknown.length > 0) {
        await stop?.()
        throw filesRefused(unknown)
      }
    }

    // Interrupted, the throwaway sandbox still removes its temporary data file.
    const onSignal = () => void (stop?.() ?? Promise.resolve()).finally(() => process.exit(130))
    if (stop) {
      process.once('SIGINT', onSignal)
      process.once('SIGTERM', onSignal)
    }
    let report: RunReport
    try {
      report = await runScenarios(scenarios, {
        client,
        ...(streaming
          ? {
              // The reporter makes every name, title and message inert before painting it.
              onScenarioStart: (s) => {
                this.log(new Styled(scenarioHeading(s, paint)))
                this.working(`${s.name}: step 1 of ${s.steps.length}`)
              },
              onStep: (s, step) => {
                this.log(new Styled(stepLine(step, paint)))
                if (step.number < s.steps.length) this.working(`${s.name}: step ${step.number + 1} of ${s.steps.length}`)
              },
            }
          : {}),
      })
    } finally {
      process.off('SIGINT', onSignal)
      process.off('SIGTERM', onSignal)
      await stop?.()
    }

    this.doneWorking()
    if (streaming) this.log(new Styled(summaryLine(report, paint)))
    if (reporter !== 'human' && !this.jsonEnabled()) {
      const text = reporter === 'junit' ? toJUnit(report) : `${inertJson(JSON.stringify(report, null, 2))}\n`
      if (flags.output !== undefined) {
        try {
          await mkdir(dirname(flags.output), { recursive: true })
          await writeFile(flags.output, text)
        } catch (error) {
          throw usage(`cannot write ${flags.output}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`)
        }
      } else process.stdout.write(text)
    }
    if (!report.ok) this.failWithResult(summaryLine(report).replace(/^✖ /, ''), ExitCode.expectationFailed)
    return report
  }
}
