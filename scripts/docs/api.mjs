// The HTTP API reference (docs/reference/openapi.md), made from the OpenAPI document a sandbox serves at
// /openapi.json, itself made from the routes' own schemas. `npm run docs` writes it; a test fails when the file is
// not what this makes now from the document the built sandbox serves.

const cell = (text) => String(text).replace(/\s*\n\s*/g, ' ').replaceAll('|', '\\|')
const slug = (text) => text.toLowerCase().replace(/[^a-z0-9 _-]/g, '').replaceAll(' ', '-')

/** `string`, `integer`, a record's name, `array of Payment`, `"paid" \| "failed"`. */
function typeOf(schema) {
  if (typeof schema.$ref === 'string') {
    const name = schema.$ref.split('/').at(-1)
    return `[${name}](#${slug(name)})`
  }
  if (schema.const !== undefined) return `\`${JSON.stringify(schema.const)}\``
  if (Array.isArray(schema.enum)) return schema.enum.map((v) => `\`${JSON.stringify(v)}\``).join(' or ')
  if (schema.type === 'array') return `array of ${typeOf(schema.items ?? {})}`
  const alternatives = schema.oneOf ?? schema.anyOf
  if (alternatives) return alternatives.map(typeOf).join(' or ')
  return Array.isArray(schema.type) ? schema.type.join(' or ') : String(schema.type ?? 'any')
}

const LIMITS = [
  ['minimum', (v) => `at least ${v}`],
  ['maximum', (v) => `at most ${v}`],
  ['minLength', (v) => `at least ${v} characters`],
  ['maxLength', (v) => `at most ${v} characters`],
  ['maxItems', (v) => `at most ${v} entries`],
  ['default', (v) => `default ${JSON.stringify(v)}`],
]
const limits = (schema) => {
  const said = LIMITS.filter(([key]) => schema[key] !== undefined).map(([key, words]) => words(schema[key]))
  return said.length > 0 ? ` (${said.join(', ')})` : ''
}

function fieldsTable(schema) {
  const properties = Object.entries(schema.properties ?? {})
  if (properties.length === 0) return [`${typeOf(schema)}${schema.additionalProperties === false ? ' with no fields' : ''}`]
  const required = new Set(schema.required ?? [])
  return [
    '| Field | Type | About |',
    '| --- | --- | --- |',
    ...properties.map(([name, p]) => `| \`${name}\`${required.has(name) ? ' (required)' : ''} | ${cell(typeOf(p))} | ${cell(`${p.description ?? ''}${limits(p)}`)} |`),
  ]
}

/** An answer's body in a list item: its record, its alternatives, or its fields in one line. */
function shape(schema, depth = 0) {
  const pad = '  '.repeat(depth)
  if (typeof schema.$ref === 'string') return [` ${typeOf(schema)}`]
  const alternatives = schema.oneOf ?? schema.anyOf
  if (alternatives) return ['', ...alternatives.flatMap((a) => [`${pad}  - ${a.description ? `${a.description}:` : ''}${shape(a, depth + 1).join('\n')}`])]
  if (schema.type === 'object' && schema.properties) {
    const required = new Set(schema.required ?? [])
    return [
      ` ${Object.entries(schema.properties)
        .map(([name, p]) => `\`${name}\`${required.has(name) ? '' : '?'} ${typeOf(p)}${p.description ? ` (${p.description.replace(/\s*\n\s*/g, ' ')})` : ''}`)
        .join(', ')}`,
    ]
  }
  if (schema.type === 'string' || schema.type === undefined) return ['']
  return [` ${typeOf(schema)}`]
}

function operation(method, path, op) {
  const out = ['', `### ${method} ${path}`, '']
  if (op.summary) out.push(`${op.summary}.`.replace(/\.\.$/, '.'), '')
  if (op.description) out.push(op.description, '')
  const params = op.parameters ?? []
  if (params.length > 0) {
    out.push('| Parameter | In | Type | About |', '| --- | --- | --- | --- |')
    for (const p of params) out.push(`| \`${p.name}\`${p.required ? ' (required)' : ''} | ${p.in} | ${cell(typeOf(p.schema ?? {}))} | ${cell(`${p.description ?? p.schema?.description ?? ''}${limits(p.schema ?? {})}`)} |`)
    out.push('')
  }
  const body = Object.values(op.requestBody?.content ?? {})[0]?.schema
  if (body) {
    const alternatives = body.oneOf ?? body.anyOf
    out.push('Body:', '')
    if (alternatives) out.push(...shape(body).filter((l) => l !== '').map((l) => l.replace(/^ {2}/, '')), '')
    else out.push(...fieldsTable(body), '')
  }
  out.push('Answers:', '')
  for (const [status, r] of Object.entries(op.responses ?? {})) {
    const [type, content] = Object.entries(r.content ?? {})[0] ?? []
    const described = (r.description ?? '').replace(/\s*\n\s*/g, ' ')
    const media = type && type !== 'application/json' ? ` (${type})` : ''
    const lines = content?.schema ? shape(content.schema) : ['']
    out.push(`- **${status}** ${described}${media}${lines[0] === '' ? '' : `:${lines[0]}`}`, ...lines.slice(1))
  }
  return out
}

