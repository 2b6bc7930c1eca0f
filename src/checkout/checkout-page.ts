import { isFinal } from '../domain/payment.js'
import type { Payment } from '../domain/types.js'
import { CALLBACK_MODE_CHOICES } from '../domain/fault.js'
import { isRoundedForDisplay } from '../domain/amount.js'
import {
  ASSETS,
  DEFAULT_ASSET,
  assetAmount,
  belowSmallestUnit,
  findAsset,
  formatUsd,
  sandboxAddress,
  smallestUnit,
  type SandboxAsset,
} from './assets.js'
import type { ClockView } from '../clock/sandbox-clock.js'
import { html, type SafeHtml } from '../pages/html.js'
import { layout } from '../pages/layout.js'
import { qrSvg } from './qr.js'
import { returnLink, STATUS_LABEL } from './status.js'

export interface CheckoutPageInput {
  payment: Payment
  merchantName: string
  /** Asset to show first (from `?asset=`); ignored when unknown. */
  asset?: string
  /** The sandbox clock, shown in the banner when it is not at real time. */
  clock?: ClockView
  /** When a pending payment expires (ms, sandbox clock), with a time to live. */
  expiresAt?: number
  /** Confirmations an unfinalized payment needs. */
  confirmationsRequired?: number
}

/** The hosted checkout page for one payment, in whatever state it is. */
export async function checkoutPage(input: CheckoutPageInput): Promise<string> {
  const { payment, merchantName } = input
  const final = isFinal(payment.status)
  const chosen = findAsset(payment.asset) ?? findAsset(input.asset) ?? findAsset(DEFAULT_ASSET)!
  let paySection: SafeHtml
  if (payment.status === 'pending') paySection = await choosePayment(payment, chosen)
  else if (payment.status === 'unfinalized') paySection = confirming(payment, chosen, input.confirmationsRequired)
  else paySection = result(payment, merchantName)
  const expires = payment.status === 'pending' && input.expiresAt !== undefined && Number.isFinite(input.expiresAt) ? new Date(input.expiresAt).toISOString() : undefined

  const body = html`<div id="checkout" data-track-id="${payment.trackId}" data-status="${payment.status}" data-final="${String(final)}" data-asset="${chosen.code}" data-confirmations="${String(payment.confirmations ?? 0)}">
<section class="card" aria-labelledby="order-heading">
<h1 id="order-heading"><span class="muted">Pay</span> ${merchantName}</h1>
<p class="amount">${formatUsd(payment.amount)} <span class="muted">USD</span></p>
${payment.description !== undefined && payment.description !== '' ? html`<p class="desc">${payment.description}</p>` : ''}
<dl class="meta">
<dt>Order</dt><dd><code>${payment.trackId}</code></dd>
<dt>Status</dt><dd><span id="status-heading" tabindex="-1" class="status st-${payment.status}">${STATUS_LABEL[payment.status]}</span></dd>
${expires !== undefined ? html`<dt>Expires</dt><dd><time id="expires" datetime="${expires}">${expires.slice(0, 19).replace('T', ' ')} UTC</time> <span class="muted">(sandbox clock)</span></dd>` : ''}
</dl>
</section>
${paySection}
${final ? '' : controls(payment)}
</div>
<div id="live" class="vh" role="status" aria-live="polite"></div>`
  const inspect = html` <a href="/inspect/payments/${encodeURIComponent(payment.trackId)}">Inspect this payment</a> · <a href="/">Sandbox inspector</a>`
  return layout({ title: `Pay ${merchantName}`, body, script: 'checkout', bannerLinks: inspect, ...(input.clock ? { clock: input.clock } : {}) })
}

async function choosePayment(payment: Payment, chosen: SandboxAsset): Promise<SafeHtml> {
  const options = ASSETS.map(
    (a) => html`<label class="asset"><input type="radio" name="asset" id="asset-${a.code}" value="${a.code}"${a.code === chosen.code ? html` checked` : ''}>
<span><strong>${a.code}</strong> <small>${a.name}</small><small>${assetAmount(payment.amount, a)} ${a.unit}${belowSmallestUnit(payment.amount, a) ? ' (rounded up)' : ''}</small></span></label>`,
  )
  const panels = await Promise.all(ASSETS.map((a) => panel(payment, a)))
  return html`<section class="card pay" aria-labelledby="pay-heading">
<h2 id="pay-heading">Choose how to pay</h2>
<fieldset class="picker"><legend>Cryptocurrency (fixed sandbox rates)</legend>
<div class="assets">${options}</div>
</fieldset>
${panels}
</section>`
}

