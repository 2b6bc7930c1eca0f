import type { FromSchema, JSONSchema } from 'json-schema-to-ts'
import type { RequestErrorBody, SpecApiErrorBody } from '../domain/outcomes.js'
import type { ExportFile } from '../domain/transfer.js'
import type { Delivery, Merchant, Payment } from '../domain/types.js'

/*
 * The types of what goes over the wire, read from the routes' JSON schemas by json-schema-to-ts: the schema is
 * the one statement of a body, a query or an answer; the server's handlers, the typed client and the OpenAPI
 * document all read it. A type written by hand beside a schema is checked against it with `Agree`.
 */

/**
 * The shapes answers name by `$ref`. The records' schemas are the export file's (src/domain/export-schema.ts),
 * checked field by field against these types there; the error shapes are checked in schemas.ts.
 */
interface Named {
  Merchant: Merchant
  Payment: Payment
  Delivery: Delivery
  ExportFile: ExportFile
  RequestError: RequestErrorBody
  SpecRequestError: SpecApiErrorBody
}
export type RecordName = Exclude<keyof Named, 'RequestError' | 'SpecRequestError'>

type Reference<K extends keyof Named> = { $id: K }
type Deserialized<K extends keyof Named> = { pattern: { $ref: `${K}#` }; output: Named[K] }

/** Answers: each `$ref` to a shared shape reads as its type. */
export type AnswerOptions = {
  references: [Reference<'Merchant'>, Reference<'Payment'>, Reference<'Delivery'>, Reference<'ExportFile'>, Reference<'RequestError'>, Reference<'SpecRequestError'>]
  deserialize: [
    Deserialized<'Merchant'>,
    Deserialized<'Payment'>,
    Deserialized<'Delivery'>,
    Deserialized<'ExportFile'>,
    Deserialized<'RequestError'>,
    Deserialized<'SpecRequestError'>,
  ]
}

/**
 * An object type without the `[x: string]: unknown` json-schema-to-ts adds where a schema leaves
 * `additionalProperties` open: the fields an answer documents, as TypeScript reads an object type anyway.
 */
type Closed<T> = T extends readonly unknown[]
  ? { [I in keyof T]: Closed<T[I]> }
  : T extends object
    ? string extends keyof T
      ? { [K in keyof T as string extends K ? (unknown extends T[K] ? never : K) : K]: Closed<T[K]> }
      : T extends Named[keyof Named]
        ? T
        : { [K in keyof T]: Closed<T[K]> }
    : T

/** What a client sends for this schema: the fields it names; those with a default may be left out. */
export type Sent<S extends JSONSchema> = Closed<FromSchema<S, { keepDefaultedPropertiesOptional: true }>>

/** What a handler gets for this schema once Ajv has checked it: defaults filled in. */
export type Received<S extends JSONSchema> = FromSchema<S>

/** What the sandbox answers for this response schema. */
export type Answer<S extends JSONSchema> = Closed<FromSchema<S, AnswerOptions>>

/**
 * `true` when A and B are the same type (each assignable to the other). `type _ = Agree<A, B> extends true ? …`
 * is spelled `Check<Agree<A, B>>`: a type written by hand that drifts from its schema fails to compile.
 */
export type Agree<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false
export type Check<T extends true> = T
