import type { FromSchema } from 'json-schema-to-ts'
import type { scenarioSchema, stepSchemas, StepKind } from './schema.js'

/*
 * The shape of a scenario file, derived from the schema: what Ajv accepted has this type. Kept apart from
 * schema.ts so that no public declaration needs json-schema-to-ts.
 */

type Options = { keepDefaultedPropertiesOptional: true }

/** A scenario file as the schema accepts it. */
export type ScenarioFile = FromSchema<typeof scenarioSchema, Options>
/** A step of one kind as the schema accepts it. */
export type StepFile<K extends StepKind> = FromSchema<(typeof stepSchemas)[K], Options>
