/** The HTTP API reference page, from an OpenAPI 3.1 document. */
export function apiReference(doc: unknown): string
/** The OpenAPI document a sandbox of the built package at `root` serves. */
export function servedDocument(root: string): Promise<unknown>
