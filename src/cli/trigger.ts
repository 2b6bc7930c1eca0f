import chalk from 'chalk'
import { isHeld } from '../callbacks/delivery.js'
import type { Delivery, Payment, SandboxClient, VerifyBody } from '../client/index.js'
import type { DeliveryState } from '../domain/types.js'
import { formatDuration } from '../domain/duration.js'
import { copiesOf, FaultReason, formatCallbackMode, planOf } from '../domain/fault.js'
import { line, paint, type Styled } from './format.js'

/** How the payment's first notification went, as far as it got within the wait. */
export interface TriggerCallback {
  url: string
  /** The delivery, once the sandbox made it. */
  delivery?: string
  /**
   * delivered, failed, pending (no attempt yet, or waiting for a retry), dropped (a fault: never sent), held (held back
   * for the payment's next notification), or none (the sandbox made no notification within the wait).
   */
  state: DeliveryState | 'held' | 'none'
  /** The fault the sandbox played on it, as `pay callback list` shows it (e.g. delay=30s), and why. */
  fault?: string
  /** The first attempt's answer: the receiver's HTTP status… */
  status?: number
  /** …or why it got none (refused, timed out), or why the status counts as a failure. */
  error?: string
  /** How long the first attempt took. */
  durationMs?: number
  /** The callback went to a receiver of `pay trigger`'s own, since no callback URL was given. */
  ownReceiver?: true
}

/** What `pay trigger` reports: the payment, its first notification's first attempt, and what verify answers now. */
export interface TriggerResult {
  trackId: string
  checkoutUrl: string
  merchant: string
  amount: number
  status: Payment['status']
  callback: TriggerCallback
  verify: VerifyBody
}

/**
 * Makes the change (`act`, e.g. a simulate) with the payment's change stream already open, then waits until the
 * first notification it causes has had its first attempt (`allCopies`: every copy of a duplicate), was dropped or
 * held back, or `waitMs` has passed. Returns that delivery as last seen (none when the sandbox made none).
 */
export async function actAndWatch(
  client: SandboxClient,
  trackId: string,
  act: () => Promise<Payment>,
  options: { waitMs: number; allCopies?: boolean; onWaiting?: () => void },
): Promise<{ payment: Payment; delivery: Delivery | undefined }> {
  const hasSettled = (d: Delivery) => d.attempts.length >= (options.allCopies ? copiesOf(d) : 1) || d.state !== 'pending' || isHeld(d)
  const controller = new AbortController()
  let first: Delivery | undefined
  let settle = (): void => {}
  const settled = new Promise<void>((resolve) => (settle = resolve))
  let onOpen = (): void => {}
  const opened = new Promise<void>((resolve) => (onOpen = resolve))
  const following = client.followChanges(
    { trackId },
    (event) => {
      if (event.type !== 'delivery' || event.delivery.replayOf !== undefined) return
      if (first !== undefined && first.id !== event.delivery.id) return
      first = event.delivery
      if (hasSettled(first)) settle()
    },
    { signal: controller.signal, onOpen },
  )
  let timer: NodeJS.Timeout | undefined
  try {
    // Open before the change, so no delivery of it can pass unseen; a stream that cannot open rejects here.
    await Promise.race([opened, following])
    const payment = await act()
    options.onWaiting?.()
    const waited = new Promise<void>((resolve) => (timer = setTimeout(resolve, options.waitMs)))
    await Promise.race([settled, waited, following])
    if (first === undefined || !hasSettled(first)) {
      // The stream may have ended early (the sandbox stopping): the delivery log has the last word.
      const recorded = (await client.listDeliveries({ trackId })).filter((d) => d.replayOf === undefined)
      first = recorded.find((d) => d.id === first?.id) ?? recorded[0] ?? first
    }
    return { payment, delivery: first }
  } finally {
    clearTimeout(timer)
    controller.abort()
    await following.catch(() => undefined)
  }
}

/** The first notification as reported: its first attempt's answer, or how far it got. */
export function callbackReport(url: string, delivery: Delivery | undefined, ownReceiver: boolean): TriggerCallback {
  const own = ownReceiver ? { ownReceiver: true as const } : {}
  if (!delivery) return { url, state: 'none', ...own }
  const attempt = delivery.attempts[0]
  return {
    url: delivery.url,
    delivery: delivery.id,
    state: isHeld(delivery) ? 'held' : delivery.state,
    ...(delivery.fault ? { fault: `${formatCallbackMode(delivery.fault)} (${delivery.fault.reason})` } : {}),
    ...(attempt?.status !== undefined ? { status: attempt.status } : {}),
    ...(attempt?.error !== undefined ? { error: attempt.error } : {}),
    ...(attempt ? { durationMs: attempt.durationMs } : {}),
    ...own,
  }
}

/** Whether the callback went as it should: answered 2xx at the first attempt, or not sent because --callback said so. */
export function callbackOk(callback: TriggerCallback, delivery: Delivery | undefined): boolean {
  if (callback.status !== undefined) return callback.status >= 200 && callback.status < 300
  const asked = delivery?.fault?.reason === FaultReason.requested
  return asked && (callback.state === 'dropped' || callback.state === 'held')
}

/** Why the callback counts as not delivered, for stderr. */
export function callbackFailure(callback: TriggerCallback, delivery: Delivery | undefined, waitMs: number): string {
  const within = formatDuration(waitMs)
  if (callback.status !== undefined) return `the callback was not delivered: ${callback.url} answered HTTP ${callback.status}`
  if (callback.error !== undefined) return `the callback was not delivered: ${callback.url}: ${callback.error}`
  if (callback.state === 'none') return `the sandbox made no callback for the payment within ${within}`
  if (callback.state === 'dropped' || callback.state === 'held') return `the callback was not sent: ${callback.state} by a fault, ${callback.fault ?? ''}`.trim()
  const delay = planOf(delivery?.fault).waitMs
  const hint = delay > 0 ? ` (it is delayed ${formatDuration(delay)} on the sandbox clock: give --wait more, or run pay clock advance ${formatDuration(delay)})` : ''
  return `no attempt to deliver the callback within ${within}${hint}`
}

/** The callback line of the human output: `✔ <url> answered HTTP 200 in 3 ms`, or how far it got. */
export function callbackLine(callback: TriggerCallback, ok: boolean): Styled {
  const mark = ok ? paint(chalk.green, '✔') : paint(chalk.red, '✖')
  const took = callback.durationMs !== undefined ? ` in ${callback.durationMs} ms` : ''
  const answer =
    callback.status !== undefined
      ? ` answered HTTP ${callback.status}${took}`
      : callback.error !== undefined
        ? `: ${callback.error}${callback.durationMs !== undefined ? ` (after ${callback.durationMs} ms)` : ''}`
        : callback.state === 'dropped'
          ? ': dropped, never sent'
          : callback.state === 'held'
            ? ": held back until the payment's next notification"
            : callback.state === 'none'
              ? ': the sandbox made no notification'
              : ': no attempt yet'
  const own = callback.ownReceiver ? paint(chalk.dim, " (pay trigger's own receiver: --callback-url for yours)") : ''
  const fault = callback.fault !== undefined ? paint(chalk.dim, ` [${callback.fault}]`) : ''
  return line`${mark} ${callback.url}${own}${answer}${fault}`
}
