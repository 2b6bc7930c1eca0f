import { html, type SafeHtml } from '../pages/html.js'
import { layout } from '../pages/layout.js'

/** The parts of an OpenAPI 3.1 document the page reads. */
export interface OpenApiDocument {
  info: { title: string; version: string; description?: string }
  tags?: Array<{ name: string; description?: string }>
  paths: Record<string, Record<string, Operation>>
  components?: { schemas?: Record<string, Schema> }
}

interface Operation {
  tags?: string[]
  summary?: string
  description?: string
  parameters?: Array<{ name: string; in: string; required?: boolean; description?: string; schema?: Schema }>
  requestBody?: { content?: Record<string, { schema?: Schema }> }
  responses?: Record<string, { description?: string; content?: Record<string, { schema?: Schema }> }>
}

type Schema = Record<string, unknown>

/** The page's own CSS, after the shared stylesheet. */
export const DOCS_STYLES = `
.op{border-top:1px solid #d0d4db;padding-top:1rem;margin-top:1rem}
.op h3{font-size:1rem;margin:0 0 .5rem;overflow-wrap:anywhere}
.verb{display:inline-block;min-width:3.5rem;font-weight:700}
.doc table{border-collapse:collapse;margin:.25rem 0 .75rem;font-size:.9rem}
.doc th,.doc td{border:1px solid #d0d4db;padding:.25rem .5rem;text-align:left;vertical-align:top}
.doc h4{font-size:.95rem;margin:.75rem 0 .25rem}
nav.toc ul{margin:0;padding-left:1.25rem}
`

/** A reference page of the document: operations by tag with their parameters, bodies and answers; then the records. */
export function docsPage(doc: OpenApiDocument): string {
  const operations = Object.entries(doc.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, op]) => ({ path, method: method.toUpperCase(), op, tag: op.tags?.[0] ?? 'Other' })),
  )
  const tags = [...(doc.tags ?? []), ...[...new Set(operations.map((o) => o.tag))].filter((t) => !doc.tags?.some((d) => d.name === t)).map((name): { name: string; description?: string } => ({ name }))]
  const schemas = doc.components?.schemas ?? {}
  const body = html`<div class="doc">
<h1>${doc.info.title} API reference <span class="muted">v${doc.info.version}</span></h1>
<p class="muted">Made from the routes' own schemas. As a file: <a href="/openapi.json"><code>/openapi.json</code></a> (OpenAPI 3.1), for code generators and API tools. Back to the <a href="/">inspector</a>.</p>
<nav class="toc card" aria-label="Contents"><ul>
${tags.map((t) => html`<li><a href="#tag-${slug(t.name)}">${t.name}</a></li>`)}
<li><a href="#records">Records</a></li>
</ul></nav>
${markdown(doc.info.description ?? '')}
${tags.map(
  (t) => html`<section class="card" aria-labelledby="tag-${slug(t.name)}">
<h2 id="tag-${slug(t.name)}">${t.name}</h2>
${markdown(t.description ?? '')}
${operations.filter((o) => o.tag === t.name).map((o) => operation(o.method, o.path, o.op))}
</section>`,
)}
<section class="card" aria-labelledby="records">
<h2 id="records">Records</h2>
${Object.entries(schemas).map(([name, schema]) => html`<div class="op"><h3 id="schema-${slug(name)}">${name}</h3>${schema.description ? html`<p>${String(schema.description)}</p>` : ''}${fieldsTable(schema)}</div>`)}
</section>
</div>`
  return layout({ title: 'API reference', body, wide: true, styles: DOCS_STYLES })
}

function operation(method: string, path: string, op: Operation): SafeHtml {
  const params = op.parameters ?? []
  const bodySchema = Object.values(op.requestBody?.content ?? {})[0]?.schema
  return html`<div class="op">
<h3 id="${slug(`${method} ${path}`)}"><span class="verb">${method}</span> <code>${path}</code>${op.summary ? html` — ${op.summary}` : ''}</h3>
${markdown(op.description ?? '')}
${
  params.length > 0
    ? html`<h4>Parameters</h4><table><thead><tr><th scope="col">Name</th><th scope="col">In</th><th scope="col">Type</th><th scope="col">About</th></tr></thead><tbody>${params.map(
        (p) => html`<tr><td><code>${p.name}</code>${p.required ? ' (required)' : ''}</td><td>${p.in}</td><td>${typeOf(p.schema ?? {})}</td><td>${p.description ?? String(p.schema?.description ?? '')}${constraints(p.schema ?? {})}</td></tr>`,
      )}</tbody></table>`
    : ''
}
${bodySchema ? html`<h4>Body</h4>${fieldsTable(bodySchema)}` : ''}
<h4>Answers</h4>
<table><thead><tr><th scope="col">HTTP</th><th scope="col">What</th></tr></thead><tbody>
${Object.entries(op.responses ?? {}).map(([status, r]) => {
  const [type, content] = Object.entries(r.content ?? {})[0] ?? []
  return html`<tr><td>${status}</td><td>${markdown(r.description ?? '', true)}${type && type !== 'application/json' ? html` <span class="muted">(${type})</span>` : ''}${content?.schema ? shape(content.schema) : ''}</td></tr>`
})}
</tbody></table>
</div>`
}

