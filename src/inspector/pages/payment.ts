import { attemptHeaders, bodyText } from '../../callbacks/delivery.js'
import { isFinal } from '../../domain/payment.js'
import type { Delivery, DeliveryAttempt, Merchant, Payment } from '../../domain/types.js'
import type { VerifyBody } from '../../domain/validate.js'
import { html, type SafeHtml } from '../../pages/html.js'
import { STATUS_LABEL } from '../../checkout/status.js'
import type { FaultRule } from '../../domain/api-fault.js'
import type { FaultHit } from '../../domain/api-fault-hit.js'
import type { VerifyCalls } from '../lab.js'
import { faultHitsSection, faultRulesSection } from './faults.js'
import type { RequestEntry } from '../request-entry.js'
import { requestRows } from './requests.js'
import { cell, inspectorPage, paidOtherAmount, type SiteLinks, statusBadge, time, usd } from './parts.js'

export interface PaymentPageInput {
  /** Credentials in its URLs masked. */
  payment: Payment
  merchant: Merchant | undefined
  /** Oldest first, credentials in their URLs masked. */
  deliveries: Delivery[]
  /** The request log's entries of this payment, newest first. */
  requests: RequestEntry[]
  /** The checkout page's URL as the sandbox hands it out (under its public URL, when it has one). */
  checkoutUrl: string
  /** What verify answers for this payment now, asked with its own merchant's key. */
  verifyNow: VerifyBody
  /** The payment's verify calls, when the sandbox keeps them. */
  verifies?: VerifyCalls
  /** The API fault rules that reach this payment's requests, and the faults played on them, when the sandbox plays them. */
  faults?: { rules: FaultRule[]; hits: FaultHit[] }
  links: SiteLinks
}

/** One payment: its fields, history, callbacks with every attempt, the requests about it, and sandbox controls. */
export function paymentPage(input: PaymentPageInput): string {
  const p = input.payment
  const body = html`<div id="payment" data-live data-status="${p.status}">
<section class="card" aria-labelledby="payment-heading">
<h1 id="payment-heading">Payment <code>${p.trackId}</code> ${statusBadge(p.status)}</h1>
<p class="muted">${STATUS_LABEL[p.status]}. <a href="/pay/${encodeURIComponent(p.trackId)}">Checkout page</a> · <a href="/inspect/requests?trackId=${encodeURIComponent(p.trackId)}">Requests about it</a></p>
${fields(input)}
</section>
${controls(p)}
<div class="grid2">
${history(p)}
${verifySection(input)}
</div>
${deliveriesSection(p, input.deliveries)}
${input.verifies !== undefined ? verifyJournal(input.verifies) : ''}
${input.faults !== undefined ? html`${faultRulesSection(input.faults.rules, 'payment')}${faultHitsSection(input.faults.hits)}` : ''}
<section class="card" aria-labelledby="requests-heading">
<h2 id="requests-heading">Requests about this payment</h2>
${
  input.requests.length === 0
    ? html`<p class="empty">None in the request log (it keeps the last requests since the sandbox started, in memory).</p>`
    : html`<div class="table-wrap" role="region" aria-labelledby="requests-heading" tabindex="0"><table class="stack">${requestRows(input.requests, 'payment-req')}</table></div>`
}
</section>
</div>`
  return inspectorPage({
    title: `Payment ${p.trackId}`,
    section: 'payments',
    links: input.links,
    body,
    stream: { url: `/_sandbox/events?requests=true&trackId=${encodeURIComponent(p.trackId)}`, events: ['payment', 'delivery', 'request', 'reset', 'merchant', 'fault'] },
  })
}