function confirming(payment: Payment, asset: SandboxAsset, required: number | undefined): SafeHtml {
  const paid = payment.paidAmount ?? payment.amount
  const needed = payment.confirmationsRequired ?? required
  const count = payment.confirmations ?? 0
  return html`<section class="card pay" aria-labelledby="pay-heading">
<h2 id="pay-heading">Payment in progress</h2>
<p>The ${asset.network} network has seen <strong>${assetAmount(paid, asset)} ${asset.unit}</strong> (${formatUsd(paid)} USD) sent to the sandbox address below. It is waiting for confirmations: until then the merchant's verify call answers 203.</p>
${
  needed !== undefined
    ? html`<p id="confirmations" class="confirmations"><strong>${String(count)} of ${String(needed)} confirmations</strong><progress max="${String(needed)}" value="${String(count)}" aria-label="${String(count)} of ${String(needed)} confirmations"></progress></p>`
    : ''
}
<div class="field"><span>Deposit address (sandbox, not real)</span>
<div class="copy-row"><code class="value" id="addr-${asset.code}">${sandboxAddress(payment.trackId, asset)}</code></div></div>
</section>`
}

async function panel(payment: Payment, asset: SandboxAsset): Promise<SafeHtml> {
  const amount = assetAmount(payment.amount, asset)
  const address = sandboxAddress(payment.trackId, asset)
  const qr = await qrSvg(asset.paymentUri(address, amount), `QR code: pay ${amount} ${asset.unit} to the sandbox address`)
  const id = asset.code
  return html`<div class="panel" id="panel-${id}">
<div class="panel-body">
${qr}
<div>
<p>Send exactly <strong>${amount} ${asset.unit}</strong> on the ${asset.network} network to this sandbox address.</p>
${
  belowSmallestUnit(payment.amount, asset)
    ? html`<p class="muted">The order is worth less than ${smallestUnit(asset)} ${asset.unit}, the smallest amount the sandbox asks for in ${asset.unit}: it rounds up to ${smallestUnit(asset)} ${asset.unit}.</p>`
    : ''
}
<div class="field"><span>Deposit address (sandbox, not real)</span>
<div class="copy-row"><code class="value" id="addr-${id}">${address}</code><button type="button" class="secondary small" data-copy="addr-${id}" data-what="Address" aria-label="Copy ${asset.code} address" hidden data-js>Copy</button></div></div>
<div class="field"><span>Amount in ${asset.unit}</span>
<div class="copy-row"><code class="value" id="amount-${id}">${amount}</code><button type="button" class="secondary small" data-copy="amount-${id}" data-what="Amount" aria-label="Copy ${asset.code} amount" hidden data-js>Copy</button></div></div>
<p class="muted">1 ${asset.unit} = ${formatUsd(Number(asset.usdRate))} USD (fixed sandbox rate)</p>
</div>
</div>
</div>`
}

/** Notification modes offered on the page: the value goes to the simulate body's `callback`. */
const NOTIFICATION_CHOICES: ReadonlyArray<readonly [string, string]> = [['', 'as the sandbox is set'], ...CALLBACK_MODE_CHOICES]

