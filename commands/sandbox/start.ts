import { Flags } from '@oclif/core'
import chalk from 'chalk'
import { PayCommand } from '../../src/cli/base.js'
import { ExitCode } from '../../src/cli/exit-codes.js'
import { fields, line, paint } from '../../src/cli/format.js'
import { configArgs, DEFAULT_DATA_FILE, draftOf, readConfig, startFlags, startOptionsOf } from '../../src/cli/sandbox-config.js'
import { forTerminal, inertJson } from '../../src/domain/display.js'
import { allowedHostsFlag } from '../../src/domain/request-guard.js'
import { dirname, join } from 'node:path'

export interface StartResult {
  url: string
  dataFile: string
  pid: number
  merchantKey: string | undefined
}

export default class SandboxStart extends PayCommand {
  protected override readonly outOfDescriptorsExit = ExitCode.startFailed
  static override summary = 'Run the sandbox server in the foreground'
  static override description = `Serves the spec API (/api/v1), checkout pages (/pay/<trackId>), the inspector (/) and the control API (/_sandbox) on one port, keeping state in a JSON data file. Prints one line per request. Ctrl-C, SIGTERM or \`pay sandbox stop\` finishes in-flight requests, writes the full state to the data file and exits 0. With --detach it runs in the background, logging to <data file>.log.
Where it listens: --host and --port, else PAY_SANDBOX_HOST and PAY_SANDBOX_PORT, else the host and port of PAY_SANDBOX_URL (the address every other command talks to), else 127.0.0.1:8787.`

  static override examples = [
    '<%= config.bin %> <%= command.id %>',
    '<%= config.bin %> <%= command.id %> --port 0 --data ./tmp/sandbox.json',
    'PAY_SANDBOX_PORT=9000 <%= config.bin %> <%= command.id %> --quiet',
    '<%= config.bin %> <%= command.id %> --detach --json',
    'PAY_SANDBOX_URL=http://127.0.0.1:9000 <%= config.bin %> <%= command.id %> --detach && <%= config.bin %> sandbox status',
    '<%= config.bin %> <%= command.id %> --host 0.0.0.0 --allowed-hosts sandbox',
    '<%= config.bin %> <%= command.id %> --payment-ttl 15m --block-time 30s',
    '<%= config.bin %> <%= command.id %> --callback-chaos 0.3 --seed 42',
    '<%= config.bin %> <%= command.id %> --public-url https://pay-dev.example.test',
    '<%= config.bin %> <%= command.id %> --telegram-allow-local-urls',
  ]

  static override flags = {
    ...startFlags('start'),
    detach: Flags.boolean({
      description: 'run in the background: wait until it answers, print its URL and pid, and exit (log: <data file>.log; stop it with `pay sandbox stop`)',
    }),
  }