function fields(input: PaymentPageInput): SafeHtml {
  const p = input.payment
  const row = (label: string, value: SafeHtml | string | undefined) => (value === undefined || value === '' ? '' : html`<dt>${label}</dt><dd>${value}</dd>`)
  const paid =
    p.paidAmount === undefined || p.status === 'failed'
      ? undefined
      : html`${usd(p.paidAmount)} USD${p.asset !== undefined ? html` <span class="muted">in ${p.asset}</span>` : ''}${
          paidOtherAmount(p)
            ? html` <span class="flag">≠ order amount</span><br><span class="muted">Paid ${String(p.paidAmount)}, ordered ${String(p.amount)}: verify answers the amount paid, and a merchant must not deliver.</span>`
            : ''
        }`
  return html`<dl class="meta">
${row('Merchant', input.merchant ? html`${input.merchant.name} <code class="muted">${p.merchant}</code>${input.merchant.enabled ? '' : html` <span class="flag">disabled</span>`}` : html`<code>${p.merchant}</code>`)}
${row('Order amount', html`${usd(p.amount)} USD`)}
${row('Paid', paid)}
${row('refNumber', p.refNumber !== undefined ? html`<code>${p.refNumber}</code>` : undefined)}
${row('Checkout URL', html`<code class="path">${input.checkoutUrl}</code>`)}
${row('Callback URL', html`<code class="path">${p.callbackUrl}</code>`)}
${row('Return URL', p.returnUrl !== undefined ? html`<code class="path">${p.returnUrl}</code>` : undefined)}
${row('Description', p.description !== undefined && p.description !== '' ? html`<span class="desc">${p.description}</span>` : undefined)}
${row('Mobile', p.mobile)}
${row('Created (UTC)', time(p.createdAt))}
${row('Updated (UTC)', time(p.updatedAt))}
</dl>`
}

function controls(p: Payment): SafeHtml {
  const path = `/_sandbox/payments/${encodeURIComponent(p.trackId)}/simulate`
  if (isFinal(p.status)) {
    return html`<section class="card sandbox" aria-labelledby="controls-heading"><h2 id="controls-heading">Sandbox controls</h2>
<p class="muted">${p.status} is final: the payment cannot move again. Callbacks can still be replayed below.</p></section>`
  }
  const pending = p.status === 'pending'
  const button = (outcome: string, text: string, cls = '') =>
    html`<button type="button"${cls ? html` class="${cls}"` : ''} data-post="${path}" data-body="${JSON.stringify({ outcome })}">${text}</button>`
  return html`<section class="card sandbox" aria-labelledby="controls-heading">
<h2 id="controls-heading">Sandbox controls</h2>
<p class="muted">Act as the customer, as the checkout page's controls and <code>pay payment simulate</code> do; the callback follows.</p>
<noscript><p>These controls need JavaScript. Without it, run <code>pay payment simulate ${p.trackId} --outcome paid</code>.</p></noscript>
<div class="actions" hidden data-js>
${button('paid', pending ? 'Simulate payment' : 'Finalize (confirmed)')}
${pending ? button('unfinalized', 'Paid, not finalized', 'secondary') : ''}
<form data-post="${path}" data-body="${JSON.stringify({ outcome: 'paid' })}" aria-label="Pay a different amount">
<label for="other-amount">Amount paid (USD)<input id="other-amount" name="amount" type="text" inputmode="decimal" autocomplete="off" data-number="the amount paid"></label>
<button type="submit" class="secondary">Pay a different amount</button>
</form>
${button('failed', 'Cancel / not completed', 'danger')}
</div>
</section>`
}

function history(p: Payment): SafeHtml {
  return html`<section class="card" aria-labelledby="history-heading">
<h2 id="history-heading">State history</h2>
<div class="table-wrap" role="region" aria-labelledby="history-heading" tabindex="0"><table class="stack">
<thead><tr><th scope="col">At (UTC)</th><th scope="col">Status</th><th scope="col">Source</th><th scope="col">Paid</th></tr></thead>
<tbody>${p.history.map(
    (h) => html`<tr>
${cell('At (UTC)', time(h.at), 'nowrap')}
${cell('Status', statusBadge(h.status))}
${cell('Source', h.source)}
${cell('Paid', h.paidAmount !== undefined ? html`${usd(h.paidAmount)}${h.asset !== undefined ? html` <span class="muted">in ${h.asset}</span>` : ''}` : '—', 'num')}
</tr>`,
  )}</tbody></table></div>
</section>`
}

function verifySection(input: PaymentPageInput): SafeHtml {
  return html`<section class="card" aria-labelledby="verify-heading">
<h2 id="verify-heading">Verify answers now</h2>
<p class="muted">What <code>POST /api/v1/verify</code> answers for this trackId with its merchant's key:</p>
<pre class="code">${JSON.stringify(input.verifyNow)}</pre>
<p class="muted">Deliver only on <code>result</code> 100 with <code>amount</code> equal to the order amount.</p>
</section>`
}

