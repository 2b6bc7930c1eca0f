import type { CallbackFaults } from '../callbacks/dispatcher.js'
import { describePolicy } from '../callbacks/schedule.js'
import type { ChainOptions } from '../chain/service.js'
import { compactFault, type FaultRuleInput } from '../domain/api-fault.js'
import { formatDuration } from '../domain/duration.js'
import { formatCallbackMode } from '../domain/fault.js'
import type { SandboxSettings } from '../domain/settings.js'

/** What `pay sandbox start` sets up for rehearsing unhappy paths: callback faults, expiry, confirmations. */
export interface LabOptions {
  callbackFaults?: CallbackFaults | undefined
  paymentTtlMs?: number | undefined
  chain?: ChainOptions | undefined
  apiFaults?: readonly FaultRuleInput[] | undefined
}

/** Lines for the start banner and `pay sandbox status`: what differs from the happy path. */
export function describeLab(options: LabOptions): Array<[string, string]> {
  const rows: Array<[string, string]> = []
  const { callbackFaults: faults, chain } = options
  if (faults?.mode) rows.push(['notifications', `${formatCallbackMode(faults.mode)} by default`])
  if (faults?.chaos) rows.push(['chaos', `a fault on ${Math.round(faults.chaos.rate * 100)}% of notifications, seed ${faults.chaos.seed} (--seed ${faults.chaos.seed} replays it)`])
  if (options.paymentTtlMs !== undefined) rows.push(['expiry', `pending payments expire after ${formatDuration(options.paymentTtlMs)}`])
  if (chain?.confirmations !== undefined) rows.push(['confirmations', `${chain.confirmations} for every asset`])
  if (chain?.blockTimeMs !== undefined) rows.push(['block time', `a block every ${formatDuration(chain.blockTimeMs)} (sandbox clock)`])
  if (Array.isArray(options.apiFaults) && options.apiFaults.length > 0) rows.push(['API faults', options.apiFaults.map((rule) => compactFault(rule, 'show')).join(', ')])
  return rows
}

/**
 * Lines for `pay sandbox status`: how a running sandbox was started, where it differs from a plain start. What a
 * sandbox of another version reports may be shaped otherwise: what does not read as expected is left out.
 */
export function describeSettings(settings: SandboxSettings): Array<[string, string | undefined]> {
  const hosts: unknown = settings.allowedHosts
  const policy: Partial<SandboxSettings['callbacks']> | undefined = settings.callbacks
  return [
    ['durability', settings.durability === 'os' ? 'os: acknowledged once the OS has a write (synced within 1 s)' : undefined],
    ['also answers', hosts === true ? 'any host name' : Array.isArray(hosts) && hosts.length > 0 ? hosts.join(',') : undefined],
    ['request log', settings.quiet === true ? 'off' : undefined],
    ['callbacks', policy && Array.isArray(policy.scheduleMs) ? describePolicy(settings.callbacks) : undefined],
    ...describeLab(settings),
    ['exports on exit', settings.files?.exportOnExit],
  ]
}
