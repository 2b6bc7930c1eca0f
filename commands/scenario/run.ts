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

--start runs a throwaway sandbox in this process (temporary data file, callback retries after 100/200/400 ms), so --url is refused with it (PAY_SANDBOX_URL is ignored); otherwise the sandbox at --url is used, which must be able to reach 127.0.0.1, where callback receivers listen. --json prints the json report on stdout, so --reporter junit or --output with it is refused.

\${env.NAME} in a file reads the environment (a variable that is not set is a mistake in the file, exit 2); --var name=value replaces a var the file declares under "vars" (repeat it for more). http steps call the merchant's own system: loopback addresses, localhost and the sandbox's host only, unless --allowed-hosts names more or --allow-remote lets them call anywhere.`

  static override examples = [
    '<%= config.bin %> <%= command.id %> fixtures/scenarios --start',
    '<%= config.bin %> <%= command.id %> fixtures/scenarios/paid.json --url http://127.0.0.1:8787',
    '<%= config.bin %> <%= command.id %> my-flow.yaml --start',
    '<%= config.bin %> <%= command.id %> fixtures/scenarios --start --reporter junit > scenarios.xml',
    '<%= config.bin %> <%= command.id %> fixtures/scenarios --reporter junit --output reports/scenarios.xml',
    '<%= config.bin %> <%= command.id %> examples/shop/scenarios --var shop=http://127.0.0.1:3000',
    '<%= config.bin %> <%= command.id %> scenarios --allowed-hosts shop --var shop=http://shop:3000',
  ]

  static override strict = false

  static override args = {
    files: Args.string({ description: 'scenario files or folders of them', required: true, ignoreStdin: true }),
  }

  static override flags = {
    start: Flags.boolean({ description: 'start a throwaway sandbox for this run (not with --url)' }),
    reporter: Flags.option({ description: 'output format', options: REPORTERS, default: 'human' as Reporter })(),
    output: Flags.string({ description: 'write the json or junit report to this file; progress is printed as with human' }),
    var: Flags.string({
      description: 'name=value: replaces the var of that name in the files\' "vars" (a number or boolean must stay one); repeat it for more',
      multiple: true,
      multipleNonGreedy: true,
    }),
    'allowed-hosts': Flags.string({
      description: 'host names (.example.test for a domain and its subdomains) and IP addresses http steps may call, comma-separated, besides loopback addresses, localhost and the sandbox\'s host',
    }),
    'allow-remote': Flags.boolean({ description: 'http steps may call any host: a scenario file can then send what it reads (its ${env.…}) anywhere' }),
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
    const vars = readVars(flags.var ?? [])
    if (flags['allow-remote'] && flags['allowed-hosts'] !== undefined) this.refuseTogether('allowed-hosts', 'does nothing with --allow-remote, which lets http steps call any host; drop one of them')
    // YAML, the schema checker and the runner load with this command only.
    const { loadScenarios } = await import('../../src/scenario/load.js')
    const { runScenarios } = await import('../../src/scenario/run.js')
    const { botProblems } = await import('../../src/scenario/run-chat.js')
    const { parseHttpHosts } = await import('../../src/scenario/http-call.js')
    const { httpTargetProblems } = await import('../../src/scenario/run-http.js')
    const hosts = parseHttpHosts(flags['allowed-hosts']?.split(',') ?? [])
    if ('error' in hosts) throw usage(hosts.error)
    const { scenarios, problems } = await loadScenarios(files, { vars })
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
    const access = { allowRemote: flags['allow-remote'], hosts: hosts.hosts, sandboxHost: new URL(client.url).hostname.replace(/^\[|\]$/g, '').toLowerCase() }
    // An http step's URL known before the run (written, or made of variables) is checked before anything runs.
    const unreachable = httpTargetProblems(scenarios, access)
    if (unreachable.length > 0) {
      await stop?.()
      throw filesRefused(unreachable)
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
        http: access,
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

/** `--var name=value`, each once: a usage error naming the one that is not of that form. */
function readVars(given: readonly string[]): Record<string, string> {
  const vars: Record<string, string> = {}
  for (const entry of given) {
    const eq = entry.indexOf('=')
    const name = eq === -1 ? '' : entry.slice(0, eq)
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) {
      throw usage(`--var must be name=value with a name of letters, digits and _, e.g. --var shop=http://127.0.0.1:3000 (got ${JSON.stringify(entry)})`)
    }
    if (Object.hasOwn(vars, name)) throw usage(`--var ${name} is given twice; give each var once`)
    vars[name] = entry.slice(eq + 1)
  }
  return vars
}
