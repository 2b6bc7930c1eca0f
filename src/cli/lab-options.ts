import type { CallbackFaults } from '../callbacks/dispatcher.js'
import type { ChainOptions } from '../chain/service.js'
import { formatDuration, MAX_DURATION_MS, readDuration } from '../domain/duration.js'
import { formatCallbackMode, parseCallbackMode, writeCallbackMode } from '../domain/fault.js'
import { MAX_CONFIRMATIONS } from '../domain/payment.js'

/** What `pay sandbox start` sets up for rehearsing unhappy paths: callback faults, expiry, confirmations. */
export interface LabOptions {
  callbackFaults?: CallbackFaults
  paymentTtlMs?: number
  chain?: ChainOptions
}

export interface LabFlags {
  'callback-mode'?: string
  'callback-chaos'?: string
  seed?: number
  'payment-ttl'?: string
  confirmations?: number
  'block-time'?: string
}

/** Shortest block time: each block writes every unfinalized payment. */
const MIN_BLOCK_TIME_MS = 1000

/** The options from the flags as typed; a RangeError naming the flag when one is wrong. Chaos without --seed gets a random seed. */
export function labOptions(flags: LabFlags, randomSeed: () => number = () => Math.floor(Math.random() * 2 ** 31)): LabOptions {
  const out: LabOptions = {}
  const faults: CallbackFaults = {}
  if (flags['callback-mode'] !== undefined) {
    const parsed = parseCallbackMode(flags['callback-mode'])
    if ('problem' in parsed) throw new RangeError(`--callback-mode: ${parsed.problem}`)
    if (parsed.mode.mode !== 'send') faults.mode = parsed.mode
  }
  if (flags['callback-chaos'] !== undefined) {
    const rate = Number(flags['callback-chaos'])
    if (flags['callback-chaos'].trim() === '' || !Number.isFinite(rate) || rate < 0 || rate > 1) {
      throw new RangeError(`--callback-chaos must be the share of notifications to play a fault on, from 0 to 1, e.g. 0.3 (got ${JSON.stringify(flags['callback-chaos'])})`)
    }
    if (rate > 0) faults.chaos = { rate, seed: flags.seed ?? randomSeed() }
  } else if (flags.seed !== undefined) {
    throw new RangeError('--seed seeds --callback-chaos; give --callback-chaos <rate> too')
  }
  if (faults.mode || faults.chaos) out.callbackFaults = faults
  if (flags['payment-ttl'] !== undefined) {
    const read = readDuration('--payment-ttl', flags['payment-ttl'], { min: 1000, max: MAX_DURATION_MS })
    if ('problem' in read) throw new RangeError(read.problem)
    out.paymentTtlMs = read.ms
  }
  const chain: ChainOptions = {}
  if (flags.confirmations !== undefined) {
    if (!Number.isInteger(flags.confirmations) || flags.confirmations < 1 || flags.confirmations > MAX_CONFIRMATIONS) {
      throw new RangeError(`--confirmations must be a whole number from 1 to ${MAX_CONFIRMATIONS} (got ${flags.confirmations})`)
    }
    chain.confirmations = flags.confirmations
  }
  if (flags['block-time'] !== undefined) {
    const read = readDuration('--block-time', flags['block-time'], { min: MIN_BLOCK_TIME_MS, max: MAX_DURATION_MS })
    if ('problem' in read) throw new RangeError(read.problem)
    chain.blockTimeMs = read.ms
  }
  if (chain.confirmations !== undefined || chain.blockTimeMs !== undefined) out.chain = chain
  return out
}

/** The same options as flags, for a sandbox started in the background. */
export function labArgs(options: LabOptions): string[] {
  const args: string[] = []
  const { callbackFaults: faults, chain } = options
  if (faults?.mode) args.push('--callback-mode', writeCallbackMode(faults.mode))
  if (faults?.chaos) args.push('--callback-chaos', String(faults.chaos.rate), '--seed', String(faults.chaos.seed))
  if (options.paymentTtlMs !== undefined) args.push('--payment-ttl', `${options.paymentTtlMs}ms`)
  if (chain?.confirmations !== undefined) args.push('--confirmations', String(chain.confirmations))
  if (chain?.blockTimeMs !== undefined) args.push('--block-time', `${chain.blockTimeMs}ms`)
  return args
}

/** Lines for the start banner: what differs from the happy path. */
export function describeLab(options: LabOptions): Array<[string, string]> {
  const rows: Array<[string, string]> = []
  const { callbackFaults: faults, chain } = options
  if (faults?.mode) rows.push(['notifications', `${formatCallbackMode(faults.mode)} by default`])
  if (faults?.chaos) rows.push(['chaos', `a fault on ${Math.round(faults.chaos.rate * 100)}% of notifications, seed ${faults.chaos.seed} (--seed ${faults.chaos.seed} replays it)`])
  if (options.paymentTtlMs !== undefined) rows.push(['expiry', `pending payments expire after ${formatDuration(options.paymentTtlMs)}`])
  if (chain?.confirmations !== undefined) rows.push(['confirmations', `${chain.confirmations} for every asset`])
  if (chain?.blockTimeMs !== undefined) rows.push(['block time', `a block every ${formatDuration(chain.blockTimeMs)} (sandbox clock)`])
  return rows
}