function verifyJournal(calls: VerifyCalls): SafeHtml {
  const shown = [...calls.entries].reverse()
  return html`<section class="card" aria-labelledby="verifies-heading">
<h2 id="verifies-heading">Verify calls</h2>
${
  calls.count === 0
    ? html`<p class="empty">No verify call for this payment yet: a merchant must verify before it delivers.</p>`
    : html`<p class="empty">${String(calls.count)} in all${calls.count > shown.length ? `, the latest ${shown.length} shown` : ''}, newest first.</p>
<div class="table-wrap" role="region" aria-labelledby="verifies-heading" tabindex="0"><table class="stack">
<thead><tr><th scope="col">At (UTC)</th><th scope="col">Key</th><th scope="col">Status then</th><th scope="col">result</th><th scope="col">amount</th></tr></thead>
<tbody>${shown.map(
        (v) => html`<tr>
${cell('At (UTC)', time(v.at), 'nowrap')}
${cell('Key', html`${v.key !== undefined ? html`<code>${v.key}</code>${v.owner === false ? html` <span class="flag">another merchant's</span>` : ''}` : v.keyHint !== undefined ? html`<code>${v.keyHint}</code> <span class="flag">unknown key</span>` : '—'}${v.operator ? html` <span class="tag" title="Made by the sandbox's operator (pay CLI, inspector, scenario): not the merchant's, left out of the audit">operator</span>` : ''}`)}
${cell('Status then', v.status !== undefined ? statusBadge(v.status) : '—')}
${cell('result', html`<strong>${String(v.result)}</strong>`)}
${cell('amount', v.amount !== undefined ? String(v.amount) : '—', 'num')}
</tr>`,
      )}</tbody></table></div>`
}
</section>`
}

function deliveriesSection(p: Payment, deliveries: Delivery[]): SafeHtml {
  return html`<section class="card" aria-labelledby="deliveries-heading">
<h2 id="deliveries-heading">Callbacks</h2>
${
  deliveries.length === 0
    ? html`<p class="empty">None yet: a callback is sent to <code class="path">${p.callbackUrl}</code> on every change to unfinalized, paid or failed.</p>`
    : [...deliveries].reverse().map((d) => delivery(d))
}
</section>`
}

function delivery(d: Delivery): SafeHtml {
  const attempts = Array.isArray(d.attempts) ? d.attempts : []
  return html`<article class="attempt" id="${d.id}" aria-labelledby="${d.id}-heading">
<h3 id="${d.id}-heading"><code>${d.id}</code> · ${String(d.body.status ?? d.event)} · <span class="${d.state === 'failed' ? 'error' : 'muted'}">${d.state}</span>${
    d.replayOf !== undefined ? html` <span class="muted">(replay of <code>${d.replayOf}</code>)</span>` : ''
  }</h3>
<p class="muted">POST <code class="path">${d.url}</code> · ${String(attempts.length)} of ${String(d.maxRetries + 1)} attempts${
    d.state === 'pending' && d.nextAttemptAt !== undefined ? html` · next at ${time(d.nextAttemptAt)}` : ''
  }</p>
<div class="actions" hidden data-js><button type="button" class="secondary small" data-post="/_sandbox/deliveries/${encodeURIComponent(d.id)}/replay" data-body="{}">Replay this callback</button></div>
<noscript><p class="muted">Replaying needs JavaScript; without it run <code>pay callback replay ${d.id}</code>.</p></noscript>
${attempts.length === 0 ? html`<p class="empty">No attempt yet.</p>` : attempts.map((a) => attempt(d, a))}
</article>`
}

function attempt(d: Delivery, a: DeliveryAttempt): SafeHtml {
  const headers = attemptHeaders(d, a.attempt)
  const answer =
    a.status !== undefined ? html`<span class="s${String(Math.floor(a.status / 100))}">HTTP ${String(a.status)}</span>` : html`<span class="error">no answer</span>`
  return html`<details id="${d.id}-${String(a.attempt)}">
<summary>Attempt ${String(a.attempt)} · ${time(a.at)} · ${answer} · ${a.durationMs.toFixed(1)} ms${
    a.error !== undefined && a.error !== `HTTP ${a.status}` ? html` · <span class="error">${a.error}</span>` : ''
  }</summary>
<p><strong>Request</strong></p>
<pre class="code">POST ${d.url}
${Object.entries(typeof headers === 'object' && headers !== null ? headers : {}).map(([k, v]) => `${k}: ${String(v)}\n`)}
${bodyText(d)}</pre>
<p><strong>Response</strong>${a.truncated ? html` <span class="muted">(first 2 KB)</span>` : ''}</p>
<pre class="code">${a.status !== undefined ? `HTTP ${a.status}\n\n` : ''}${a.responseExcerpt ?? (a.error !== undefined ? a.error : '')}</pre>
</details>`
}
