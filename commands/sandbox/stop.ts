import { Flags } from '@oclif/core'
import chalk from 'chalk'
import { ClientCommand } from '../../src/cli/base.js'
import { sleep } from '../../src/cli/detach.js'
import { durationFlag } from '../../src/cli/duration.js'
import { ExitCode } from '../../src/cli/exit-codes.js'
import { line, paint } from '../../src/cli/format.js'
import { SandboxClient, SandboxUnreachableError } from '../../src/client/index.js'
import { isAlive } from '../../src/store/file/lock.js'

export type StopResult = { stopped: true; url: string; pid: number; dataFile: string } | { stopped: false; url: string }

export default class SandboxStop extends ClientCommand {
  static override summary = 'Stop the sandbox at the URL gracefully, as Ctrl-C would'
  static override description =
    'Asks the sandbox to stop (POST /_sandbox/shutdown): it finishes in-flight requests, writes the data file and exits 0. The command returns once the sandbox no longer answers and its process is gone. Works for a sandbox started with --detach or in the foreground. Exits 3 when no sandbox answers (0 with --if-running, for CI clean-up steps), 6 when it is still running after --timeout.'

  static override examples = [
    '<%= config.bin %> <%= command.id %>',
    '<%= config.bin %> <%= command.id %> --url http://127.0.0.1:9000 --timeout 20s',
    '<%= config.bin %> <%= command.id %> --if-running',
    '<%= config.bin %> <%= command.id %> --json',
  ]

  static override flags = {
    timeout: Flags.string({ description: 'how long to wait for the sandbox to be gone, up to 24h (e.g. 10s, 500ms, 1m)', default: '10s' }),
    'if-running': Flags.boolean({ description: 'exit 0, not 3, when no sandbox answers at the URL' }),
  }

  async run(): Promise<StopResult> {
    const { flags } = await this.parse(SandboxStop)
    const timeoutMs = durationFlag('timeout', flags.timeout)
    const client = this.client(flags.url)
    let health
    try {
      health = await client.health()
    } catch (error) {
      if (!(flags['if-running'] && error instanceof SandboxUnreachableError)) throw error
      this.log(line`No sandbox running at ${paint(chalk.cyan, client.url)}; nothing to stop`)
      return { stopped: false, url: client.url }
    }
    await client.shutdown()
    const local = isLocal(client.url)
    const deadline = Date.now() + timeoutMs
    for (;;) {
      const gone = !(await answers(flags.url)) && (!local || !isAlive(health.pid))
      if (gone) break
      if (Date.now() >= deadline) {
        this.fail(`the sandbox at ${health.url} (pid ${health.pid}) is still running after ${flags.timeout}`, ExitCode.expectationFailed, {
          suggestions: [`kill ${health.pid}`],
        })
      }
      await sleep(50)
    }
    this.log(line`${paint(chalk.green, '✔')} Stopped the sandbox at ${paint(chalk.cyan, health.url)} (pid ${health.pid}); state saved to ${health.dataFile}`)
    return { stopped: true, url: health.url, pid: health.pid, dataFile: health.dataFile }
  }
}

async function answers(url: string): Promise<boolean> {
  const probe = new SandboxClient(url, { operator: true })
  try {
    await probe.raw({ method: 'GET', path: '/_sandbox/health', timeoutMs: 1000 })
    return true
  } catch (error) {
    if (error instanceof SandboxUnreachableError) return false
    throw error
  } finally {
    probe.close()
  }
}

function isLocal(url: string): boolean {
  const host = new URL(url).hostname
  return host === 'localhost' || host === '[::1]' || host.startsWith('127.')
}