/** A schema in a table cell: a link to its record, its alternatives, or its fields. */
function shape(schema: Schema): SafeHtml {
  if (typeof schema.$ref === 'string') return html` ${typeOf(schema)}`
  const alternatives = (schema.oneOf ?? schema.anyOf) as Schema[] | undefined
  if (alternatives) return html`<ul>${alternatives.map((a) => html`<li>${a.description ? html`${String(a.description)}: ` : ''}${shape(a)}</li>`)}</ul>`
  if (schema.type === 'object' && schema.properties) return fieldsTable(schema)
  if (schema.type === 'string' || schema.type === undefined) return html``
  return html` ${typeOf(schema)}`
}

function fieldsTable(schema: Schema): SafeHtml {
  const alternatives = (schema.oneOf ?? schema.anyOf) as Schema[] | undefined
  if (alternatives) return shape(schema)
  const properties = Object.entries((schema.properties ?? {}) as Record<string, Schema>)
  if (properties.length === 0) return html`<p>${typeOf(schema)}${schema.additionalProperties === false ? ' with no fields' : ''}</p>`
  const required = new Set((schema.required ?? []) as string[])
  return html`<table><thead><tr><th scope="col">Field</th><th scope="col">Type</th><th scope="col">About</th></tr></thead><tbody>${properties.map(
    ([name, p]) => html`<tr><td><code>${name}</code>${required.has(name) ? ' (required)' : ''}</td><td>${typeOf(p)}</td><td>${String(p.description ?? '')}${constraints(p)}</td></tr>`,
  )}</tbody></table>`
}

/** `string`, `integer`, a link to a record, `array of Payment`, `"paid" | "failed"`. */
function typeOf(schema: Schema): SafeHtml {
  if (typeof schema.$ref === 'string') {
    const name = schema.$ref.split('/').at(-1) ?? schema.$ref
    return html`<a href="#schema-${slug(name)}">${name}</a>`
  }
  if (schema.const !== undefined) return html`<code>${JSON.stringify(schema.const)}</code>`
  if (Array.isArray(schema.enum)) return html`${schema.enum.map((v, i) => html`${i > 0 ? ' | ' : ''}<code>${JSON.stringify(v)}</code>`)}`
  if (schema.type === 'array') return html`array of ${typeOf((schema.items ?? {}) as Schema)}`
  const alternatives = (schema.oneOf ?? schema.anyOf) as Schema[] | undefined
  if (alternatives) return html`${alternatives.map((a, i) => html`${i > 0 ? ' or ' : ''}${typeOf(a)}`)}`
  return html`${Array.isArray(schema.type) ? schema.type.join(' | ') : String(schema.type ?? 'any')}`
}

const LIMIT_WORDS: Array<[string, string]> = [
  ['minimum', 'at least'],
  ['maximum', 'at most'],
  ['minLength', 'at least %s characters'],
  ['maxLength', 'at most %s characters'],
  ['maxItems', 'at most %s entries'],
  ['default', 'default'],
]

function constraints(schema: Schema): SafeHtml {
  const said = LIMIT_WORDS.filter(([key]) => schema[key] !== undefined).map(([key, words]) =>
    words.includes('%s') ? words.replace('%s', String(schema[key])) : `${words} ${JSON.stringify(schema[key])}`,
  )
  return said.length > 0 ? html` <span class="muted">(${said.join(', ')})</span>` : html``
}

/**
 * The Markdown the document's descriptions use: paragraphs, `## ` headings, tables and `- ` lists, with `code`
 * and **bold** inside. Everything is escaped first; only these become markup.
 */
export function markdown(text: string, inlineOnly = false): SafeHtml {
  if (inlineOnly) return inline(text)
  const blocks = text.split(/\n{2,}/).filter((b) => b.trim() !== '')
  return html`${blocks.map((block) => {
    const lines = block.split('\n')
    if (block.startsWith('## ')) return html`<h3>${inline(block.slice(3))}</h3>`
    if (lines.every((l) => l.startsWith('|'))) return mdTable(lines)
    if (lines.every((l) => l.startsWith('- '))) return html`<ul>${lines.map((l) => html`<li>${inline(l.slice(2))}</li>`)}</ul>`
    return html`<p>${inline(block)}</p>`
  })}`
}

function mdTable(lines: string[]): SafeHtml {
  const cells = (l: string) => l.replace(/^\||\|$/g, '').split('|').map((c) => c.trim())
  const [head = '', , ...rows] = lines
  return html`<table><thead><tr>${cells(head).map((c) => html`<th scope="col">${inline(c)}</th>`)}</tr></thead><tbody>${rows.map(
    (r) => html`<tr>${cells(r).map((c) => html`<td>${inline(c)}</td>`)}</tr>`,
  )}</tbody></table>`
}

/** `code` and **bold**, the rest as text. */
function inline(text: string): SafeHtml {
  const parts = text.split(/(`[^`]*`|\*\*[^*]+\*\*)/)
  return html`${parts.map((p) =>
    p.startsWith('`') && p.endsWith('`') && p.length > 1 ? html`<code>${p.slice(1, -1)}</code>` : p.startsWith('**') && p.endsWith('**') && p.length > 4 ? html`<strong>${p.slice(2, -2)}</strong>` : p,
  )}`
}

function slug(text: string): string {
  return text.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '')
}
