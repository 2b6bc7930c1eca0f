import type { FastifyTypeProvider } from 'fastify'
import type { FromSchema, JSONSchema } from 'json-schema-to-ts'
import type { Answer } from './wire.js'

/**
 * Fastify's type provider for every plugin (`app.withTypeProvider<WireProvider>()`): a route's params, query and
 * body are typed by its schemas, with Ajv's defaults filled in, and what a handler answers is checked against
 * its response schemas, read as `Answer` (records and error shapes by their types, open objects as their named
 * fields). @fastify/type-provider-json-schema-to-ts is these lines with answers read as plain FromSchema, whose
 * open objects carry an index signature that no interface meets.
 */
export interface WireProvider extends FastifyTypeProvider {
  validator: this['schema'] extends JSONSchema ? FromSchema<this['schema']> : unknown
  serializer: this['schema'] extends JSONSchema ? Answer<this['schema']> : unknown
}
