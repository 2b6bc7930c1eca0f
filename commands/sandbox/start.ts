import { DURABILITIES, type Durability } from '../../src/store/journal.js'
import { Flags } from '@oclif/core'
import chalk from 'chalk'
import { PayCommand } from '../../src/cli/base.js'
import { ExitCode } from '../../src/cli/exit-codes.js'
import { fields, line, paint } from '../../src/cli/format.js'
import { forTerminal, inertJson } from '../../src/domain/display.js'

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
    port: Flags.integer({
      description: 'port to listen on; 0 picks a free one [default: the port of PAY_SANDBOX_URL, else 8787]',
      env: 'PAY_SANDBOX_PORT',
      min: 0,
      max: 65535,
    }),
    host: Flags.string({ description: 'address to listen on [default: the host of PAY_SANDBOX_URL, else 127.0.0.1]', env: 'PAY_SANDBOX_HOST' }),
    data: Flags.string({ description: 'data file', env: 'PAY_SANDBOX_DATA', default: '.pay-sandbox/data.json' }),
    quiet: Flags.boolean({ description: 'no request log lines' }),
    'allowed-hosts': Flags.string({
      description:
        'host names to answer besides IP addresses, localhost and *.localhost, comma-separated (e.g. a docker-compose service name; .example.test also takes in its subdomains; all answers any name, which lets web pages reach the sandbox)',
      env: 'PAY_SANDBOX_ALLOWED_HOSTS',
    }),
    'callback-retries': Flags.integer({
      description: 'retries after a failed callback attempt (0: one attempt only) [default: 3]',
      env: 'PAY_SANDBOX_CALLBACK_RETRIES',
      min: 0,
      max: 100,
    }),
    'callback-timeout': Flags.string({
      description: 'time allowed per callback attempt, e.g. 500ms, 5s; a bare number is seconds [default: 5s]',
      env: 'PAY_SANDBOX_CALLBACK_TIMEOUT',
    }),
    'callback-schedule': Flags.string({
      description: 'waits before each retry, comma-separated; the last repeats [default: 1s,5s,30s]',
      env: 'PAY_SANDBOX_CALLBACK_SCHEDULE',
    }),
    durability: Flags.string({
      description:
        'when a change is acknowledged: disk (after fdatasync: survives a power loss) or os (once the OS has the write, synced within 1 s: survives the process being killed, not a power loss; faster)',
      env: 'PAY_SANDBOX_DURABILITY',
      options: [...DURABILITIES],
      default: 'disk',
    }),
    'callback-concurrency': Flags.integer({
      description: 'callback attempts out at once; the rest wait their turn [default: 64]',
      env: 'PAY_SANDBOX_CALLBACK_CONCURRENCY',
      min: 1,
      max: 1024,
    }),
    import: Flags.string({
      description: 'load this export file (pay sandbox export) at start, replacing the data file\'s state; checked whole first, an invalid file changes nothing (exit 2)',
    }),
    'export-on-exit': Flags.string({
      description: 'write an export file of the state when the sandbox stops (Ctrl-C, SIGTERM, pay sandbox stop); a failed write is exit 1',
    }),
    'callback-mode': Flags.string({
      description: 'what to do with every notification no simulate asked a mode for: send, drop, delay=<d>, duplicate=<n>, reorder [default: send]',
      env: 'PAY_SANDBOX_CALLBACK_MODE',
    }),
    'callback-chaos': Flags.string({
      description: 'play a fault (drop, delay, duplicate, reorder) on this share of notifications, from 0 to 1, picked by a seeded generator',
      env: 'PAY_SANDBOX_CALLBACK_CHAOS',
    }),
    seed: Flags.integer({ description: 'seed of --callback-chaos: the same seed and the same notifications in the same order get the same faults [default: random, printed]', env: 'PAY_SANDBOX_SEED', min: 0, max: 2 ** 31 - 1 }),
    'payment-ttl': Flags.string({
      description: 'pending payments older than this expire (verify: 202, a notification), e.g. 15m [default: never]',
      env: 'PAY_SANDBOX_PAYMENT_TTL',
    }),
    confirmations: Flags.integer({ description: 'confirmations every unfinalized payment needs before it is paid [default: per asset, see pay chain]', env: 'PAY_SANDBOX_CONFIRMATIONS', min: 1, max: 1000 }),
    'block-time': Flags.string({ description: 'mine a block this often on the sandbox clock, e.g. 30s [default: only when asked]', env: 'PAY_SANDBOX_BLOCK_TIME' }),
    'public-url': Flags.string({
      description:
        'where customers and bots reach the sandbox (a tunnel, a LAN name), e.g. https://pay-dev.example.test: every checkout URL it hands out starts with it, and its host name is answered [default: the URL it listens on]',
      env: 'PAY_SANDBOX_PUBLIC_URL',
    }),
    'telegram-allow-local-urls': Flags.boolean({
      description:
        "the Bot API emulator takes inline URL buttons to localhost, loopback addresses and dot-less names, which Telegram refuses (Wrong HTTP URL): to test a bot's button to a local checkout page [default: off, as on Telegram]",
      env: 'PAY_SANDBOX_TELEGRAM_ALLOW_LOCAL_URLS',
    }),
    detach: Flags.boolean({
      description: 'run in the background: wait until it answers, print its URL and pid, and exit (log: <data file>.log; stop it with `pay sandbox stop`)',
    }),
  }

  async run(): Promise<StartResult> {
    const { flags } = await this.parse(SandboxStart)
    const { listenAddress } = await import('../../src/cli/sandbox-url.js')
    const { host, port } = listenAddress(flags, process.env.PAY_SANDBOX_URL)
    const { defaultMerchantKey, installLastResort, readImportFlag, serveOptions, startFailure, stopAndExport, warnExposure } = await import(
      '../../src/cli/serve.js'
    )
    const { callbacks, allowedHosts, allowedFlag, lab, reach } = await serveOptions(flags)
    const { describePolicy } = await import('../../src/callbacks/schedule.js')
    const seed = flags.import !== undefined ? await readImportFlag(flags.import) : undefined
    const { labArgs, describeLab } = await import('../../src/cli/lab-options.js')
    if (flags.detach) {
      const { startDetached } = await import('../../src/cli/detach.js')
      const { resolve } = await import('node:path')
      return startDetached({
        root: this.config.root,
        port,
        host,
        data: flags.data,
        quiet: flags.quiet,
        extraArgs: [
          '--callback-retries',
          String(callbacks.retries),
          '--callback-timeout',
          `${callbacks.timeoutMs}ms`,
          ...(callbacks.scheduleMs.length > 0 ? ['--callback-schedule', callbacks.scheduleMs.map((ms) => `${ms}ms`).join(',')] : []),
          '--callback-concurrency',
          String(callbacks.concurrency),
          ...(allowedFlag !== undefined ? ['--allowed-hosts', allowedFlag] : []),
          '--durability',
          flags.durability,
          ...(flags.import !== undefined ? ['--import', resolve(flags.import)] : []),
          ...(flags['export-on-exit'] !== undefined ? ['--export-on-exit', resolve(flags['export-on-exit'])] : []),
          ...labArgs(lab),
          ...(reach.publicUrl !== undefined ? ['--public-url', reach.publicUrl] : []),
          ...(reach.telegram?.allowLocalUrls ? ['--telegram-allow-local-urls'] : []),
        ],
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
        port,
        host,
        dataFile: flags.data,
        callbacks,
        durability: flags.durability as Durability,
        ...lab,
        ...reach,
        allowedHosts: allowedHosts === 'all' ? true : allowedHosts,
        ...(seed !== undefined ? { seed } : {}),
        ...(flags.quiet ? {} : { log: out }),
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
        void stopAndExport(sandbox, flags['export-on-exit']).then((ok) => {
          if (ok) process.stderr.write(`Stopped.${flags['export-on-exit'] !== undefined ? ` Exported the state to ${forTerminal(flags['export-on-exit'])}.` : ''}\n`)
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
        ['data file', running.info.dataFile],
        ['merchant key', merchantKey ?? paint(chalk.yellow, 'none enabled — pay merchant create')],
        ['inspector', paint(chalk.cyan, `${running.url}/`)],
        ['public URL', running.info.publicUrl],
        ['checkout', `${running.info.publicUrl ?? running.url}/pay/<trackId>`],
        ['durability', flags.durability === 'os' ? paint(chalk.yellow, 'os: acknowledged once the OS has a write (synced within 1 s); a power loss can lose the last second') : undefined],
        ['also answers', allowedHosts === 'all' ? chalk.red('any host name') : allowedFlag],
        ['callbacks', describePolicy(running.callbacks.policy)],
        ...describeLab(lab),
        ['Bot API', reach.telegram?.allowLocalUrls ? 'URL buttons may lead to local addresses (--telegram-allow-local-urls; Telegram refuses them)' : undefined],
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