/** The whole reference, from an OpenAPI 3.1 document. */
export function apiReference(doc) {
  const operations = Object.entries(doc.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, op]) => ({ path, method: method.toUpperCase(), op, tag: op.tags?.[0] ?? 'Other' })),
  )
  const tags = [...(doc.tags ?? [])]
  for (const tag of new Set(operations.map((o) => o.tag))) if (!tags.some((t) => t.name === tag)) tags.push({ name: tag })
  const out = [
    '# HTTP API reference',
    '',
    '<!-- Generated by `npm run docs` from the OpenAPI document the sandbox serves at /openapi.json; edit the routes\' schemas, not this file. -->',
    '',
    `Every route of the sandbox, from the OpenAPI 3.1 document a running sandbox serves at \`/openapi.json\` (and as a page at \`/docs\`), made from the routes' own schemas. The spec API's rules in words, payment states and the errors the spec has no code for are in [the API guide](api.md).`,
    '',
    ...tags.map((t) => `- [${t.name}](#${slug(t.name)}): ${operations.filter((o) => o.tag === t.name).length} routes`),
    `- [Records](#records)`,
    '',
    doc.info.description ?? '',
  ]
  for (const t of tags) {
    out.push('', `## ${t.name}`, '')
    if (t.description) out.push(t.description)
    for (const o of operations.filter((x) => x.tag === t.name)) out.push(...operation(o.method, o.path, o.op))
  }
  out.push('', '## Records')
  for (const [name, schema] of Object.entries(doc.components?.schemas ?? {})) {
    out.push('', `### ${name}`, '')
    if (schema.description) out.push(schema.description, '')
    const alternatives = schema.oneOf ?? schema.anyOf
    out.push(...(alternatives ? shape(schema).filter((l) => l !== '').map((l) => l.replace(/^ {2}/, '')) : fieldsTable(schema)))
  }
  // Headings in the document's descriptions (`## Result codes`) sit under the page's own.
  return `${out.join('\n').replace(/^## (Result codes|Request errors)$/gm, '### $1').replace(/\n{3,}/g, '\n\n').trimEnd()}\n`
}

/** The document a sandbox of the built package serves. */
export async function servedDocument(root) {
  const { startSandbox } = await import(new URL(`file://${root}/dist/src/index.js`).href)
  const sandbox = await startSandbox({ quiet: true })
  try {
    const answer = await fetch(`${sandbox.url}/openapi.json`)
    if (!answer.ok) throw new Error(`/openapi.json answered ${answer.status}`)
    return await answer.json()
  } finally {
    await sandbox.stop()
  }
}
