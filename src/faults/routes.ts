import type { FastifyInstance } from 'fastify'
import { faultRuleFields, faultRuleInputSchema, FAULT_RULE_REQUIRED } from '../domain/api-fault.js'
import { emptyBody, json, noQuery, replies } from '../http/schemas.js'
import type { FaultService } from './service.js'

const tags = ['Lab']

/** A rule as the control API answers it. */
const faultRule = {
  type: 'object',
  description: 'a fault rule: its route, its fault, its scope, and what it has done so far',
  properties: { ...faultRuleFields, createdAt: { type: 'string', description: 'sandbox time' } },
  required: [...FAULT_RULE_REQUIRED],
  additionalProperties: false,
} as const

const ruleParams = {
  type: 'object',
  properties: { id: { type: 'string', minLength: 1, maxLength: 100, description: 'the rule\'s id, flt_…' } },
  required: ['id'],
} as const

/** The control API of the API fault rules, under /_sandbox/faults. */
export function faultRoutes(faults: FaultService) {
  return async function (app: FastifyInstance): Promise<void> {
    app.post<{ Body: Record<string, unknown> }>(
      '/_sandbox/faults',
      {
        schema: {
          tags,
          summary: 'Add a fault rule: the next matching create, verify or checkout requests get its fault',
          body: faultRuleInputSchema,
          response: replies('POST', { 201: json('added', { type: 'object', properties: { fault: faultRule }, required: ['fault'] }) }, ['invalidBody', 'invalidField', 'storageUnavailable']),
        },
      },
      async (request, reply) => reply.code(201).send({ fault: await faults.add(request.body) }),
    )

    app.get(
      '/_sandbox/faults',
      {
        schema: {
          tags,
          summary: 'The fault rules, oldest first, with what each has done',
          querystring: noQuery,
          response: replies('GET', { 200: json('the rules', { type: 'object', properties: { faults: { type: 'array', items: faultRule } }, required: ['faults'] }) }, ['invalidBody']),
        },
      },
      async () => ({ faults: faults.list() }),
    )

    app.delete(
      '/_sandbox/faults',
      {
        schema: {
          tags,
          summary: 'Remove every fault rule',
          body: emptyBody,
          response: replies('DELETE', { 200: json('the rules removed', { type: 'object', properties: { cleared: { type: 'array', items: faultRule } }, required: ['cleared'] }) }, ['invalidBody', 'storageUnavailable']),
        },
      },
      async () => ({ cleared: await faults.clear() }),
    )

    app.delete<{ Params: { id: string } }>(
      '/_sandbox/faults/:id',
      {
        schema: {
          tags,
          summary: 'Remove one fault rule',
          params: ruleParams,
          body: emptyBody,
          response: replies('DELETE', { 200: json('the rule removed', { type: 'object', properties: { fault: faultRule }, required: ['fault'] }) }, ['invalidBody', 'notFound', 'storageUnavailable']),
        },
      },
      async (request) => ({ fault: await faults.remove(request.params.id) }),
    )
  }
}
