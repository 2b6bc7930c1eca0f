/** A PostgreSQL connection URL that `--store` takes, checked; its password is never shown. */
export interface StoreUrl {
  /** The URL as given (with its password): for connecting only, never for display. */
  url: string
  /** The URL with the password written as `***`: what messages, health and status show. */
  shown: string
}

const SCHEMES = new Set(['postgres:', 'postgresql:'])

/** Reads a `--store` URL: `postgres://user:password@host:5432/database`; a problem in words when it is not one. */
export function parseStoreUrl(text: string): StoreUrl | { problem: string } {
  let url: URL
  try {
    url = new URL(text)
  } catch {
    return { problem: `must be a PostgreSQL URL such as postgres://user:password@localhost:5432/pay (got ${JSON.stringify(maskedText(text))})` }
  }
  if (!SCHEMES.has(url.protocol)) {
    return { problem: `must be a PostgreSQL URL starting postgres:// or postgresql:// (got ${JSON.stringify(maskStoreUrl(text))})` }
  }
  if (url.hostname === '' && !url.searchParams.has('host')) {
    return { problem: `names no host: postgres://user:password@localhost:5432/pay (got ${JSON.stringify(maskStoreUrl(text))})` }
  }
  return { url: text, shown: maskStoreUrl(text) }
}

/** `postgres://user:***@host:5432/db`: the password (in the userinfo or a `password` parameter) masked. */
export function maskStoreUrl(text: string): string {
  let url: URL
  try {
    url = new URL(text)
  } catch {
    return maskedText(text)
  }
  if (url.password !== '') url.password = '***'
  if (url.searchParams.has('password')) url.searchParams.set('password', '***')
  return url.toString().replace('%2A%2A%2A', '***')
}

/** Text that is not a URL: anything between `://` and `@` could be a password. */
function maskedText(text: string): string {
  return text.replace(/(:\/\/[^:/@]*:)[^@]*@/, '$1***@')
}
