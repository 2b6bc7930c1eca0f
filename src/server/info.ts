import type { CallbackFaults } from '../callbacks/dispatcher.js'
import type { CallbackPolicy } from '../callbacks/schedule.js'
import type { ChainOptions } from '../chain/service.js'
import type { Durability } from '../store/journal.js'

/** What the sandbox says about itself on /_sandbox/health and at start. */
export interface SandboxInfo {
  name: 'pay-sandbox'
  version: string
  url: string
  dataFile: string
  pid: number
  startedAt: string
  /** What it runs with (sandboxes of this version and later). */
  settings?: SandboxSettings
}

/** Files the process running a sandbox reads at start and writes at stop (the CLI's --import and --export-on-exit). */
export interface StartFiles {
  import?: string
  exportOnExit?: string
}

/**
 * The settings a sandbox runs with: its start options once defaults are filled in, named as startServer() takes
 * them. `quiet`: no request log lines.
 */
export interface SandboxSettings {
  host: string
  port: number
  dataFile: string
  durability: Durability
  /** Host names answered besides IP addresses and localhost, as given; `true`: any. */
  allowedHosts: readonly string[] | true
  callbacks: CallbackPolicy
  callbackFaults?: CallbackFaults
  paymentTtlMs?: number
  chain?: ChainOptions
  quiet: boolean
  files?: StartFiles
}
