import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { pageHeaders } from '../pages/layout.js'
import { shownDelivery, shownPayment } from '../domain/display.js'
import { paymentStatuses } from '../domain/payment.js'
import type { PaymentStatus } from '../domain/types.js'
import { verifyOutcome } from '../domain/validate.js'
import type { WireProvider } from '../http/type-provider.js'
import type { SandboxService } from '../service/sandbox.js'
import type { FaultRule } from '../domain/api-fault.js'
import type { LabReaders } from './lab.js'
import { auditPage } from './pages/audit.js'
import { HOME_ROWS, homePage } from './pages/home.js'
import { merchantsPage } from './pages/merchants.js'
import { problemPage, type Section, type SiteLinks } from './pages/parts.js'
import { paymentPage } from './pages/payment.js'
import { paymentsPage } from './pages/payments.js'
import { requestsPage } from './pages/requests.js'
import { INSPECTOR_STYLES } from './pages/styles.js'
import { pickPayments } from './payment-query.js'
import { readFilter } from './request-filter.js'
import type { RequestLog } from './request-log.js'
import { routeSchemas as schemas } from './schemas.js'

/** Whether a rule can fault a payment's requests: verify or checkout, of its merchant and trackId (or any). */
const reaches = (rule: FaultRule, payment: { trackId: string; merchant: string }): boolean =>
  rule.route !== 'create' && (rule.trackId === undefined || rule.trackId === payment.trackId) && (rule.merchant === undefined || rule.merchant === payment.merchant)

/** Requests shown on a payment's page. */
const PAYMENT_REQUESTS = 20

