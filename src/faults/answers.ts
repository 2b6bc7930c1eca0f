import { STATUS_CODES } from 'node:http'
import { html } from '../pages/html.js'
import { layout, pageHeaders } from '../pages/layout.js'

/** The bodies a fault answers with, in place of the real answer. */

/** `service_unavailable` for 503, as the sandbox's own error codes are written; `http_499` for a status without a name. */
export function errorCode(status: number): string {
  const name = STATUS_CODES[status]
  return name ? name.toLowerCase().replace(/[^a-z0-9]+/g, '_').replace(/^_|_$/g, '') : `http_${status}`
}

/** The reason phrase nginx writes in its error pages, which is not always Node's (`Gateway Time-out`). */
const NGINX_TITLES: Readonly<Record<number, string>> = {
  502: 'Bad Gateway',
  503: 'Service Temporarily Unavailable',
  504: 'Gateway Time-out',
}

/** nginx's own error page, byte for byte as it sends it (CRLF line ends), as a merchant meets it in front of an API. */
export function proxyPage(status: number): { headers: Record<string, string>; body: string } {
  const title = `${status} ${NGINX_TITLES[status] ?? STATUS_CODES[status] ?? 'Error'}`
  const body = ['<html>', `<head><title>${title}</title></head>`, '<body>', `<center><h1>${title}</h1></center>`, '<hr><center>nginx</center>', '</body>', '</html>', ''].join('\r\n')
  return { headers: { 'content-type': 'text/html', server: 'nginx' }, body }
}

/**
 * The JSON error of a fault: the shape of the sandbox's own request errors, with `result` (the HTTP status) under
 * /api/v1, as every body there carries one. The message says it is a fault the sandbox played, and which rule.
 */
export function faultError(status: number, rule: string, spec: boolean): Record<string, unknown> {
  const body = { statusCode: status, error: errorCode(status), message: `${STATUS_CODES[status] ?? 'Error'} (a fault the sandbox played: rule ${rule}; pay fault list)` }
  return spec ? { result: status, ...body } : body
}

/** The checkout page's answer to a fault that answers with an error: a page of the sandbox's saying so. */
export function faultPage(status: number, rule: string): { headers: Record<string, string>; body: string } {
  const body = html`<h1>${String(status)} ${STATUS_CODES[status] ?? 'Error'}</h1>
<p>The checkout page is not available right now.</p>
<p class="muted">A fault the sandbox played on this page (rule <code>${rule}</code>); <code>pay fault list</code> shows the rules and <code>pay fault clear</code> removes them.</p>`
  return { headers: pageHeaders(undefined), body: layout({ title: `${status} ${STATUS_CODES[status] ?? 'Error'}`, body }) }
}
