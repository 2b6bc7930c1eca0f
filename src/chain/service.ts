import type { SandboxClock, Timer } from '../clock/sandbox-clock.js'
import { SandboxError } from '../domain/outcomes.js'
import type { ChainOptions } from '../domain/settings.js'
import type { Payment } from '../domain/types.js'
import type { SandboxService } from '../service/sandbox.js'
import { applyBlocks, DEFAULT_CONFIRMATIONS, MAX_BLOCKS_PER_MINE, requiredConfirmations } from './rules.js'
import type { ChainView, MinedPayment, MineResult } from './schemas.js'

export type { ChainOptions }

/** What the chain routes answer (schemas.ts): its settings, and the blocks mined with the payments they changed. */
export type { ChainView, MinedPayment, MineResult }

/**
 * The sandbox's stand-in for the networks: a block adds a confirmation to every unfinalized payment, and one
 * that reaches what it needs becomes paid (notification, verify 100). Blocks are mined on request (`pay chain
 * mine`, the checkout page's Mine a block) and, with a block time, on the sandbox clock.
 */
export class ChainService {
  readonly options: Readonly<ChainOptions>
  private height = 0
  private timer: Timer | undefined

  constructor(
    private readonly service: SandboxService,
    private readonly clock: SandboxClock,
    options: ChainOptions = {},
  ) {
    this.options = { ...options }
  }

  /** Confirmations a payment made with `asset` needs. */
  required(asset: string | undefined): number {
    return requiredConfirmations(asset, this.options.confirmations)
  }

  view(): ChainView {
    const confirmations = Object.fromEntries(Object.keys(DEFAULT_CONFIRMATIONS).map((asset) => [asset, this.required(asset)]))
    return {
      confirmations,
      ...(this.options.blockTimeMs !== undefined ? { blockTimeMs: this.options.blockTimeMs } : {}),
      height: this.height,
      unfinalized: this.service.listPayments({ status: 'unfinalized' }).length,
    }
  }

  /** Mines `blocks` blocks at once; resolves once every change they made is durable. */
  async mine(blocks = 1): Promise<MineResult> {
    if (!Number.isInteger(blocks) || blocks < 1 || blocks > MAX_BLOCKS_PER_MINE) {
      throw new SandboxError('invalidField', `blocks must be a whole number from 1 to ${MAX_BLOCKS_PER_MINE} (got ${blocks})`)
    }
    this.height += blocks
    const waiting = this.service.listPayments({ status: 'unfinalized' })
    const changed = await Promise.all(waiting.map((p) => this.confirm(p.trackId, blocks)))
    return { blocks, height: this.height, payments: changed.filter((p): p is MinedPayment => p !== undefined) }
  }

  private async confirm(trackId: string, blocks: number): Promise<MinedPayment | undefined> {
    let moved = false
    let payment: Payment
    try {
      payment = await this.service.change(trackId, (p) => {
        const next = applyBlocks(p, blocks, { now: this.service.changeTime(p), newRefNumber: () => this.service.newRefNumber(), required: this.required(p.asset) })
        moved = next !== undefined
        return next
      })
    } catch (error) {
      // Reset or replaced meanwhile: nothing to confirm.
      if (error instanceof SandboxError && error.kind === 'notFound') return undefined
      throw error
    }
    if (!moved) return undefined
    return {
      trackId,
      status: payment.status,
      confirmations: payment.confirmations ?? 0,
      confirmationsRequired: payment.confirmationsRequired ?? this.required(payment.asset),
    }
  }

  /** Starts mining on the sandbox clock, one block per block time (while this instance leads). */
  start(): void {
    this.timer?.cancel()
    const every = this.options.blockTimeMs
    if (every === undefined || every <= 0) return
    const next = (): void => {
      this.timer = this.clock.after(every, async () => {
        next()
        await this.mine(1)
      })
    }
    next()
  }

  stop(): void {
    this.timer?.cancel()
  }
}
