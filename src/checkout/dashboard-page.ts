import { isRoundedForDisplay } from '../domain/amount.js'
import { paymentStatuses } from '../domain/payment.js'
import type { ClockView } from '../clock/sandbox-clock.js'
import type { Merchant, Payment, PaymentStatus, VerifyJournal } from '../domain/types.js'
import { findAsset, formatUsd } from './assets.js'
import { html, type SafeHtml } from './html.js'
import { layout } from './layout.js'
import { STATUS_LABEL } from './status.js'

export interface DashboardInput {
  /** Newest first, already filtered and limited. */
  payments: Payment[]
  /** How many payments match the filter before the limit. */
  matching: number
  merchants: Merchant[]
  paymentCounts: ReadonlyMap<string, number>
  filter: { merchant?: string; status?: PaymentStatus; limit: number }
  /** Verify journals of the payments shown. */
  verifies?: ReadonlyMap<string, VerifyJournal>
  clock?: ClockView
}

/** The merchant dashboard: recent payments with their descriptions, and the merchants. */
export function dashboardPage(input: DashboardInput): string {
  const { filter } = input
  const names = new Map(input.merchants.map((m) => [m.key, m.name]))
  const body = html`<h1>Merchant dashboard</h1>
<p class="muted">Payments in this sandbox, newest first. This page does not update by itself; reload it to see changes. Testing a Telegram bot? <a href="/chat">Chat with it as a customer</a>.</p>
<form class="card filters" method="get" action="/dashboard" aria-label="Filter payments">
<label>Merchant<select name="merchant">
<option value="">All merchants</option>
${input.merchants.map((m) => html`<option value="${m.key}"${m.key === filter.merchant ? html` selected` : ''}>${m.name} (${m.key})</option>`)}
</select></label>
<label>Status<select name="status">
<option value="">Any status</option>
${paymentStatuses.map((s) => html`<option value="${s}"${s === filter.status ? html` selected` : ''}>${s}</option>`)}
</select></label>
<label>Show<input type="number" name="limit" min="1" max="1000" value="${filter.limit}"></label>
<button type="submit">Apply</button>
</form>
<h2 id="payments-heading">Payments</h2>
<p>${input.matching === 0 ? 'No payments match.' : `Showing ${input.payments.length} of ${input.matching}.`}${
    input.matching === 0 && filter.merchant === undefined && filter.status === undefined
      ? html` Create one with <code>pay payment create</code>.`
      : ''
  }</p>
${input.payments.length > 0 ? paymentsTable(input.payments, names, input.verifies ?? new Map()) : ''}
<h2 id="merchants-heading">Merchants</h2>
${merchantsTable(input.merchants, input.paymentCounts)}`
  return layout({ title: 'Dashboard', body, wide: true, ...(input.clock ? { clock: input.clock } : {}) })
}

function paymentsTable(payments: Payment[], names: ReadonlyMap<string, string>, verifies: ReadonlyMap<string, VerifyJournal>): SafeHtml {
  const rows = payments.map((p) => {
    const asset = findAsset(p.asset)
    return html`<tr>
<td class="nowrap">${time(p.createdAt)}</td>
<td class="nowrap"><a href="/pay/${encodeURIComponent(p.trackId)}"><code>${p.trackId}</code></a></td>
<td>${names.get(p.merchant) ?? ''}<br><code class="muted">${p.merchant}</code></td>
<td class="num">${usd(p.amount)}</td>
<td class="num">${p.paidAmount !== undefined && p.status !== 'failed' ? usd(p.paidAmount) : '—'}${
      asset && p.status !== 'failed' ? html`<br><span class="muted">in ${asset.code}</span>` : ''
    }</td>
<td><span class="status st-${p.status}" title="${STATUS_LABEL[p.status]}">${p.status}</span></td>
<td class="desc">${p.description ?? ''}</td>
<td>${verifyCell(verifies.get(p.trackId))}</td>
<td class="nowrap">${time(p.updatedAt)}</td>
</tr>`
  })
  return html`<div class="table-wrap" role="region" aria-labelledby="payments-heading" tabindex="0">
<table>
<thead><tr><th scope="col">Created (UTC)</th><th scope="col">Track ID</th><th scope="col">Merchant</th><th scope="col">Amount (USD)</th><th scope="col">Paid (USD)</th><th scope="col">Status</th><th scope="col">Description</th><th scope="col">Verify calls</th><th scope="col">Updated (UTC)</th></tr></thead>
<tbody>${rows}</tbody>
</table>
</div>`
}

/** Verify calls of a payment: how many, and the latest few (time, key, result), newest first. */
function verifyCell(journal: VerifyJournal | undefined): SafeHtml | string {
  if (!journal || journal.count === 0) return html`<span class="muted">none</span>`
  const latest = journal.entries.slice(-3).reverse()
  return html`${String(journal.count)}<ul class="verifies">${latest.map(
    (e) => html`<li>${time(e.at)} → ${String(e.result)}${e.amount !== undefined ? ` (${String(e.amount)})` : ''}${e.owner ? '' : html` <span class="muted">with ${e.key ?? e.keyHint ?? 'no key'}</span>`}</li>`,
  )}</ul>`
}

/** An amount rounded for the table; the exact number, as verify answers it, on hover when they differ. */
function usd(amount: number): SafeHtml {
  return isRoundedForDisplay(amount) ? html`<span title="${String(amount)}">${formatUsd(amount)}</span>` : html`${formatUsd(amount)}`
}

function merchantsTable(merchants: Merchant[], counts: ReadonlyMap<string, number>): SafeHtml {
  const rows = merchants.map(
    (m) => html`<tr>
<td>${m.name}</td>
<td><code>${m.key}</code></td>
<td>${m.enabled ? 'enabled' : 'disabled'}</td>
<td class="num"><a href="/dashboard?merchant=${encodeURIComponent(m.key)}">${counts.get(m.key) ?? 0}</a></td>
<td class="nowrap">${time(m.createdAt)}</td>
</tr>`,
  )
  return html`<div class="table-wrap" role="region" aria-labelledby="merchants-heading" tabindex="0">
<table>
<thead><tr><th scope="col">Name</th><th scope="col">API key</th><th scope="col">Account</th><th scope="col">Payments</th><th scope="col">Created (UTC)</th></tr></thead>
<tbody>${rows}</tbody>
</table>
</div>`
}

function time(iso: string): SafeHtml {
  return html`<time datetime="${iso}">${iso.slice(0, 19).replace('T', ' ')}</time>`
}
