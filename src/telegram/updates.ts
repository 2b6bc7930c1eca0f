import type { Update } from '@grammyjs/types'
import type { BotRecord } from '../domain/telegram-records.js'
import type { Change } from '../store/store.js'
import { Described, type EmulatorCore } from './core.js'
import {
  type BotApiError,
  badRequest,
  conflict,
  CONFLICT_OTHER_GET_UPDATES,
  CONFLICT_SET_WEBHOOK,
  CONFLICT_WEBHOOK_ACTIVE,
} from './errors.js'
import { allows, readAllowedUpdates, updateType } from './messages.js'
import type { Params } from './params.js'
import { postUpdate } from './webhook.js'

/**
 * The bots' updates: queued durably, then handed over by long polling (by the instance the bot polls) or sent to
 * the bot's webhook (by the instance that leads). Both hear of a new update from the store's change feed.
 */

interface Poll {
  offset: number
  limit: number
  answer: (updates: Update[]) => void
  fail: (error: BotApiError) => void
}

interface Hook {
  running: boolean
  generation: number
  lastErrorDate?: number
  lastErrorMessage?: string
  wakeUp?: () => void
}

export interface WebhookTimes {
  /** Waits before each webhook retry; the last one repeats. */
  retryMs: number[]
  /** Time a webhook has to answer. */
  timeoutMs: number
}

const LONG_POLL_MAX_S = 50

export class Updates {
  private readonly polls = new Map<number, Poll>()
  private readonly hooks = new Map<number, Hook>()
  /** Last update ids handed out, ahead of the durable counters while writes are in flight. */
  private readonly updateIds = new Map<number, number>()
  private readonly retryMs: number[]
  private readonly webhookTimeoutMs: number
  /** Sending to webhooks: this instance leads. */
  private leading = false
  private closed = false

  /** `reply` runs a method call found in a webhook's answer. */
  constructor(
    private readonly core: EmulatorCore,
    times: WebhookTimes,
    private readonly reply: (botId: number, reply: Record<string, unknown>) => Promise<void>,
  ) {
    this.retryMs = times.retryMs
    this.webhookTimeoutMs = times.timeoutMs
  }

  /** The change that queues an update for the bot (with the next update_id), unless it asked not to get this type. */
  enqueue(bot: BotRecord, body: Omit<Update, 'update_id'>): Change | undefined {
    if (!allows(bot.allowedUpdates, updateType(body as Update))) return undefined
    const id = Math.max(this.updateIds.get(bot.id) ?? 0, this.core.store.telegram.getBot(bot.id)?.lastUpdateId ?? 0) + 1
    this.updateIds.set(bot.id, id)
    return { k: 'tg', v: { t: 'update', v: { botId: bot.id, update: { update_id: id, ...body } as Update } } }
  }

  /** Tells the bot a durable update is waiting: answers its long poll or wakes its webhook sender. */
  wake(botId: number): void {
    const bot = this.core.store.telegram.getBot(botId)
    if (bot?.webhook) return this.kickWebhook(botId)
    const poll = this.polls.get(botId)
    if (!poll) return
    const ready = this.core.store.telegram.pendingUpdates(botId).filter((u) => u.update.update_id >= poll.offset)
    if (ready.length > 0) poll.answer(ready.slice(0, poll.limit).map((u) => u.update))
  }

  pendingUpdateCount(botId: number): number {
    return this.core.store.telegram.pendingUpdates(botId).length
  }

  // ── long polling ──────────────────────────────────────────────────────

