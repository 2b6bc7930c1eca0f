/** The audit route's schemas: its query, and the report it answers (rules.ts makes it; checked against it here). */

import type { Agree, Answer, Check, Received, Sent } from '../http/wire.js'
import { paymentStatuses } from '../domain/payment.js'
import { type AuditReport, CHECK_IDS, type CheckId } from './rules.js'

export const auditQuery = {
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
/** The audit's query once checked: `strict` is filled in. */
export type AuditQuery = Received<typeof auditQuery>
/** The audit's query as a client sends it. */
export type AuditRequest = Sent<typeof auditQuery>

const level = { type: 'string', enum: ['fail', 'warn', 'info'] } as const
const verdict = { type: 'string', enum: ['pass', 'warn', 'fail'] } as const
const checkId = { type: 'string', enum: CHECK_IDS } as const
const findings = {
  type: 'array',
  items: {
    type: 'object',
    properties: { check: checkId, level, reason: { type: 'string' }, deliveryId: { type: 'string' }, at: { type: 'string' } },
    required: ['check', 'level', 'reason'],
    additionalProperties: false,
  },
} as const

export const reportSchema = {
  type: 'object',
  properties: {
    ok: { type: 'boolean' },
    verdict,
    strict: { type: 'boolean' },
    at: { type: 'string' },
    settings: {
      type: 'object',
      properties: {
        graceMs: { type: 'integer' },
        slowMs: { type: 'integer' },
        pollWindowMs: { type: 'integer' },
        pollMax: { type: 'integer' },
        clientTimeoutMs: { type: 'integer', description: 'a held request kept open longer than this by the client: no-client-timeout' },
        retryMinMs: { type: 'integer', description: 'a failed call retried sooner than this after its answer: retry-too-soon' },
        stormWindowMs: { type: 'integer' },
        stormMax: { type: 'integer', description: 'more retries of a failed call than this within stormWindowMs: retry-storm' },
      },
      required: ['graceMs', 'slowMs', 'pollWindowMs', 'pollMax', 'clientTimeoutMs', 'retryMinMs', 'stormWindowMs', 'stormMax'],
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
    counts: {
      type: 'object',
      description: 'how many times each check was found',
      properties: Object.fromEntries(CHECK_IDS.map((id) => [id, { type: 'integer' }])) as { [K in CheckId]: { type: 'integer' } },
      additionalProperties: false,
    },
    checks: {
      type: 'array',
      items: {
        type: 'object',
        properties: { id: checkId, level, title: { type: 'string' }, advice: { type: 'string' } },
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
          status: { type: 'string', enum: paymentStatuses },
          verdict,
          findings,
        },
        required: ['trackId', 'merchant', 'status', 'verdict', 'findings'],
        additionalProperties: false,
      },
    },
    creates: {
      type: 'array',
      description: "merchants whose creates have findings (API faults: retries, timeouts), which hang on no payment of their own",
      items: {
        type: 'object',
        properties: { merchant: { type: 'string', description: 'the key sent, or the start of an unknown one' }, verdict, findings },
        required: ['merchant', 'verdict', 'findings'],
        additionalProperties: false,
      },
    },
  },
  required: ['ok', 'verdict', 'strict', 'at', 'settings', 'totals', 'counts', 'checks', 'payments', 'creates'],
  additionalProperties: false,
} as const
type _AuditReport = Check<Agree<Answer<typeof reportSchema>, AuditReport>>
