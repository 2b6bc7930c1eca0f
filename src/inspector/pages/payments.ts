import { paymentStatuses } from '../../domain/payment.js'
import type { Delivery, Merchant, Payment } from '../../domain/types.js'
import { html, type SafeHtml } from '../../pages/html.js'
import { type PaymentQuery, PAYMENTS_SHOWN, SEARCH_MAX } from '../payment-query.js'
import { cell, inspectorPage, paidCell, paidOtherAmount, paymentHref, type SiteLinks, stamp, statusBadge, usd } from './parts.js'

export interface PaymentsPageInput {
  /** Newest first, filtered and limited. */
  payments: Payment[]
  /** How many match before the limit. */
  matching: number
  merchants: Merchant[]
  deliveriesOf: (trackId: string) => Delivery[]
  query: PaymentQuery
  links: SiteLinks
}

/** The payments list: filters kept in the URL, redrawn live as payments are made and change. */
export function paymentsPage(input: PaymentsPageInput): string {
  const { query } = input
  const body = html`<h1>Payments</h1>
<p class="muted">Every payment in this sandbox, newest first, as saved. New payments and status changes appear here as they happen.</p>
<form class="card filters" method="get" action="/inspect/payments" role="search" aria-label="Filter payments">
<label>Search<input type="text" name="q" value="${query.q ?? ''}" maxlength="${SEARCH_MAX}" placeholder="trackId or description" autocomplete="off"></label>
<label>Merchant<select name="merchant">
<option value="">All merchants</option>
${input.merchants.map((m) => html`<option value="${m.key}"${m.key === query.merchant ? html` selected` : ''}>${m.name} (${m.key})</option>`)}
</select></label>
<label>Status<select name="status">
<option value="">Any status</option>
${paymentStatuses.map((s) => html`<option value="${s}"${s === query.status ? html` selected` : ''}>${s}</option>`)}
</select></label>
<label>Show<input type="number" name="limit" min="1" max="${PAYMENTS_SHOWN.max}" value="${query.limit}"></label>
<button type="submit">Apply</button>
</form>
${paymentsSection(input, 'payments')}`
  return inspectorPage({
    title: 'Payments',
    section: 'payments',
    links: input.links,
    body,
    stream: { url: '/_sandbox/events', events: ['payment', 'delivery', 'merchant', 'reset'] },
  })
}

const filtered = (q: PaymentQuery): boolean => q.merchant !== undefined || q.status !== undefined || (q.q ?? '') !== ''

/** The payments table with its count; `id` names the live part (the home page shows one too). */
export function paymentsSection(input: Omit<PaymentsPageInput, 'links'>, id: string, heading = 'Payments'): SafeHtml {
  const { payments, matching, query } = input
  const names = new Map(input.merchants.map((m) => [m.key, m.name]))
  const count =
    matching === 0
      ? filtered(query)
        ? 'No payments match.'
        : html`No payments yet. Create one with <code>pay payment create --amount 25 --callback-url http://localhost:3000/callback</code> or <code>POST /api/v1/request</code>.`
      : `Showing ${payments.length} of ${matching}${filtered(query) ? ' matching' : ''}.`
  return html`<section id="${id}" data-live aria-labelledby="${id}-heading">
<h2 id="${id}-heading">${heading}</h2>
<p class="empty">${count}</p>
${payments.length > 0 ? table(payments, names, input.deliveriesOf, id) : ''}
</section>`
}

function table(payments: Payment[], names: ReadonlyMap<string, string>, deliveriesOf: (trackId: string) => Delivery[], id: string): SafeHtml {
  const rows = payments.map((p) => {
    const deliveries = deliveriesOf(p.trackId)
    const last = deliveries.at(-1)
    return html`<tr data-track-id="${p.trackId}"${paidOtherAmount(p) ? html` class="mismatch"` : ''}>
${cell('Created (UTC)', stamp(p.createdAt), 'nowrap')}
${cell('Track ID', html`<a href="${paymentHref(p.trackId)}"><code>${p.trackId}</code></a>`, 'nowrap')}
${cell('Merchant', html`${names.get(p.merchant) ?? ''}<br><code class="muted">${p.merchant}</code>`)}
${cell('Amount (USD)', usd(p.amount), 'num')}
${cell('Paid (USD)', paidCell(p), 'num')}
${cell('Status', statusBadge(p.status))}
${cell('Description', p.description ?? '', 'desc')}
${cell('Callbacks', last ? html`${String(deliveries.length)} · <span class="muted">${last.state}</span>` : html`<span class="muted">none</span>`, 'nowrap')}
${cell('Updated (UTC)', stamp(p.updatedAt), 'nowrap')}
</tr>`
  })
  return html`<div class="table-wrap" role="region" aria-labelledby="${id}-heading" tabindex="0">
<table class="stack">
<thead><tr><th scope="col">Created (UTC)</th><th scope="col">Track ID</th><th scope="col">Merchant</th><th scope="col">Amount (USD)</th><th scope="col">Paid (USD)</th><th scope="col">Status</th><th scope="col">Description</th><th scope="col">Callbacks</th><th scope="col">Updated (UTC)</th></tr></thead>
<tbody>${rows}</tbody>
</table>
</div>`
}
