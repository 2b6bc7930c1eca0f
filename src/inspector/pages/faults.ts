import { compactFault, FAULT_ROUTES, type FaultRule, isSpent } from '../../domain/api-fault.js'
import { describeHit, type FaultHit } from '../../domain/api-fault-hit.js'
import { html, type SafeHtml } from '../../pages/html.js'
import { cell, time } from './parts.js'

/** The API fault rules (`pay fault add`) and the faults played, as the home page and a payment's page show them. */

/** What a rule has played: `1 of 2`, `2 of 2, spent`, `3`. */
function played(rule: FaultRule): string {
  const of = rule.times !== undefined ? `${rule.played} of ${rule.times}${isSpent(rule) ? ', spent' : ''}` : String(rule.played)
  return rule.rate !== undefined ? `${of} (${rule.matched} matched)` : of
}

/**
 * The rules with a button to remove each, and all: `scope` says which (every rule, or those that reach a
 * payment). The buttons send DELETE to the control API as the operator.
 */
export function faultRulesSection(rules: readonly FaultRule[], scope: 'all' | 'payment'): SafeHtml {
  const heading = scope === 'all' ? 'API faults' : 'API faults that reach this payment'
  const none =
    scope === 'all'
      ? html`<p class="empty">None: create, verify and the checkout page answer for real. Make the API fail on purpose with <code>pay fault add --route verify --status 503 --times 2</code> (or a <code>fault</code> step of a scenario), and see whether your code copes: <code>pay audit</code>.</p>`
      : html`<p class="empty">None: this payment's verify calls and checkout page answer for real.</p>`
  return html`<section id="faults" data-live class="card sandbox" aria-labelledby="faults-heading">
<h2 id="faults-heading">${heading}</h2>
${
  rules.length === 0
    ? none
    : html`<p class="muted">Your code's requests that match get the fault; the pay CLI's and this page's own get real answers.</p>
<div class="table-wrap" role="region" aria-labelledby="faults-heading" tabindex="0"><table class="stack">
<thead><tr><th scope="col">Rule</th><th scope="col">Requests</th><th scope="col">Fault and scope</th><th scope="col">Played</th><th scope="col"><span class="vh">Remove</span></th></tr></thead>
<tbody>${rules.map(
        (r) => html`<tr>
${cell('Rule', html`<code>${r.id}</code>${r.source === 'start' ? html` <span class="tag" title="pay sandbox start --api-fault">start</span>` : ''}`, 'nowrap')}
${cell('Requests', FAULT_ROUTES[r.route].request)}
${cell('Fault and scope', html`<code class="path">${compactFault(r, 'show').split(':').slice(1).join(':')}</code>`)}
${cell('Played', played(r))}
${cell('Remove', html`<span hidden data-js><button type="button" class="secondary small" data-post="/_sandbox/faults/${encodeURIComponent(r.id)}" data-method="DELETE" data-body="{}" aria-label="Remove rule ${r.id}">Remove</button></span><noscript><code>pay fault clear ${r.id}</code></noscript>`)}
</tr>`,
      )}</tbody></table></div>
${scope === 'all' && rules.length > 1 ? html`<div class="actions" hidden data-js><button type="button" class="danger small" data-post="/_sandbox/faults" data-method="DELETE" data-body="{}">Remove every rule</button></div>` : ''}`
}
</section>`
}

/** The faults played on a payment's requests, newest first: when, on which route, what was done and how it ended. */
export function faultHitsSection(hits: readonly FaultHit[]): SafeHtml | string {
  if (hits.length === 0) return ''
  const shown = [...hits].reverse()
  return html`<section class="card" aria-labelledby="hits-heading">
<h2 id="hits-heading">Faults played on its requests</h2>
<p class="muted">${String(hits.length)} of the latest the sandbox keeps, newest first; <code>pay audit</code> judges how your code coped.</p>
<div class="table-wrap" role="region" aria-labelledby="hits-heading" tabindex="0"><table class="stack">
<thead><tr><th scope="col">At (UTC)</th><th scope="col">Request</th><th scope="col">What was done</th><th scope="col">Rule</th></tr></thead>
<tbody>${shown.map(
    (h) => html`<tr>
${cell('At (UTC)', time(h.at), 'nowrap')}
${cell('Request', html`${h.route}${h.owner === false ? html` <span class="flag">another merchant's key</span>` : ''}`)}
${cell('What was done', describeHit(h))}
${cell('Rule', html`<code>${h.rule}</code>`, 'nowrap')}
</tr>`,
  )}</tbody></table></div>
</section>`
}
