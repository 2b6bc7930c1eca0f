import { isIP, isIPv4, isIPv6 } from 'node:net'
import type { RequestErrorKind } from './outcomes.js'

/**
 * Who may reach the sandbox: rules on the Host, Origin, Sec-Fetch-Site and Content-Type headers, without HTTP.
 *
 * A web page the developer visits must not read or change the sandbox. DNS rebinding makes such a page
 * same-origin with the sandbox under the attacker's name, so the Host must be a name that cannot be rebound
 * (an IP literal, localhost) or one the developer named. Cross-site requests that need no CORS preflight (a
 * form, `sendBeacon`, `fetch` with `no-cors`) can send only text/plain, form or multipart bodies, so every
 * state-changing request must say `application/json`: a browser then preflights it, and the sandbox never
 * grants a preflight.
 *
 * A change is refused too when the browser marks it as sent by another site (Sec-Fetch-Site), or when its Origin
 * is not the origin it was sent to (same host, same port as the Host): a browser without Sec-Fetch-Site still
 * sends Origin on every POST, and an IP-literal or localhost Origin is another page all the same.
 *
 * The Bot API emulator (`/telegram/`) takes forms and multipart bodies as Telegram does, so it is exempt from the
 * JSON rule. Any well-formed token works there, so a page could otherwise make a bot of its own and post into
 * the chat page. Browsers mark every request a page sends to another site with Origin or Sec-Fetch-Site
 * (loopback addresses count as secure, so they get both), and bots send neither: such requests are refused,
 * GETs included.
 */

/** Host names the developer allowed besides IP literals and localhost; `all` turns the Host check off. */
export type AllowedHosts = readonly string[] | 'all'

export const ALLOWED_HOSTS_FLAG = '--allowed-hosts'
export const ALLOWED_HOSTS_ENV = 'PAY_SANDBOX_ALLOWED_HOSTS'

const NAME = /^[a-z0-9_-]+(?:\.[a-z0-9_-]+)*$/

/** The host name of a Host header (`name[:port]`, `[v6]:port`), lower-cased; an IP literal gives `ip`. */
export function hostOf(header: string): { ip: true } | { ip: false; name: string } | undefined {
  let name: string
  let rest: string
  if (header.startsWith('[')) {
    const end = header.indexOf(']')
    if (end < 0 || !isIPv6(header.slice(1, end))) return undefined
    return /^(?::\d{0,5})?$/.test(header.slice(end + 1)) ? { ip: true } : undefined
  }
  const colon = header.indexOf(':')
  if (colon < 0) {
    name = header
    rest = ''
  } else {
    name = header.slice(0, colon)
    rest = header.slice(colon)
  }
  if (rest !== '' && !/^:\d{0,5}$/.test(rest)) return undefined
  if (isIPv4(name)) return { ip: true }
  name = name.toLowerCase()
  return NAME.test(name) ? { ip: false, name } : undefined
}

/** localhost and *.localhost always resolve to loopback (RFC 6761); other names only when allowed. */
export function isNameAllowed(name: string, allowed: AllowedHosts): boolean {
  if (allowed === 'all' || name === 'localhost' || name.endsWith('.localhost')) return true
  for (const entry of allowed) {
    if (entry === name) return true
    // `.example.test` allows example.test and every name under it.
    if (entry.startsWith('.') && (name.endsWith(entry) || name === entry.slice(1))) return true
  }
  return false
}

/**
 * Checks `--allowed-hosts` entries: host names (a leading dot takes in subdomains), or the single word `all`.
 * IP literals are allowed anyway and are accepted and dropped.
 */
export function parseAllowedHosts(entries: readonly string[]): { hosts: AllowedHosts } | { error: string } {
  const list = entries.map((e) => e.trim().toLowerCase()).filter((e) => e !== '')
  if (list.includes('all') || list.includes('true')) {
    return list.length === 1 ? { hosts: 'all' } : { error: `${ALLOWED_HOSTS_FLAG} all cannot be combined with host names` }
  }
  const hosts: string[] = []
  for (const entry of list) {
    const bare = entry.startsWith('[') && entry.endsWith(']') ? entry.slice(1, -1) : entry
    if (isIP(bare) !== 0) continue
    if (!NAME.test(entry.startsWith('.') ? entry.slice(1) : entry)) {
      const hint = entry.startsWith('*.')
        ? `write ${entry.slice(1)} to allow a domain and its subdomains`
        : 'give a host name without scheme, port or path, e.g. sandbox or .example.test (a domain and its subdomains), or all'
      return { error: `${ALLOWED_HOSTS_FLAG}: "${entry}" is not a host name; ${hint}` }
    }
    if (!hosts.includes(entry)) hosts.push(entry)
  }
  return { hosts }
}

/** The `--allowed-hosts` value that gives these hosts again; undefined for none. */
export function allowedHostsFlag(hosts: AllowedHosts): string | undefined {
  if (hosts === 'all') return 'all'
  return hosts.length > 0 ? hosts.join(',') : undefined
}

