import { rename, rm, writeFile } from 'node:fs/promises'
import { resolve } from 'node:path'
import chalk from 'chalk'
import { forTerminal } from '../domain/display.js'
import type { AllowedHosts } from '../domain/request-guard.js'
import { type ExportFile, type ExportImage, exportFileText } from '../domain/transfer.js'
import type { RunningSandbox } from '../server/start.js'
import { ExitCode, PayError } from './exit-codes.js'
import { checkImportFile } from './import-file.js'
import { outOfDescriptorsMessage } from './open-files.js'
import { usage } from './usage.js'

/** `--import <file>`: the file checked whole with the sandbox's own reader, or a usage error listing what is wrong. */
export async function readImportFlag(file: string): Promise<ExportImage> {
  let check
  try {
    check = await checkImportFile(file)
  } catch (error) {
    throw usage(`--import: cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`)
  }
  if (!check.ok) {
    throw usage(`--import: ${forTerminal(file)} is not a valid export file:\n${check.problems.map((p) => `  - ${forTerminal(p)}`).join('\n')}`, { multiline: true })
  }
  return check.image
}

/** Writes an export file beside its target and renames it, so a failed write never leaves half a file. */
export async function writeExportFile(path: string, file: ExportFile): Promise<string> {
  const target = resolve(path)
  const temp = `${target}.${process.pid}.tmp`
  try {
    await writeFile(temp, exportFileText(file))
    await rename(temp, target)
  } catch (error) {
    await rm(temp, { force: true })
    throw error
  }
  return target
}

/**
 * Stops the sandbox (in-flight requests finish, the data file is saved), then writes `--export-on-exit`: the state
 * once stopped, every acknowledged change, saved or not. Each failure is said on stderr; false when any happened.
 */
export async function stopAndExport(running: RunningSandbox, exportTo: string | undefined): Promise<boolean> {
  let ok = true
  try {
    await running.stop()
  } catch (error) {
    process.stderr.write(`Could not save on stop: ${forTerminal((error as Error).message)}\n`)
    ok = false
  }
  if (exportTo === undefined) return ok
  const { exportSandbox } = await import('../service/transfer.js')
  try {
    await writeExportFile(exportTo, exportSandbox(running.service, running.info.version, new Date()))
  } catch (error) {
    process.stderr.write(`${chalk.red('Error:')} ${forTerminal(`--export-on-exit: cannot write ${exportTo}: ${(error as Error).message}`)}\n`)
    return false
  }
  return ok
}

/** The merchant key to suggest: `sandbox` when enabled, else the first enabled one. */
export function defaultMerchantKey(running: RunningSandbox): string | undefined {
  const merchants = running.service.listMerchants()
  return (merchants.find((m) => m.key === 'sandbox' && m.enabled) ?? merchants.find((m) => m.enabled))?.key
}

/**
 * Last resort for a bug that escapes every handler. A rejected promise that nobody awaited is reported and serving
 * goes on: the store commits each change whole, so its state stays whole. An exception that nothing caught may
 * have cut any code short midway (a socket or timer handler whose promise now never settles), so nobody can vouch
 * for what is in memory: it is reported and the process exits 1 at once, without rewriting the data file from that
 * memory. The journal holds every acknowledged change and the next start replays it.
 */
export function installLastResort(): void {
  const stack = (error: unknown) => (error instanceof Error ? (error.stack ?? error.message) : String(error))
  process.on('unhandledRejection', (reason) => {
    process.stderr.write(`${chalk.red('internal error (a promise rejected unhandled; still serving):')} ${stack(reason)}\n`)
  })
  process.on('uncaughtException', (error) => {
    process.stderr.write(
      `${chalk.red('internal error (an uncaught exception; stopping at once):')} ${stack(error)}\n` +
        'The data file was not rewritten; every acknowledged change is in its journal and comes back at the next start.\n',
    )
    process.exit(ExitCode.error)
  })
}

/**
 * The start failures a person can act on (data file, port, too few file descriptors, a package not built) as exit 7;
 * anything else is rethrown.
 */
export async function startFailure(error: unknown): Promise<never> {
  // Checked first: out of descriptors, the imports below may fail too.
  const code = (error as NodeJS.ErrnoException | undefined)?.code
  if (code === 'EMFILE' || code === 'ENFILE') {
    throw new PayError(outOfDescriptorsMessage(code, 'to start the sandbox'), ExitCode.startFailed)
  }
  const { ListenError } = await import('../server/start.js')
  const { DataFileError } = await import('../store/errors.js')
  const { PageScriptMissingError } = await import('../pages/page-scripts.js')
  if (error instanceof DataFileError || error instanceof ListenError || error instanceof PageScriptMissingError) throw new PayError(error.message, ExitCode.startFailed)
  throw error
}

/** The loud warnings of a sandbox others can reach, on stderr. */
export function warnExposure(host: string, allowedHosts: AllowedHosts): void {
  if (!isLoopback(host)) {
    process.stderr.write(
      chalk.bold.red(
        `WARNING: listening on ${forTerminal(host)}, reachable from other machines. The sandbox has no authentication on its control API; use it only on networks you trust.\n`,
      ),
    )
  }
  if (allowedHosts === 'all') {
    process.stderr.write(
      chalk.bold.red(
        'WARNING: --allowed-hosts all: the sandbox answers any Host name, so any web page you visit can read its API keys and payments through DNS rebinding. Name the hosts instead, e.g. --allowed-hosts sandbox.\n',
      ),
    )
  }
}

function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || host.startsWith('127.')
}