/** The inspector's pages: `/`, `/inspect/…`, and `/dashboard` leading to the payments list. */
export function inspectorPageRoutes(service: SandboxService, requests: RequestLog, site: { url: () => string; checkoutBase: () => string; links: () => SiteLinks }, lab: LabReaders) {
  return async function (fastify: FastifyInstance): Promise<void> {
    const app = fastify.withTypeProvider<WireProvider>()
    const headers = pageHeaders('inspector', INSPECTOR_STYLES)
    const send = (reply: FastifyReply, page: string, status = 200) => reply.code(status).headers(headers).send(page)
    /** A query the page cannot use: a page naming the field, under the same policy. */
    const refuse = (request: FastifyRequest, reply: FastifyReply, section: Section, message: string) => {
      request.outcome = { error: 'invalid_query' }
      return send(reply, problemPage({ title: 'Not a filter this page understands', message, links: site.links(), section }), 400)
    }
    const deliveriesOf = (trackId: string) => service.deliveriesOf(trackId)

    app.get('/', { schema: schemas.home, config: { page: true } }, async (_request, reply) => {
      const all = service.listPayments({})
      const countsByStatus = Object.fromEntries(paymentStatuses.map((s) => [s, 0])) as Record<PaymentStatus, number>
      for (const p of all) countsByStatus[p.status]++
      const deliveries = { pending: 0, failed: 0, total: 0 }
      for (const d of service.store.listDeliveries()) {
        deliveries.total++
        if (d.state === 'pending') deliveries.pending++
        else if (d.state === 'failed') deliveries.failed++
      }
      const merchants = service.listMerchants()
      const kept = requests.list()
      const page = homePage({
        url: site.url(),
        checkoutBase: site.checkoutBase(),
        merchantKey: (merchants.find((m) => m.key === 'sandbox' && m.enabled) ?? merchants.find((m) => m.enabled))?.key,
        merchants,
        latestPayments: all.slice(-HOME_ROWS).reverse(),
        countsByStatus,
        payments: all.length,
        deliveries,
        deliveriesOf,
        latestRequests: kept.slice(-HOME_ROWS).reverse(),
        requestsKept: kept.length,
        ...(lab.faults ? { faults: lab.faults.rules() } : {}),
        links: site.links(),
      })
      return send(reply, page)
    })

    // The dashboard grew into the inspector: old links and bookmarks land on its payments list.
    app.get('/dashboard', { schema: schemas.dashboard, config: { page: true } }, async (request, reply) => {
      const mark = request.url.indexOf('?')
      const query = mark === -1 ? '' : new URLSearchParams(request.url.slice(mark + 1)).toString()
      return reply.redirect(`/inspect/payments${query ? `?${query}` : ''}`, 302)
    })
    app.get('/inspect', { schema: schemas.inspect, config: { page: true } }, async (_request, reply) => reply.redirect('/', 302))

    app.get(
      '/inspect/payments',
      { schema: schemas.payments, config: { page: true }, attachValidation: true },
      async (request, reply) => {
        if (request.validationError) return refuse(request, reply, 'payments', `The ${request.validationError.message}.`)
        const merchant = request.query.merchant || undefined
        const status = request.query.status || undefined
        const q = request.query.q?.trim() || undefined
        const limit = request.query.limit
        const { shown, matching } = pickPayments(service.listPayments({ ...(merchant ? { merchant } : {}), ...(status ? { status } : {}) }), { ...(q ? { q } : {}), limit })
        const page = paymentsPage({
          payments: shown.map(shownPayment),
          matching,
          merchants: service.listMerchants(),
          deliveriesOf,
          query: { ...(merchant ? { merchant } : {}), ...(status ? { status } : {}), ...(q ? { q } : {}), limit },
          links: site.links(),
        })
        return send(reply, page)
      },
    )

    app.get(
      '/inspect/payments/:trackId',
      { schema: schemas.payment, config: { page: true }, attachValidation: true },
      async (request, reply) => {
        if (request.validationError) return refuse(request, reply, 'payments', `The ${request.validationError.message}.`)
        const { trackId } = request.params
        const payment = service.store.getPayment(trackId)
        if (!payment) {
          request.outcome = { error: 'not_found' }
          const message = `This sandbox has no payment with the trackId ${trackId}. A reset or an import removes payments; the payments list shows those there are.`
          return send(reply, problemPage({ title: 'Payment not found', message, links: site.links(), section: 'payments' }), 404)
        }
        request.outcome = { trackId }
        const page = paymentPage({
          payment: shownPayment(payment),
          merchant: service.listMerchants().find((m) => m.key === payment.merchant),
          deliveries: service.deliveriesOf(trackId).map(shownDelivery),
          requests: requests.list({ trackId }, { limit: PAYMENT_REQUESTS }).reverse(),
          checkoutUrl: `${site.checkoutBase()}/pay/${encodeURIComponent(trackId)}`,
          // Asked of the domain's rule directly: the page must not count as a verify call.
          verifyNow: verifyOutcome(
            { merchant: payment.merchant, trackId },
            (key) => service.store.getMerchant(key),
            (id) => service.store.getPayment(id),
          ),
          ...(lab.verifiesOf ? { verifies: lab.verifiesOf(trackId) ?? { count: 0, entries: [] } } : {}),
          ...(lab.faults ? { faults: { rules: lab.faults.rules().filter((r) => reaches(r, payment)), hits: lab.faults.hitsOf(trackId) } } : {}),
          links: site.links(),
        })
        return send(reply, page)
      },
    )

    const audit = lab.audit
    if (audit) {
      app.get('/inspect/audit', { schema: schemas.audit, config: { page: true } }, async (_request, reply) =>
        send(reply, auditPage({ audit: await audit(), links: site.links() })),
      )
    }

    app.get(
      '/inspect/requests',
      { schema: schemas.requests, config: { page: true }, attachValidation: true },
      async (request, reply) => {
        if (request.validationError) return refuse(request, reply, 'requests', `The ${request.validationError.message}.`)
        const { limit, ...fields } = request.query
        const read = readFilter(fields)
        if ('problem' in read) return refuse(request, reply, 'requests', `The filter ${read.problem}.`)
        const matching = requests.list(read.filter)
        const page = requestsPage({
          requests: matching.slice(-limit).reverse(),
          matching: matching.length,
          filter: read.filter,
          limit,
          capacity: requests.capacity,
          maxBytes: requests.maxBytes,
          links: site.links(),
        })
        return send(reply, page)
      },
    )

    app.get('/inspect/merchants', { schema: schemas.merchants, config: { page: true } }, async (_request, reply) => {
      const counts = new Map<string, number>()
      for (const p of service.listPayments({})) counts.set(p.merchant, (counts.get(p.merchant) ?? 0) + 1)
      return send(reply, merchantsPage({ merchants: service.listMerchants(), paymentCounts: counts, links: site.links() }))
    })
  }
}
