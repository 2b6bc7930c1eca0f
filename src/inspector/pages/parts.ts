import type { ClockView } from '../../clock/sandbox-clock.js'
import { isRoundedForDisplay } from '../../domain/amount.js'
import type { Payment, PaymentStatus } from '../../domain/types.js'
import { formatUsd } from '../../checkout/assets.js'
import { html, type HtmlValue, type SafeHtml } from '../../pages/html.js'
import { layout } from '../../pages/layout.js'
import { STATUS_LABEL } from '../../checkout/status.js'
import { INSPECTOR_STYLES } from './styles.js'

export type Section = 'home' | 'payments' | 'requests' | 'merchants' | 'audit'

/** Pages the sandbox serves besides the inspector, linked when they exist. */
export interface SiteLinks {
  /** The OpenAPI docs at /docs. */
  docs: boolean
  /** The audit's verdict (/inspect/audit), when the sandbox keeps one. */
  audit: boolean
  /** The sandbox clock: the banner shows it when it is not at real time. */
  clock?: ClockView
}

export interface InspectorPageInput {
  title: string
  section: Section
  links: SiteLinks
  body: SafeHtml
  /** The event stream the page follows, and the events that make it redraw its `data-live` parts. */
  stream?: { url: string; events: readonly string[] }
}

/** An inspector page: the sandbox banner, the inspector's bar, the body; its script follows the stream. */
export function inspectorPage(input: InspectorPageInput): string {
  const item = (section: Section, href: string, text: string) =>
    html`<a href="${href}"${input.section === section ? html` aria-current="page"` : ''}>${text}</a>`
  const body = html`<nav class="topbar" aria-label="Sandbox inspector">
${item('home', '/', 'Home')}
${item('payments', '/inspect/payments', 'Payments')}
${item('requests', '/inspect/requests', 'Requests')}
${item('merchants', '/inspect/merchants', 'Merchants')}
${input.links.audit ? item('audit', '/inspect/audit', 'Audit') : ''}
<a href="/chat">Bot chat</a>
${input.links.docs ? html`<a href="/docs">API reference</a>` : ''}
${input.stream ? html`<span id="live-state" class="live off" role="status" hidden data-js>Connecting…</span><noscript><span class="live off">Not live: reload to see changes (the buttons need JavaScript)</span></noscript>` : ''}
</nav>
<div id="inspector"${input.stream ? html` data-stream="${input.stream.url}" data-events="${input.stream.events.join(' ')}"` : ''}>
<p id="action-status" class="vh" role="status" aria-live="polite"></p>
<p id="action-error" class="error" role="alert" hidden></p>
${input.body}
</div>`
  return layout({ title: input.title, body, wide: true, script: 'inspector', styles: INSPECTOR_STYLES, ...(input.links.clock ? { clock: input.links.clock } : {}) })
}

/** A table cell that becomes a labelled line of a card on a phone (`table.stack`). */
export function cell(label: string, content: HtmlValue, className?: string): SafeHtml {
  return html`<td data-label="${label}"${className ? html` class="${className}"` : ''}><div>${content}</div></td>`
}

export function time(iso: string): SafeHtml {
  return html`<time datetime="${iso}">${iso.slice(0, 19).replace('T', ' ')}</time>`
}

/** A time on two short lines, for narrow table columns. */
export function stamp(iso: string): SafeHtml {
  return html`<time datetime="${iso}">${iso.slice(0, 10)}<br>${iso.slice(11, 19)}</time>`
}

/** An amount rounded for display; the exact number, as verify answers it, on hover when they differ. */
export function usd(amount: number): SafeHtml {
  return isRoundedForDisplay(amount) ? html`<span title="${String(amount)}">${formatUsd(amount)}</span>` : html`${formatUsd(amount)}`
}

export function statusBadge(status: PaymentStatus): SafeHtml {
  return html`<span class="status st-${status}" title="${STATUS_LABEL[status]}">${status}</span>`
}

/** The customer paid an amount other than the order's: what a merchant's amount check must catch. */
export function paidOtherAmount(p: Payment): boolean {
  return p.paidAmount !== undefined && p.status !== 'failed' && p.paidAmount !== p.amount
}

/** The paid amount, flagged when it is not the order amount. */
export function paidCell(p: Payment): SafeHtml {
  if (p.paidAmount === undefined || p.status === 'failed') return html`—`
  const flag = paidOtherAmount(p)
    ? html`<br><span class="flag" title="Paid ${String(p.paidAmount)}, ordered ${String(p.amount)}: verify answers the amount paid">≠ order amount</span>`
    : ''
  return html`${usd(p.paidAmount)}${p.asset !== undefined ? html` <span class="muted">in ${p.asset}</span>` : ''}${flag}`
}

export function paymentHref(trackId: string): string {
  return `/inspect/payments/${encodeURIComponent(trackId)}`
}

/** The colour class of an HTTP status. */
export function statusClass(status: number): string {
  return `s${Math.floor(status / 100)}`
}

/** A page for a request the inspector cannot answer (a bad filter, an unknown trackId). */
export function problemPage(input: { title: string; message: string; links: SiteLinks; section: Section }): string {
  return inspectorPage({
    title: input.title,
    section: input.section,
    links: input.links,
    body: html`<section class="card" aria-labelledby="problem-heading">
<h1 id="problem-heading">${input.title}</h1>
<p>${input.message}</p>
<p><a href="/">Back to the inspector</a></p>
</section>`,
  })
}
