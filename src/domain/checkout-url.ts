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
