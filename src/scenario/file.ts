import type { FromSchema, JSONSchema } from 'json-schema-to-ts'
import type { scenarioSchema, stepSchemas, StepKind } from './schema.js'

/* The shape of a scenario file, derived from the schema: what Ajv accepted has this type. */

type Options = { keepDefaultedPropertiesOptional: true }

/** A scenario file as the schema accepts it. */
export type ScenarioFile = FromSchema<typeof scenarioSchema, Options>
/** A step of one kind as the schema accepts it. */
export type StepFile<K extends StepKind> = FromSchema<(typeof stepSchemas)[K], Options>
/** A part of a step as the runner reads it: as the schema accepts it, with the schema's defaults filled in. */
export type Read<S extends JSONSchema> = FromSchema<S>
