/**
 * HTML built with a tagged template that escapes every interpolated value unless it is already `SafeHtml`.
 * Merchant input (names, descriptions, URLs) can only reach a page through here, so it is always escaped.
 */
export class SafeHtml {
  readonly value: string
  constructor(value: string) {
    this.value = value
  }
  toString(): string {
    return this.value
  }
}

export type HtmlValue = SafeHtml | string | number | boolean | null | undefined | readonly HtmlValue[]

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }

/** Escapes text for element content and quoted attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ENTITIES[c]!)
}

function render(value: HtmlValue): string {
  if (value instanceof SafeHtml) return value.value
  if (Array.isArray(value)) return value.map(render).join('')
  if (value === null || value === undefined || value === false || value === true) return ''
  return escapeHtml(String(value))
}

export function html(strings: TemplateStringsArray, ...values: HtmlValue[]): SafeHtml {
  let out = strings[0] ?? ''
  for (let i = 0; i < values.length; i++) out += render(values[i]!) + (strings[i + 1] ?? '')
  return new SafeHtml(out)
}

/** Marks trusted markup (our own CSS, scripts, server-made SVG) as safe. */
export function raw(markup: string): SafeHtml {
  return new SafeHtml(markup)
}
