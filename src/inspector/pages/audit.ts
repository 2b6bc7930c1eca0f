import { html } from '../../pages/html.js'
import type { AuditVerdict } from '../lab.js'
import { cell, inspectorPage, paymentHref, type SiteLinks, time } from './parts.js'

const VERDICT_CLASS = { pass: 'st-paid', warn: 'st-unfinalized', fail: 'st-failed' } as const

/** The audit's verdict on the integration the sandbox observed, redrawn as payments, callbacks and requests come. */
export function auditPage(input: { audit: AuditVerdict; links: SiteLinks }): string {
  const { audit } = input
  const t = audit.totals
  const body = html`<h1>Audit</h1>
<p class="muted">What the sandbox observed of your integration: whether it verified each notification, checked the amount, answered its callbacks, and coped with the API's faults. As JSON: <code>GET /_sandbox/audit</code>.</p>
<section id="audit" data-live class="card" aria-labelledby="audit-heading">
<h2 id="audit-heading">Verdict <span class="status ${VERDICT_CLASS[audit.verdict]}">${audit.verdict}</span></h2>
<p class="muted">As of ${time(audit.at)}: ${String(t.payments)} payments, ${String(t.passed)} passed, ${String(t.fail)} failed, ${String(t.warn)} with warnings${
    t.waiting ? `, ${t.waiting} still within the grace period` : ''
  }.</p>
${
  audit.payments.length === 0 && audit.creates.length === 0
    ? html`<p class="empty">No findings.</p>`
    : html`<div class="table-wrap" role="region" aria-labelledby="audit-heading" tabindex="0"><table class="stack">
<thead><tr><th scope="col">Track ID</th><th scope="col">Verdict</th><th scope="col">Findings</th></tr></thead>
<tbody>${audit.payments.map(
        (p) => html`<tr>
${cell('Track ID', html`<a href="${paymentHref(p.trackId)}"><code>${p.trackId}</code></a>`, 'nowrap')}
${cell('Verdict', html`<span class="status ${VERDICT_CLASS[p.verdict] ?? ''}">${p.verdict}</span>`)}
${cell('Findings', html`<ul>${p.findings.map((f) => html`<li><strong>${f.level}</strong> <code>${f.check}</code>: ${f.reason}</li>`)}</ul>`)}
</tr>`,
      )}${audit.creates.map(
        (c) => html`<tr>
${cell('Track ID', html`creates of <code>${c.merchant}</code>`, 'nowrap')}
${cell('Verdict', html`<span class="status ${VERDICT_CLASS[c.verdict] ?? ''}">${c.verdict}</span>`)}
${cell('Findings', html`<ul>${c.findings.map((f) => html`<li><strong>${f.level}</strong> <code>${f.check}</code>: ${f.reason}</li>`)}</ul>`)}
</tr>`,
      )}</tbody></table></div>`
}
</section>`
  return inspectorPage({
    title: 'Audit',
    section: 'audit',
    links: input.links,
    body,
    stream: { url: '/_sandbox/events?requests=true', events: ['payment', 'delivery', 'request', 'reset', 'fault'] },
  })
}
