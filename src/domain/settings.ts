import type { FaultRuleInput } from './api-fault.js'
import type { CallbackMode, ChaosSettings } from './fault.js'

/**
 * The shapes of what a sandbox is started with and reports on /_sandbox/health: kept here, below the rooms that act
 * on them (the store, callbacks, the chain), so that every floor can name them. Pure.
 */

/** When a change is acknowledged: once fdatasynced (`disk`), or once the OS has the write (`os`). */
export type Durability = 'disk' | 'os'
export const DURABILITIES: readonly Durability[] = ['disk', 'os']

export interface CallbackPolicy {
  /** Retries after the first attempt; 0 means one attempt only. */
  retries: number
  /** Time allowed per attempt, from connecting to the end of the response excerpt. */
  timeoutMs: number
  /** Wait before retry n is scheduleMs[n-1]; the last value repeats when there are more retries than entries. */
  scheduleMs: number[]
  /** Attempts out at once, across all receivers; the rest wait their turn in order of due time. */
  concurrency: number
}

/** What the sandbox does with notifications nobody asked a mode for (`pay sandbox start --callback-mode`, `--callback-chaos`). */
export interface CallbackFaults {
  /** The mode of every notification that has no mode of its own (default: send). */
  mode?: CallbackMode
  /** A fault picked by a seeded generator for a share of notifications. */
  chaos?: ChaosSettings
}

export interface ChainOptions {
  /** Confirmations every asset needs (default: each asset's own, DEFAULT_CONFIRMATIONS). */
  confirmations?: number
  /** Mine a block this often on the sandbox clock (default: only when asked). */
  blockTimeMs?: number
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
  /**
   * The PostgreSQL database the state is kept in instead of the data file: the URL to connect to as a start option;
   * in a running sandbox's settings, with its password masked.
   */
  store?: string
  durability: Durability
  /** Host names answered besides IP addresses and localhost, as given; `true`: any. */
  allowedHosts: readonly string[] | true
  callbacks: CallbackPolicy
  callbackFaults?: CallbackFaults
  paymentTtlMs?: number
  chain?: ChainOptions
  quiet: boolean
  files?: StartFiles
  /** API fault rules played from the start, as given (`pay sandbox start --api-fault`). */
  apiFaults?: readonly FaultRuleInput[]
  /** Where customers and bots reach the sandbox (a tunnel, a LAN name): checkout URLs start with it. */
  publicUrl?: string
  /** The Bot API emulator: URL buttons may lead to local addresses, which Telegram refuses. */
  telegram?: { allowLocalUrls?: boolean }
}