/** The headers and route facts the guard judges; header values as Node gives them (undefined when absent). */
export interface GuardInput {
  method: string
  host: string | undefined
  origin: string | undefined
  secFetchSite: string | undefined
  contentType: string | undefined
  /** The route takes a JSON body and is not the spec API (which answers 415 by itself). */
  wantsJson: boolean
  /**
   * Even a GET may change something (the Bot API emulator: Telegram takes every method by GET too), so the
   * cross-site rule applies to every method.
   */
  getChanges?: boolean
}

export interface Refusal {
  kind: Extract<RequestErrorKind, 'hostNotAllowed' | 'originNotAllowed' | 'crossSiteRequest' | 'unsupportedMediaType'>
  message: string
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS'])

const howToAllow = (name: string): string =>
  `start the sandbox with ${ALLOWED_HOSTS_FLAG} ${name} (or ${ALLOWED_HOSTS_ENV}) to allow it`

/** Why a request is refused, or undefined when it may go on. */
export function judgeRequest(input: GuardInput, allowed: AllowedHosts): Refusal | undefined {
  const hostRefusal = judgeHost(input.host, allowed)
  if (hostRefusal) return hostRefusal
  if (input.origin !== undefined) {
    const originRefusal = judgeOrigin(input.origin, allowed)
    if (originRefusal) return originRefusal
  }
  if (SAFE_METHODS.has(input.method) && !(input.getChanges && input.method !== 'OPTIONS')) return undefined
  const site = input.secFetchSite
  if (site === 'cross-site' || site === 'same-site') {
    return {
      kind: 'crossSiteRequest',
      message: `Sec-Fetch-Site "${site}": a page of another origin may not change the sandbox; use the pay CLI, SandboxClient or the sandbox's own pages`,
    }
  }
  if (input.origin !== undefined && !isSameOrigin(input.origin, input.host!)) {
    return {
      kind: 'crossSiteRequest',
      message: `Origin "${input.origin}" is not the origin this request was sent to (Host "${input.host}"): a page of another origin may not change the sandbox; use the pay CLI, SandboxClient or the sandbox's own pages`,
    }
  }
  if (input.wantsJson && !isJson(input.contentType)) {
    const got = input.contentType === undefined || input.contentType === '' ? 'none' : input.contentType
    return {
      kind: 'unsupportedMediaType',
      message: `Content-Type must be application/json (got ${got}); every ${input.method} to the sandbox needs it, even without a body (an empty body reads as {})`,
    }
  }
  return undefined
}

function judgeHost(header: string | undefined, allowed: AllowedHosts): Refusal | undefined {
  if (header === undefined || header === '') {
    return { kind: 'hostNotAllowed', message: 'the Host header is missing; the sandbox answers only requests that name it (HTTP/1.1 does)' }
  }
  if (allowed === 'all') return undefined
  const host = hostOf(header)
  if (host === undefined) return { kind: 'hostNotAllowed', message: `Host "${header}" is not a valid host[:port]` }
  if (host.ip || isNameAllowed(host.name, allowed)) return undefined
  return { kind: 'hostNotAllowed', message: `Host "${header}" is not allowed; ${howToAllow(host.name)}` }
}

function judgeOrigin(origin: string, allowed: AllowedHosts): Refusal | undefined {
  if (origin === 'null') {
    return {
      kind: 'originNotAllowed',
      message: 'Origin "null" is not allowed: file:// pages and sandboxed frames may not use the sandbox',
    }
  }
  const scheme = /^(https?):\/\/([^/?#]*)$/i.exec(origin)
  const host = scheme && !scheme[2]!.includes('@') ? hostOf(scheme[2]!) : undefined
  if (host === undefined) {
    return { kind: 'originNotAllowed', message: `Origin "${origin}" is not allowed: only http and https pages of allowed hosts may use the sandbox` }
  }
  if (host.ip || isNameAllowed(host.name, allowed)) return undefined
  return { kind: 'originNotAllowed', message: `Origin "${origin}" is not allowed; ${howToAllow(host.name)}` }
}

/**
 * Whether a page of this Origin sent the request to its own origin: the same host (compared as browsers write
 * it: lower case, IPv6 compressed) and port, a Host without a port standing for the Origin scheme's default.
 * `localhost` and `127.0.0.1` are different origins, as are two ports of one host.
 */
export function isSameOrigin(origin: string, host: string): boolean {
  const page = parseUrl(origin)
  const target = parseUrl(`http://${host}`)
  if (!page || !target || !/^https?:$/.test(page.protocol)) return false
  if (page.hostname !== target.hostname) return false
  const pagePort = page.port === '' ? (page.protocol === 'https:' ? '443' : '80') : page.port
  return target.port === '' ? page.port === '' || pagePort === '80' : target.port === pagePort
}

function parseUrl(text: string): URL | undefined {
  try {
    return new URL(text)
  } catch {
    return undefined
  }
}

function isJson(contentType: string | undefined): boolean {
  if (contentType === undefined) return false
  const semi = contentType.indexOf(';')
  return (semi < 0 ? contentType : contentType.slice(0, semi)).trim().toLowerCase() === 'application/json'
}