function controls(payment: Payment): SafeHtml {
  const pending = payment.status === 'pending'
  return html`<section class="card sandbox" aria-labelledby="sandbox-heading">
<h2 id="sandbox-heading">Sandbox controls</h2>
<p class="muted">A real customer would not see these: they stand in for the customer and the network.</p>
<noscript><p>These controls need JavaScript. Without it, run <code>pay payment simulate ${payment.trackId} --outcome paid</code>.</p></noscript>
<div class="controls" hidden data-js>
<label class="notify">Notification of the next change
<select id="callback-mode" name="callback">${NOTIFICATION_CHOICES.map(([value, label]) => html`<option value="${value}">${label}</option>`)}</select></label>
${pending ? '' : html`<button type="button" class="secondary" data-mine>Mine a block</button>`}
<button type="button" data-outcome="paid">${pending ? 'Simulate payment' : 'Simulate payment — finalize (confirmed)'}</button>
${pending ? html`<button type="button" class="secondary" data-outcome="unfinalized">Simulate payment — not finalized (confirming)</button>` : ''}
<form class="other" novalidate>
<label for="other-amount">Amount paid, in USD (the order is ${formatUsd(payment.amount)} USD)</label>
<input id="other-amount" name="amount" type="text" inputmode="decimal" autocomplete="off">
<button type="submit" class="secondary">Pay a different amount</button>
</form>
<button type="button" class="danger" data-outcome="failed">Cancel / do not complete</button>
${pending ? html`<button type="button" class="danger" data-outcome="expired">Expire now (time ran out)</button>` : ''}
<p id="error" class="error" role="alert" hidden></p>
</div>
</section>`
}

function result(payment: Payment, merchantName: string): SafeHtml {
  const back = returnLink(payment)
  const asset = findAsset(payment.asset)
  let detail: SafeHtml
  if (payment.status === 'paid') {
    const paid = payment.paidAmount ?? payment.amount
    detail = html`<p>${formatUsd(paid)} USD paid${asset ? html` as ${assetAmount(paid, asset)} ${asset.unit}` : ''}.</p>
${paid !== payment.amount ? differentAmount(paid, payment.amount) : ''}
${payment.refNumber !== undefined ? html`<p class="muted">Reference <code>${payment.refNumber}</code></p>` : ''}`
  } else if (payment.status === 'expired') {
    detail = html`<p>The time to pay ran out before a payment was seen. Nothing was charged; ask the merchant for a new payment.</p>`
  } else {
    detail = html`<p>The payment was cancelled or not completed. Nothing was charged.</p>`
  }
  const heading = payment.status === 'paid' ? 'Payment received' : payment.status === 'expired' ? 'Payment expired' : 'Payment not completed'
  return html`<section class="card result" aria-labelledby="result-heading">
<h2 id="result-heading" class="big">${heading}</h2>
${detail}
${
  back !== undefined
    ? html`<p><a class="button" href="${back}">Return to ${merchantName}</a></p>
<p id="return-note" class="muted">The merchant checks the payment with the service before delivering.</p>`
    : html`<p class="muted">You can close this page.</p>`
}
</section>`
}

/** A paid amount that is not the order amount; exact numbers when the shown ones would look the same. */
function differentAmount(paid: number, order: number): SafeHtml {
  const exact = formatUsd(paid) === formatUsd(order) || isRoundedForDisplay(paid) || isRoundedForDisplay(order)
  return exact
    ? html`<p class="muted">That is not the order amount: ${String(paid)} USD paid, ${String(order)} USD ordered, exactly; the merchant sees this when they verify.</p>`
    : html`<p class="muted">That is not the order amount (${formatUsd(order)} USD); the merchant sees this when they verify.</p>`
}

/** The page for a trackId this sandbox does not know. */
export function notFoundPage(trackId: string): string {
  const body = html`<section class="card" aria-labelledby="nf-heading">
<h1 id="nf-heading">Payment not found</h1>
<p>This sandbox has no payment with the trackId <code>${trackId}</code>.</p>
<p class="muted">Check the link, or create a payment with <code>pay payment create</code> and open the checkout URL it prints.</p>
</section>`
  return layout({ title: 'Payment not found', body })
}

/** The page for a request the sandbox refuses to answer (a Host or Origin it does not allow). */
export function refusedPage(message: string): string {
  const body = html`<section class="card" aria-labelledby="refused-heading">
<h1 id="refused-heading">Request refused</h1>
<p>${message}</p>
<p class="muted">The sandbox answers only names that cannot point elsewhere (IP addresses, localhost) and the hosts it was started with.</p>
</section>`
  return layout({ title: 'Request refused', body })
}
