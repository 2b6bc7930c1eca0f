/**
 * The trackId in a checkout URL `<anything>/pay/<trackId>`, with or without a trailing slash, query or fragment;
 * percent-encoding is decoded. Undefined when the text is not such a URL. Pure.
 */
export function checkoutTrackId(url: string): string | undefined {
  const path = url.replace(/[?#][\s\S]*$/, '')
  const encoded = /\/pay\/([^/]+)\/?$/.exec(path)?.[1]
  if (encoded === undefined) return undefined
  try {
    return decodeURIComponent(encoded)
  } catch {
    return undefined
  }
}

/** Longest public URL: a checkout URL under it stays far below the 512 characters a URL may have. */
const PUBLIC_URL_MAX = 200

/**
 * `--public-url`: where customers and bots reach the sandbox (a tunnel, a LAN name), under which it hands out
 * checkout URLs. An absolute http(s) URL with a host, and maybe a path a proxy maps to the sandbox's root; no
 * credentials, query or fragment. Its trailing slashes are dropped. Pure.
 */
export function parsePublicUrl(text: string): { url: string; host: string } | { problem: string } {
  const rule = `must be an http:// or https:// URL with a host, without credentials, query or fragment, e.g. https://pay-dev.example.test (got ${JSON.stringify(text.length > 80 ? `${text.slice(0, 79)}…` : text)})`
  let url: URL
  try {
    url = new URL(text)
  } catch {
    return { problem: rule }
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.hostname === '' || url.username !== '' || url.password !== '') return { problem: rule }
  if (url.search !== '' || url.hash !== '' || /[?#]/.test(text) || /\s/.test(text)) return { problem: rule }
  const shown = `${url.origin}${url.pathname}`.replace(/\/+$/, '')
  if (shown.length > PUBLIC_URL_MAX) return { problem: `must be at most ${PUBLIC_URL_MAX} characters (got ${shown.length})` }
  return { url: shown, host: url.hostname.replace(/^\[|\]$/g, '').toLowerCase() }
}
