import { paymentStatuses } from '../../domain/payment.js'
import { GUIDES } from '../../guides.js'
import type { Delivery, Merchant, Payment, PaymentStatus } from '../../domain/types.js'
import { html } from '../../pages/html.js'
import type { FaultRule } from '../../domain/api-fault.js'
import type { RequestEntry } from '../request-entry.js'
import { faultRulesSection } from './faults.js'
import { inspectorPage, type SiteLinks } from './parts.js'
import { paymentsSection } from './payments.js'
import { requestsSection } from './requests.js'

export interface HomePageInput {
  url: string
  /** Where checkout URLs start (the public URL, when the sandbox has one). */
  checkoutBase: string
  /** The key to try first: `sandbox` when enabled. */
  merchantKey: string | undefined
  merchants: Merchant[]
  /** Newest first. */
  latestPayments: Payment[]
  countsByStatus: Readonly<Record<PaymentStatus, number>>
  payments: number
  deliveries: { pending: number; failed: number; total: number }
  deliveriesOf: (trackId: string) => Delivery[]
  /** Newest first. */
  latestRequests: RequestEntry[]
  requestsKept: number
  /** The API fault rules, when the sandbox plays them. */
  faults?: FaultRule[]
  links: SiteLinks
}

export const HOME_ROWS = 5

/** The sandbox's front page: how to start, what is in it, and the latest payments and requests as they come. */
export function homePage(input: HomePageInput): string {
  const key = input.merchantKey ?? '<merchant key>'
  const curl = `curl -s ${input.url}/api/v1/request \\\n  -H 'Content-Type: application/json' \\\n  -d '{"merchant":"${key}","amount":25,"callbackUrl":"http://localhost:3000/callback"}'`
  const body = html`<h1>Sandbox inspector</h1>
<p class="muted">Everything this sandbox receives and sends, as it happens: payments, the requests your integration makes, the callbacks it gets.</p>
<section class="card" aria-labelledby="start-heading">
<h2 id="start-heading">Point your integration here</h2>
<dl class="meta">
<dt>Base URL</dt><dd><code>${input.url}</code></dd>
<dt>API key</dt><dd>${input.merchantKey !== undefined ? html`<code>${input.merchantKey}</code>` : html`none enabled — <a href="/inspect/merchants">create a merchant</a>`}</dd>
<dt>Checkout</dt><dd><code>${input.checkoutBase}/pay/&lt;trackId&gt;</code></dd>
</dl>
<pre class="code">${curl}</pre>
<p class="muted">Testing a Telegram bot? <a href="/chat">Chat with it as a customer</a>.${input.links.docs ? html` Every route of this sandbox, with its schemas: the API reference above, or <code>/openapi.json</code>.` : ''}</p>
</section>
<section class="card" aria-labelledby="guides-heading">
<h2 id="guides-heading">Guides</h2>
<ul id="guides">
${GUIDES.map((g) => html`<li><a href="/guides/${g.name}">${g.title}</a></li>`)}
</ul>
<p class="muted">Markdown text from the package's <code>docs/</code> folder; <code>pay help</code> lists them too.</p>
</section>
<div id="overview" data-live>
<div class="stats" role="list" aria-label="Counts">
<a class="stat" role="listitem" href="/inspect/payments"><strong>${String(input.payments)}</strong><span>payments</span></a>
${paymentStatuses.map(
  (s) => html`<a class="stat" role="listitem" href="/inspect/payments?status=${s}"><strong>${String(input.countsByStatus[s])}</strong><span>${s}</span></a>`,
)}
<span class="stat" role="listitem"><strong>${String(input.deliveries.total)}</strong><span>callbacks (${String(input.deliveries.pending)} pending, ${String(input.deliveries.failed)} failed)</span></span>
<a class="stat" role="listitem" href="/inspect/merchants"><strong>${String(input.merchants.length)}</strong><span>merchants</span></a>
<a class="stat" role="listitem" href="/inspect/requests"><strong>${String(input.requestsKept)}</strong><span>requests logged</span></a>
</div>
</div>
${paymentsSection(
  {
    payments: input.latestPayments,
    matching: input.payments,
    merchants: input.merchants,
    deliveriesOf: input.deliveriesOf,
    query: { limit: HOME_ROWS },
  },
  'latest-payments',
  'Latest payments',
)}
<p><a href="/inspect/payments">All payments</a></p>
${input.faults !== undefined ? faultRulesSection(input.faults, 'all') : ''}
${requestsSection(input.latestRequests, input.requestsKept, 'latest-requests', 'Latest requests', false)}
<p><a href="/inspect/requests">The whole request log</a></p>`
  return inspectorPage({
    title: 'Inspector',
    section: 'home',
    links: input.links,
    body,
    stream: { url: '/_sandbox/events?requests=true', events: ['payment', 'delivery', 'merchant', 'reset', 'request', 'fault'] },
  })
}
