import { Flags } from '@oclif/core'
import chalk from 'chalk'
import { PayCommand } from '../../src/cli/base.js'
import { ExitCode } from '../../src/cli/exit-codes.js'
import { line, paint } from '../../src/cli/format.js'
import { usage } from '../../src/cli/usage.js'

export interface ListenResult {
  url: string
  callbackUrl: string
}

export default class CallbackListen extends PayCommand {
  protected override readonly outOfDescriptorsExit = ExitCode.startFailed
  static override summary = 'Receive callbacks on this machine and print each one'
  static override description = `Runs a local endpoint for the sandbox's callbacks: use the printed URL as callbackUrl (any path is accepted). Each request is printed (method, path, headers, body) and answered 200, or --status, to rehearse a failing endpoint and watch the sandbox retry.
With --forward-to, each request is also relayed to your own endpoint (same method, headers except hop-by-hop ones, and body bytes) and its answer is printed; the sandbox then gets your endpoint's status (and the first 2 KB of its body), or 502 when it could not be reached. --status, when given, is answered instead.
Bodies over 1 MB are answered 413. With --json, stdout has one JSON object per line: the start record, then one per request. Ctrl-C stops it (exit 0).`

  static override examples = [
    '<%= config.bin %> <%= command.id %> --port 3000',
    '<%= config.bin %> <%= command.id %> --port 3000 --status 500',
    '<%= config.bin %> <%= command.id %> --port 3001 --forward-to http://localhost:3000/callback',
    '<%= config.bin %> <%= command.id %> --port 0 --json',
  ]

  static override flags = {
    port: Flags.integer({ description: 'port to listen on; 0 picks a free one', default: 3000, min: 0, max: 65535 }),
    host: Flags.string({ description: 'address to listen on', default: '127.0.0.1' }),
    status: Flags.integer({ description: 'HTTP status to answer every request with (default 200; with --forward-to, your endpoint\'s)', min: 200, max: 599 }),
    'forward-to': Flags.string({ description: 'also relay each request to this URL (your own callback endpoint) and print its answer' }),
  }

  async run(): Promise<ListenResult> {
    const { flags } = await this.parse(CallbackListen)
    const forwardTo = flags['forward-to']
    if (forwardTo !== undefined && !isHttpUrl(forwardTo)) {
      throw usage(`--forward-to must be an absolute http or https URL, e.g. http://localhost:3000/callback (got ${JSON.stringify(forwardTo)})`)
    }
    const { startListener } = await import('../../src/callbacks/listener.js')
    const { jsonLine, requestLines, requestRecord } = await import('../../src/cli/listen.js')
    let listener
    try {
      listener = await startListener({
        port: flags.port,
        host: flags.host,
        ...(flags.status !== undefined ? { status: flags.status } : {}),
        ...(forwardTo !== undefined ? { forwardTo } : {}),
        onRequest: (r) => (this.jsonEnabled() ? process.stdout.write(`${jsonLine(requestRecord(r))}\n`) : this.log(requestLines(r))),
      })
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code
      const why =
        code === 'EADDRINUSE'
          ? `port ${flags.port} on ${flags.host} is in use; pick another with --port, or --port 0 for any free port`
          : `cannot listen on ${flags.host}:${flags.port}: ${(error as Error).message}`
      this.fail(why, ExitCode.startFailed, { code: 'listen_failed' })
    }
    const result: ListenResult = { url: listener.url, callbackUrl: `${listener.url}/callback` }
    const stopped = new Promise<void>((resolve) => {
      const stop = () => void listener.close().then(resolve)
      process.once('SIGINT', stop)
      process.once('SIGTERM', stop)
    })
    if (this.jsonEnabled()) {
      process.stdout.write(`${jsonLine({ kind: 'listening', ...result })}\n`)
    } else {
      this.log(line`${paint(chalk.bold, 'Listening')} on ${paint(chalk.cyan, listener.url)}`)
      this.log(line`  callbackUrl  ${paint(chalk.cyan, result.callbackUrl)} ${paint(chalk.dim, '(any path is accepted)')}`)
      if (forwardTo !== undefined) this.log(line`  forwarding   to ${forwardTo}`)
      this.log(line`  answering    ${flags.status !== undefined ? String(flags.status) : forwardTo !== undefined ? "your endpoint's status (502 when it cannot be reached)" : '200'}`)
      this.log(paint(chalk.dim, 'Ctrl-C to stop'))
    }
    await stopped
    // Printed as it came; returning nothing keeps --json output to one object per line.
    return undefined as unknown as ListenResult
  }
}

function isHttpUrl(text: string): boolean {
  try {
    const url = new URL(text)
    return url.protocol === 'http:' || url.protocol === 'https:'
  } catch {
    return false
  }
}