  async run(): Promise<StartResult> {
    const { flags } = await this.parse(SandboxStart)
    const { listenAddress } = await import('../../src/cli/sandbox-url.js')
    const { host, port } = listenAddress(flags, process.env.PAY_SANDBOX_URL)
    const { defaultMerchantKey, installLastResort, readImportFlag, startFailure, stopAndExport, warnExposure } = await import('../../src/cli/serve.js')
    const config = { ...readConfig(flags), host, port }
    const allowedHosts = config['allowed-hosts'] ?? []
    const { describePolicy } = await import('../../src/callbacks/schedule.js')
    const seed = config.import !== undefined ? await readImportFlag(config.import) : undefined
    const { describeLab } = await import('../../src/cli/lab-options.js')
    if (flags.detach) {
      const { startDetached } = await import('../../src/cli/detach.js')
      return startDetached({
        root: this.config.root,
        data: config.data ?? DEFAULT_DATA_FILE,
        args: configArgs(config),
        // Not in its arguments: a password there shows in every process list.
        // Each instance of a team sandbox logs to a file of its own, beside the default data file.
        ...(config.store
          ? { env: { PAY_SANDBOX_STORE: config.store.url }, store: true, log: join(dirname(DEFAULT_DATA_FILE), `store-${config.port ? String(config.port) : String(Date.now())}.log`) }
          : {}),
        say: (line) => this.log(line),
      })
    }
    const { startServer } = await import('../../src/server/start.js')
    // With --json, stdout carries only the start record; request lines go to stderr. Lines carry request
    // paths, callback URLs and receivers' errors: credentials are masked and control characters written out.
    const { batchedLines } = await import('../../src/cli/batched-lines.js')
    const lines = batchedLines(this.jsonEnabled() ? process.stderr : process.stdout)
    const out = (text: string) => lines(forTerminal(text))
    installLastResort()
    let running
    // Set once the signal path exists below; POST /_sandbox/shutdown runs the same path.
    let requestStop = (_reason: string): void => {}
    try {
      running = await startServer({
        ...startOptionsOf(config),
        ...(seed !== undefined ? { seed } : {}),
        ...(config.quiet ? {} : { log: out }),
        onShutdownRequest: () => requestStop('shutdown requested'),
        warn: (line) => process.stderr.write(`${chalk.yellow(forTerminal(line))}\n`),
        logError: (error) =>
          process.stderr.write(`${chalk.red('internal error:')} ${forTerminal((error as Error).stack ?? String(error), { multiline: true })}\n`),
      })
    } catch (error) {
      return startFailure(error)
    }
    const sandbox = running
    // Handlers go in before the banner: whoever reads "Ctrl-C to stop" may signal at once.
    const stopped = new Promise<void>((resolve) => {
      let signals = 0
      const onSignal = (signal: string) => {
        signals++
        if (signals > 1) {
          process.stderr.write('Stopping now, without waiting.\n')
          process.exit(ExitCode.error)
        }
        process.stderr.write(`${signal}: finishing requests and saving ${forTerminal(sandbox.info.dataFile)}…\n`)
        void stopAndExport(sandbox, config['export-on-exit']).then((ok) => {
          if (ok) process.stderr.write(`Stopped.${config['export-on-exit'] !== undefined ? ` Exported the state to ${forTerminal(config['export-on-exit'])}.` : ''}\n`)
          else process.exitCode = ExitCode.error
          resolve()
        })
      }
      process.on('SIGINT', onSignal)
      process.on('SIGTERM', onSignal)
      requestStop = onSignal
    })
    const merchantKey = defaultMerchantKey(running)
    warnExposure(host, allowedHosts)
    const { report } = running
    if (report.tornBytes > 0) {
      process.stderr.write(chalk.yellow(`Recovered: dropped a torn final journal record (${report.tornBytes} bytes, never acknowledged).\n`))
    }
    this.log(line`${paint(chalk.bold, 'pay sandbox')} ${paint(chalk.dim, `v${running.info.version}`)} ${report.created ? paint(chalk.dim, '(new data file)') : ''}`)
    this.log(
      fields([
        ['URL', paint(chalk.cyan, running.url)],
        [config.store ? 'store' : 'data file', running.info.dataFile],
        ['merchant key', merchantKey ?? paint(chalk.yellow, 'none enabled — pay merchant create')],
        ['inspector', paint(chalk.cyan, `${running.url}/`)],
        ['public URL', running.info.settings?.publicUrl],
        ['checkout', `${running.info.settings?.publicUrl ?? running.url}/pay/<trackId>`],
        ['durability', config.durability === 'os' ? paint(chalk.yellow, 'os: acknowledged once the OS has a write (synced within 1 s); a power loss can lose the last second') : undefined],
        ['also answers', allowedHosts === 'all' ? chalk.red('any host name') : allowedHostsFlag(allowedHosts)],
        ['callbacks', describePolicy(running.callbacks.policy)],
        ...describeLab(draftOf(config)),
        ['Bot API', config['telegram-allow-local-urls'] ? 'URL buttons may lead to local addresses (--telegram-allow-local-urls; Telegram refuses them)' : undefined],
        ['clock', running.clock.view().real ? undefined : `${running.clock.view().now} (ahead of real time; pay clock reset)`],
      ]),
    )
    this.log(paint(chalk.dim, 'Ctrl-C to stop'))
    const result: StartResult = { url: running.url, dataFile: running.info.dataFile, pid: process.pid, merchantKey }
    // One line, so scripts can read the start record before the server stops.
    if (this.jsonEnabled()) process.stdout.write(`${inertJson(JSON.stringify(result))}\n`)

    await stopped
    // Already printed at start; returning nothing keeps --json output to that one record.
    return undefined as unknown as StartResult
  }
}
