import { html, type SafeHtml } from '../../pages/html.js'
import { filterQuery, type RequestFilter } from '../request-filter.js'
import { type CutField, KEPT_BYTES, type RequestEntry } from '../request-entry.js'
import { cell, inspectorPage, paymentHref, type SiteLinks, statusClass } from './parts.js'

export const REQUESTS_SHOWN = { default: 200, max: 1000 } as const

export interface RequestsPageInput {
  /** Newest first, filtered and limited. */
  requests: RequestEntry[]
  matching: number
  filter: RequestFilter
  limit: number
  capacity: number
  maxBytes: number
  links: SiteLinks
}

/** The request log: every request the sandbox answered, newest first, filtered, redrawn as requests come. */
export function requestsPage(input: RequestsPageInput): string {
  const f = input.filter
  const query = filterQuery(f).toString()
  const body = html`<h1>Requests</h1>
<p class="muted">Every request to the spec API, the control API, the checkout page and the Bot API, newest first, with its body (spec and control API, first 2 KB) and answer; a longer path, query or trackId is shown cut. Kept in memory only: the last ${input.capacity.toLocaleString('en-US')} requests since the sandbox started (fewer when they would take more than ${String(Math.round(input.maxBytes / 1024 / 1024))} MB), not saved to the data file. In a terminal: <code>pay logs tail --follow</code>.</p>
<form class="card filters" method="get" action="/inspect/requests" role="search" aria-label="Filter requests">
<label>Path starts with<input type="text" name="path" value="${f.path ?? ''}" placeholder="/api/v1/verify" maxlength="512" autocomplete="off"></label>
<label>Method<input type="text" name="method" value="${f.method ?? ''}" placeholder="POST" maxlength="16" autocomplete="off"></label>
<label>HTTP status<input type="text" name="status" value="${f.status ?? ''}" placeholder="4xx or 404" maxlength="3" autocomplete="off"></label>
<label>Result<input type="text" name="result" value="${f.result !== undefined ? String(f.result) : ''}" placeholder="203" maxlength="3" inputmode="numeric" autocomplete="off"></label>
<label>Track ID<input type="text" name="trackId" value="${f.trackId ?? ''}" maxlength="200" autocomplete="off"></label>
<label>Show<input type="number" name="limit" min="1" max="${REQUESTS_SHOWN.max}" value="${input.limit}"></label>
<button type="submit">Apply</button>
</form>
${requestsSection(input.requests, input.matching, 'requests', 'Requests', Object.keys(f).length > 0)}`
  return inspectorPage({
    title: 'Requests',
    section: 'requests',
    links: input.links,
    body,
    stream: { url: `/_sandbox/requests/events${query ? `?${query}` : ''}`, events: ['request'] },
  })
}

/** The table of requests with its count; `id` names the live part. */
export function requestsSection(requests: RequestEntry[], matching: number, id: string, heading: string, filtered: boolean): SafeHtml {
  const count =
    matching === 0
      ? filtered
        ? 'No request in the log matches.'
        : 'No requests yet. Point your integration at this sandbox; each request it makes shows up here as it is answered.'
      : `Showing ${requests.length} of ${matching}${filtered ? ' matching' : ''}.`
  return html`<section id="${id}" data-live aria-labelledby="${id}-heading">
<h2 id="${id}-heading">${heading}</h2>
<p class="empty">${count}</p>
${requests.length > 0 ? html`<div class="table-wrap" role="region" aria-labelledby="${id}-heading" tabindex="0"><table class="stack">${requestRows(requests, id)}</table></div>` : ''}
</section>`
}

/** The head and rows of a table of requests; `prefix` keeps ids unique on the page. */
export function requestRows(requests: RequestEntry[], prefix: string): SafeHtml {
  const rows = requests.map(
    (r) => html`<tr data-seq="${String(r.seq)}">
${cell('Time (UTC)', html`<time datetime="${r.at}">${r.at.slice(11, 23)}</time>`, 'nowrap')}
${cell('Request', html`<strong>${r.method}</strong> <code class="path">${r.path}${cut(r, 'path')}${r.query !== undefined ? html`?${r.query}${cut(r, 'query')}` : ''}</code>${r.operator ? html` <span class="tag" title="Sent by the sandbox's operator (pay CLI, inspector, scenario): not the merchant's">operator</span>` : ''}`, 'path')}
${cell('HTTP', r.status === 0 ? html`<span class="s5" title="no answer: the connection was closed">—</span>` : html`<span class="${statusClass(r.status)}">${String(r.status)}</span>`, 'num')}
${cell('Answer', html`${r.result !== undefined ? html`result <strong>${String(r.result)}</strong>` : r.error !== undefined ? html`<code>${r.error}</code>` : r.status === 0 ? 'no answer' : '—'}${r.fault !== undefined ? html`<br><span class="flag wrap" title="An API fault the sandbox played (pay fault list)">fault: ${r.fault}</span>` : ''}`)}
${cell('Track ID', trackIdCell(r), (r.trackId?.length ?? 0) > TRACK_ID_NOWRAP ? 'path' : 'nowrap')}
${cell('Time taken', `${r.ms.toFixed(1)} ms`, 'num')}
${cell('Body', body(r, prefix))}
</tr>`,
  )
  return html`<thead><tr><th scope="col">Time (UTC)</th><th scope="col">Request</th><th scope="col">HTTP</th><th scope="col">Answer</th><th scope="col">Track ID</th><th scope="col">Time taken</th><th scope="col">Body</th></tr></thead>
<tbody>${rows}</tbody>`
}

/** A trackId longer than this (ours have 22 characters) wraps rather than widen the table. */
const TRACK_ID_NOWRAP = 40

/** After a text the log kept cut: what is shown is only its start. */
function cut(r: RequestEntry, field: CutField): SafeHtml | string {
  const bytes = r.truncated?.[field]
  return bytes === undefined ? '' : html`<span class="muted" title="cut: the log keeps only the first ${String(KEPT_BYTES[field])} bytes">… (${bytes.toLocaleString('en-US')} bytes)</span>`
}

/** A trackId links to its payment; one kept cut names none. */
function trackIdCell(r: RequestEntry): SafeHtml | string {
  if (r.trackId === undefined) return '—'
  if (r.truncated?.trackId !== undefined) return html`<code>${r.trackId}</code>${cut(r, 'trackId')}`
  return html`<a href="${paymentHref(r.trackId)}"><code>${r.trackId}</code></a>`
}

function body(r: RequestEntry, prefix: string): SafeHtml | string {
  if (r.body === undefined) return '—'
  const size = `${String(r.bodyBytes ?? r.body.length)} bytes${r.bodyTruncated ? `, first ${KEPT_BYTES.body / 1024} KB shown` : ''}`
  return html`<details id="${prefix}-body-${String(r.seq)}"><summary>${size}</summary><pre class="code">${r.body}</pre></details>`
}
