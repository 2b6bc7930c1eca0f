import type { FastifyInstance } from 'fastify'
import type { SandboxClock } from '../clock/sandbox-clock.js'
import { parseDuration } from '../domain/duration.js'
import { SandboxError } from '../domain/outcomes.js'
import { json, replies } from '../http/schemas.js'
import type { SandboxService } from '../service/sandbox.js'
import { audit, type AuditReport, type AuditSettings, CHECK_IDS, type CheckId, isCheckId } from './rules.js'

const auditQuery = {
  type: 'object',
  properties: {
    merchant: { type: 'string', minLength: 1, maxLength: 200, description: 'Only payments of this merchant API key.' },
    trackId: { type: 'string', minLength: 1, maxLength: 200, description: 'Only this payment.' },
    since: { type: 'string', minLength: 1, maxLength: 100, description: 'Only payments created since this time (ISO 8601), or this long ago on the sandbox clock (10m, 1h).' },
    strict: { type: 'boolean', default: false, description: 'Warnings fail too.' },
    ignore: { type: 'string', maxLength: 1000, description: `Checks to leave out, comma-separated: ${CHECK_IDS.join(', ')}.` },
  },
  additionalProperties: false,
} as const

const level = { type: 'string', enum: ['fail', 'warn', 'info'] } as const
const verdict = { type: 'string', enum: ['pass', 'warn', 'fail'] } as const

const reportSchema = {
  type: 'object',
  properties: {
    ok: { type: 'boolean' },
    verdict,
    strict: { type: 'boolean' },
    at: { type: 'string' },
    settings: {
      type: 'object',
      properties: { graceMs: { type: 'integer' }, slowMs: { type: 'integer' }, pollWindowMs: { type: 'integer' }, pollMax: { type: 'integer' } },
      required: ['graceMs', 'slowMs', 'pollWindowMs', 'pollMax'],
      additionalProperties: false,
    },
    totals: {
      type: 'object',
      properties: {
        payments: { type: 'integer' },
        passed: { type: 'integer' },
        fail: { type: 'integer' },
        warn: { type: 'integer' },
        info: { type: 'integer' },
        waiting: { type: 'integer' },
      },
      required: ['payments', 'passed', 'fail', 'warn', 'info', 'waiting'],
      additionalProperties: false,
    },
    counts: { type: 'object', additionalProperties: { type: 'integer' } },
    checks: {
      type: 'array',
      items: {
        type: 'object',
        properties: { id: { type: 'string' }, level, title: { type: 'string' }, advice: { type: 'string' } },
        required: ['id', 'level', 'title', 'advice'],
        additionalProperties: false,
      },
    },
    payments: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          trackId: { type: 'string' },
          merchant: { type: 'string' },
          status: { type: 'string' },
          verdict,
          findings: {
            type: 'array',
            items: {
              type: 'object',
              properties: { check: { type: 'string' }, level, reason: { type: 'string' }, deliveryId: { type: 'string' }, at: { type: 'string' } },
              required: ['check', 'level', 'reason'],
              additionalProperties: false,
            },
          },
        },
        required: ['trackId', 'merchant', 'status', 'verdict', 'findings'],
        additionalProperties: false,
      },
    },
  },
  required: ['ok', 'verdict', 'strict', 'at', 'settings', 'totals', 'counts', 'checks', 'payments'],
  additionalProperties: false,
} as const

export interface AuditQuery {
  merchant?: string
  trackId?: string
  since?: string
  strict: boolean
  ignore?: string
}

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
  return audit({
    payments,
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
  return async function (app: FastifyInstance): Promise<void> {
    app.get<{ Querystring: AuditQuery }>(
      '/_sandbox/audit',
      {
        schema: {
          tags: ['Lab'],
          summary: 'A verdict on the merchant integration the sandbox observed: callbacks, answers, verify calls',
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
