import type { FastifyInstance } from 'fastify'
import type { SandboxClock } from '../clock/sandbox-clock.js'
import { parseDuration } from '../domain/duration.js'
import { SandboxError } from '../domain/outcomes.js'
import type { WireProvider } from '../http/type-provider.js'
import { json, replies } from '../http/schemas.js'
import type { SandboxService } from '../service/sandbox.js'
import { audit, type AuditReport, type AuditSettings, CHECK_IDS, type CheckId, isCheckId } from './rules.js'
import { type AuditQuery, auditQuery, reportSchema } from './schemas.js'

/** The audit of what the sandbox observed, read from the durable state. */
export function runAudit(service: SandboxService, clock: SandboxClock, query: AuditQuery, settings: Partial<AuditSettings> = {}): AuditReport {
  const now = clock.nowMs()
  let since: number | undefined
  if (query.since !== undefined) {
    const ago = parseDuration(query.since)
    since = ago !== undefined ? now - ago : Date.parse(query.since)
    if (!Number.isFinite(since)) {
      throw new SandboxError('invalidField', `since must be an ISO 8601 time or a duration such as 10m (got ${JSON.stringify(query.since)})`)
    }
  }
  const ignore: CheckId[] = []
  for (const id of (query.ignore ?? '').split(',').map((s) => s.trim()).filter(Boolean)) {
    if (!isCheckId(id)) throw new SandboxError('invalidField', `ignore: no check ${JSON.stringify(id)}; checks: ${CHECK_IDS.join(', ')}`)
    ignore.push(id)
  }
  let payments = query.trackId !== undefined ? [service.requirePayment(query.trackId)] : service.listPayments(query.merchant !== undefined ? { merchant: query.merchant } : {})
  if (query.trackId !== undefined && query.merchant !== undefined) payments = payments.filter((p) => p.merchant === query.merchant)
  if (since !== undefined) payments = payments.filter((p) => Date.parse(p.createdAt) >= since)
  // The faults played on these payments' verifies, and, unless one payment is audited, on the merchant's creates.
  const tracked = new Set(payments.map((p) => p.trackId))
  const hits = service.store
    .faultHits()
    .filter((h) => (h.route === 'verify' && h.trackId !== undefined && tracked.has(h.trackId)) || (h.route === 'create' && query.trackId === undefined && (query.merchant === undefined || h.merchant === query.merchant)))
    .filter((h) => since === undefined || Date.parse(h.at) >= since)
  return audit({
    payments,
    hits,
    creates: query.trackId === undefined,
    deliveriesOf: (trackId) => service.deliveriesOf(trackId),
    verifiesOf: (trackId) => service.store.verifiesOf(trackId),
    now,
    settings,
    strict: query.strict,
    ignore,
  })
}

/** GET /_sandbox/audit: a verdict on the merchant integration the sandbox observed. */
export function auditPlugin(service: SandboxService, clock: SandboxClock, settings: Partial<AuditSettings> = {}) {
  return async function (fastify: FastifyInstance): Promise<void> {
    const app = fastify.withTypeProvider<WireProvider>()
    app.get(
      '/_sandbox/audit',
      {
        schema: {
          tags: ['Lab'],
          summary: 'A verdict on the merchant integration the sandbox observed: callbacks, answers, verify calls, how it coped with API faults',
          querystring: auditQuery,
          response: replies('GET', { 200: json('the report', reportSchema) }, ['invalidBody', 'invalidField', 'notFound']),
        },
      },
      async (request) => {
        // Verify calls answered before the audit count: they are written now rather than in a few milliseconds.
        await service.store.flushObservations()
        return runAudit(service, clock, request.query, settings)
      },
    )
  }
}