  async getUpdates(bot: BotRecord, p: Params, signal: AbortSignal | undefined): Promise<Update[]> {
    if (bot.webhook) throw conflict(CONFLICT_WEBHOOK_ACTIVE)
    const offset = p.clampedInt('offset', 0, -(2 ** 31), 2 ** 31 - 1)
    const limit = p.clampedInt('limit', 100, 1, 100)
    const timeout = p.clampedInt('timeout', 0, 0, LONG_POLL_MAX_S)
    const allowed = readAllowedUpdates(p.json('allowed_updates', 'allowed updates'))
    if (allowed !== undefined && JSON.stringify(allowed) !== JSON.stringify(bot.allowedUpdates ?? [])) {
      await this.core.saveBot(bot.id, (b) => ({ ...b, allowedUpdates: allowed }))
    }
    const first = await this.confirm(bot.id, offset)
    const ready = this.core.store.telegram.pendingUpdates(bot.id).filter((u) => u.update.update_id >= first)
    if (ready.length > 0 || timeout === 0 || this.closed) return ready.slice(0, limit).map((u) => u.update)
    // A newer long poll replaces the one waiting: that one is told it was terminated, as on Telegram; in a team
    // sandbox, whichever instance either of them waits on.
    this.polls.get(bot.id)?.fail(conflict(CONFLICT_OTHER_GET_UPDATES))
    const claim = this.core.store.claim(`getUpdates:${bot.id}`)
    return new Promise<Update[]>((resolve, reject) => {
      const finish = () => {
        clearTimeout(timer)
        signal?.removeEventListener('abort', aborted)
        claim?.release()
        if (this.polls.get(bot.id) === poll) this.polls.delete(bot.id)
      }
      const poll: Poll = {
        offset: first,
        limit,
        answer: (updates) => {
          finish()
          resolve(updates)
        },
        fail: (error) => {
          finish()
          reject(error)
        },
      }
      const timer = setTimeout(() => poll.answer([]), timeout * 1000)
      const aborted = () => poll.answer([])
      signal?.addEventListener('abort', aborted)
      claim?.onLost(() => poll.fail(conflict(CONFLICT_OTHER_GET_UPDATES)))
      this.polls.set(bot.id, poll)
    })
  }

  /** Drops the updates an offset confirms; returns the first update_id still wanted. */
  private async confirm(botId: number, offset: number): Promise<number> {
    const pending = this.core.store.telegram.pendingUpdates(botId)
    let below = offset
    if (offset < 0) {
      const keep = pending.at(offset)
      below = keep ? keep.update.update_id : 0
    }
    if (below > 0 && pending.some((u) => u.update.update_id < below)) {
      await this.core.store.putTelegram({ t: 'confirm', botId, below })
    }
    return Math.max(below, 0)
  }

  // ── webhooks ──────────────────────────────────────────────────────────

