import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { SandboxClient } from './client/index.js'
import type { FaultRule, FaultRuleInput } from './domain/api-fault.js'
import { startServer, type RunningSandbox, type StartOptions } from './server/start.js'

export { SandboxClient, SandboxApiError, SandboxUnreachableError, DEFAULT_URL } from './client/index.js'
export type * from './client/index.js'
export { startServer, ListenError, DEFAULT_PORT, DEFAULT_HOST, DEFAULT_DATA_FILE } from './server/start.js'
export type { StartOptions, RunningSandbox } from './server/start.js'
export { DataFileError, DataFileInUseError } from './store/errors.js'
export { SpecResult, SpecMessage } from './domain/outcomes.js'
export { DEFAULT_CALLBACK_POLICY } from './callbacks/schedule.js'
export type { CallbackPolicy } from './callbacks/schedule.js'
export type { Notification as CallbackBody } from './callbacks/delivery.js'
export { loadScenarios } from './scenario/load.js'
export { parseScenario, ScenarioFileError } from './scenario/parse.js'
export { runScenario, runScenarios } from './scenario/run.js'
export type { RunReport, ScenarioReport, StepReport } from './scenario/run.js'
export { toJUnit } from './scenario/report.js'
export type { Scenario } from './scenario/types.js'

export interface Sandbox {
  /** Base URL, e.g. http://127.0.0.1:54321 */
  url: string
  /** Typed client of this sandbox (spec API and control API). */
  client: SandboxClient
  /** Data file in use. */
  dataFile: string
  /** The running server, for tests that need more than HTTP. */
  server: RunningSandbox
  /** Adds an API fault rule (see `pay fault add`): `await sandbox.addFault({ route: 'verify', status: 503, times: 2 })`. */
  addFault(rule: FaultRuleInput): Promise<FaultRule>
  /** Removes one API fault rule, or all of them; resolves with the rules removed. */
  clearFaults(id?: string): Promise<FaultRule[]>
  /** Stops the server, saves the data file; a temporary data file is deleted with its folder. */
  stop(): Promise<void>
}

export interface SandboxOptions extends Omit<StartOptions, 'port'> {
  /** Default 0: a free port. */
  port?: number
}

/**
 * Starts a sandbox for a test suite: a free port on 127.0.0.1 and, unless `dataFile` or `store` (a PostgreSQL URL)
 * is given, a temporary data file removed on stop.
 *
 * ```ts
 * const sandbox = await startSandbox()
 * const { trackId } = await sandbox.client.createPayment({ merchant: 'sandbox', amount: 10, callbackUrl })
 * await sandbox.stop()
 * ```
 */
export async function startSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  const tempDir = options.dataFile === undefined && options.store === undefined ? await mkdtemp(join(tmpdir(), 'pay-sandbox-')) : undefined
  let server: RunningSandbox
  try {
    server = await startServer({ ...options, port: options.port ?? 0, ...(tempDir !== undefined ? { dataFile: join(tempDir, 'data.json') } : {}) })
  } catch (error) {
    if (tempDir) await rm(tempDir, { recursive: true, force: true })
    throw error
  }
  const publicUrl = server.info.settings?.publicUrl
  const client = new SandboxClient(server.url, { keepAlive: true, ...(publicUrl !== undefined ? { publicUrl } : {}) })
  return {
    url: server.url,
    client,
    dataFile: server.info.dataFile,
    server,
    addFault: (rule) => client.addFault(rule),
    clearFaults: (id) => client.clearFaults(id),
    async stop() {
      client.close()
      await server.stop()
      if (tempDir) await rm(tempDir, { recursive: true, force: true })
    },
  }
}
