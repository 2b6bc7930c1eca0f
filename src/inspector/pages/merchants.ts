import { MERCHANT_KEY_RULE, MERCHANT_NAME_MAX } from '../../domain/merchant.js'
import type { Merchant } from '../../domain/types.js'
import { html, type SafeHtml } from '../../pages/html.js'
import { cell, inspectorPage, type SiteLinks, time } from './parts.js'

export interface MerchantsPageInput {
  merchants: Merchant[]
  paymentCounts: ReadonlyMap<string, number>
  links: SiteLinks
}

/** Merchants and their API keys: create one, disable or enable it. */
export function merchantsPage(input: MerchantsPageInput): string {
  const body = html`<h1>Merchants</h1>
<p class="muted">A merchant's API key goes in the <code>merchant</code> field of create and verify. A disabled merchant's key is answered 103 <q>Merchant account is disabled</q>.</p>
<section class="card" aria-labelledby="create-heading">
<h2 id="create-heading">Create a merchant</h2>
<noscript><p>Creating needs JavaScript; without it run <code>pay merchant create --name "My shop"</code>.</p></noscript>
<form class="actions" data-post="/_sandbox/merchants" data-body="{}" hidden data-js aria-labelledby="create-heading">
<label for="merchant-name">Name<input id="merchant-name" name="name" type="text" maxlength="${MERCHANT_NAME_MAX}" placeholder="My shop" autocomplete="off"></label>
<label for="merchant-key">API key (optional)<input id="merchant-key" name="key" type="text" maxlength="128" placeholder="random sandbox_…" autocomplete="off" title="${MERCHANT_KEY_RULE}"></label>
<button type="submit">Create</button>
</form>
</section>
${merchantsSection(input.merchants, input.paymentCounts, 'merchants')}`
  return inspectorPage({
    title: 'Merchants',
    section: 'merchants',
    links: input.links,
    body,
    stream: { url: '/_sandbox/events', events: ['merchant', 'payment', 'reset'] },
  })
}

/** The merchants table; `id` names the live part. */
export function merchantsSection(merchants: Merchant[], counts: ReadonlyMap<string, number>, id: string, withActions = true): SafeHtml {
  const rows = merchants.map((m) => {
    const action = m.enabled ? 'disable' : 'enable'
    return html`<tr>
${cell('Name', m.name)}
${cell('API key', html`<code>${m.key}</code>`)}
${cell('Account', m.enabled ? 'enabled' : html`<span class="flag">disabled</span>`)}
${cell('Payments', html`<a href="/inspect/payments?merchant=${encodeURIComponent(m.key)}">${String(counts.get(m.key) ?? 0)}</a>`, 'num')}
${cell('Created (UTC)', time(m.createdAt), 'nowrap')}
${
  withActions
    ? cell(
        'Change',
        html`<button type="button" class="${m.enabled ? 'danger' : 'secondary'} small" hidden data-js data-post="/_sandbox/merchants/${encodeURIComponent(m.key)}/${action}" data-body="{}" aria-label="${action === 'disable' ? 'Disable' : 'Enable'} ${m.name}">${action === 'disable' ? 'Disable' : 'Enable'}</button>`,
      )
    : ''
}
</tr>`
  })
  return html`<section id="${id}" data-live aria-labelledby="${id}-heading">
<h2 id="${id}-heading">Merchants</h2>
<div class="table-wrap" role="region" aria-labelledby="${id}-heading" tabindex="0">
<table class="stack">
<thead><tr><th scope="col">Name</th><th scope="col">API key</th><th scope="col">Account</th><th scope="col">Payments</th><th scope="col">Created (UTC)</th>${withActions ? html`<th scope="col">Change</th>` : ''}</tr></thead>
<tbody>${rows}</tbody>
</table>
</div>
</section>`
}