  async setWebhook(bot: BotRecord, p: Params): Promise<Described> {
    const url = p.string('url')
    if (url === '') return this.deleteWebhook(bot, p)
    let parsed: URL | undefined
    try {
      parsed = new URL(url)
    } catch {
      parsed = undefined
    }
    if (!parsed || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')) throw badRequest('invalid webhook URL specified')
    const secretToken = p.string('secret_token')
    if (secretToken.length > 256) throw badRequest('secret token is too long')
    if (!/^[A-Za-z0-9_-]*$/.test(secretToken)) throw badRequest('secret token contains unallowed characters')
    const maxConnections = p.clampedInt('max_connections', 40, 1, 100)
    const allowed = readAllowedUpdates(p.json('allowed_updates', 'allowed updates'))
    const drop = p.bool('drop_pending_updates')
    const same =
      bot.webhook?.url === url && (bot.webhook.secretToken ?? '') === secretToken && bot.webhook.maxConnections === maxConnections
    if (same && !drop && allowed === undefined) return new Described(true, 'Webhook is already set')
    this.polls.get(bot.id)?.fail(conflict(CONFLICT_SET_WEBHOOK))
    // The sender starts (again) once the bot's record is durable: see webhookChanged.
    await this.saveWithDrop(bot.id, drop, (b) => ({
      ...b,
      webhook: { url, maxConnections, setAt: this.core.stamp(), ...(secretToken ? { secretToken } : {}) },
      ...(allowed !== undefined ? { allowedUpdates: allowed } : {}),
    }))
    return new Described(true, same ? 'Webhook is already set' : 'Webhook was set')
  }

  async deleteWebhook(bot: BotRecord, p: Params): Promise<Described> {
    const drop = p.bool('drop_pending_updates')
    if (!bot.webhook && !drop) return new Described(true, 'Webhook is already deleted')
    await this.saveWithDrop(bot.id, drop, bot.webhook ? ({ webhook: _gone, ...b }) => b : undefined)
    return new Described(true, bot.webhook ? 'Webhook was deleted' : 'Webhook is already deleted')
  }

  /** One unit: the bot's pending updates dropped (when asked), and its record changed (when `change` is given). */
  private saveWithDrop(botId: number, drop: boolean, change: ((bot: BotRecord) => BotRecord) | undefined): Promise<void> {
    return this.core.underBot(botId, async () => {
      const unit: Change[] = []
      if (drop) unit.push({ k: 'tg', v: { t: 'drop', botId } })
      const bot = this.core.store.telegram.getBot(botId)
      if (bot && change) unit.push({ k: 'tg', v: { t: 'bot', v: change(bot) } })
      if (unit.length > 0) await this.core.store.commit(unit)
    })
  }

  /**
   * The store's change feed: a bot's webhook was set, changed or deleted (through any instance). An answer from
   * the old one no longer counts; the sender starts on the new one, or stops.
   */
  webhookChanged(botId: number, before: BotRecord | undefined, after: BotRecord): void {
    if (JSON.stringify(before?.webhook) === JSON.stringify(after.webhook)) return
    const hook = this.hook(botId)
    hook.generation++
    if (after.webhook) this.kickWebhook(botId)
    else hook.wakeUp?.()
  }

  webhookInfo(bot: BotRecord): Record<string, unknown> {
    const hook = this.hooks.get(bot.id)
    const info: Record<string, unknown> = {
      url: bot.webhook?.url ?? '',
      has_custom_certificate: false,
      pending_update_count: this.core.store.telegram.pendingUpdates(bot.id).length,
    }
    if (bot.webhook) {
      info.max_connections = bot.webhook.maxConnections
      if (hook?.lastErrorDate !== undefined) {
        info.last_error_date = hook.lastErrorDate
        info.last_error_message = hook.lastErrorMessage
      }
    }
    if (bot.allowedUpdates?.length) info.allowed_updates = bot.allowedUpdates
    return info
  }

  private hook(botId: number): Hook {
    let hook = this.hooks.get(botId)
    if (!hook) this.hooks.set(botId, (hook = { running: false, generation: 0 }))
    return hook
  }

  /**
   * Sends the bot's pending updates to its webhook, oldest first, one at a time; an update is confirmed when the
   * webhook answers 2xx and retried on a growing pause otherwise, as long as the webhook stays set.
   */
  private kickWebhook(botId: number): void {
    if (!this.leading) return
    const hook = this.hook(botId)
    if (hook.running || this.closed) {
      hook.wakeUp?.()
      return
    }
    hook.running = true
    void (async () => {
      let failures = 0
      try {
        while (!this.closed && this.leading) {
          const bot = this.core.store.telegram.getBot(botId)
          const next = bot?.webhook ? this.core.store.telegram.pendingUpdates(botId)[0] : undefined
          if (!bot?.webhook || !next) return
          const generation = hook.generation
          const result = await postUpdate(bot.webhook.url, next.update, bot.webhook.secretToken, this.webhookTimeoutMs)
          if (hook.generation !== generation) continue
          if (result.ok) {
            failures = 0
            await this.core.store.putTelegram({ t: 'confirm', botId, below: next.update.update_id + 1 }).catch(() => this.pause(hook, 1000))
            if (result.reply) await this.reply(botId, result.reply)
          } else {
            hook.lastErrorDate = Math.floor(this.core.now().getTime() / 1000)
            hook.lastErrorMessage = result.error
            await this.pause(hook, this.retryMs[Math.min(failures, this.retryMs.length - 1)]!)
            failures++
          }
        }
      } finally {
        hook.running = false
      }
    })()
  }

  private pause(hook: Hook, ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms)
      timer.unref()
      function done() {
        clearTimeout(timer)
        hook.wakeUp = undefined
        resolve()
      }
      hook.wakeUp = done
    })
  }

  /** This instance leads: sends the pending updates of every bot with a webhook, and each new one from now on. */
  resume(): void {
    this.leading = true
    for (const bot of this.core.store.telegram.listBots()) if (bot.webhook) this.kickWebhook(bot.id)
  }

  /** Another instance leads now: webhook senders stop (an update being sent is sent again by the leader). */
  standDown(): void {
    this.leading = false
    for (const hook of this.hooks.values()) hook.wakeUp?.()
  }

  /** Ends long polls (with no updates) and webhook senders, so the server can close. */
  close(): void {
    this.closed = true
    for (const poll of [...this.polls.values()]) poll.answer([])
    for (const hook of this.hooks.values()) hook.wakeUp?.()
  }
}
