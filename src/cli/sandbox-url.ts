import { DEFAULT_URL } from '../client/index.js'
import { brief } from '../domain/brief.js'
import { usage } from './usage.js'

/**
 * The base URL of a sandbox as given by `source` (`--url`, or the variable PAY_SANDBOX_URL): plain http (the
 * sandbox serves no TLS) and nothing after the port, which the client would otherwise drop without a word.
 */
export function sandboxUrl(text: string, source: string): URL {
  let url: URL | undefined
  try {
    url = new URL(text)
  } catch {
    url = undefined
  }
  if (!url || url.protocol !== 'http:' || url.pathname !== '/' || url.search !== '' || url.hash !== '') {
    throw usage(`${source} must be the http:// address of a sandbox, with no path, e.g. ${DEFAULT_URL} (got ${brief(text)})`)
  }
  return url
}

/**
 * Where `pay sandbox start` listens: --host / --port (or PAY_SANDBOX_HOST / PAY_SANDBOX_PORT, which oclif already
 * put in `given`), else the host and port of PAY_SANDBOX_URL, so the commands that read it find the sandbox,
 * else those of the default URL.
 */
export function listenAddress(given: { host?: string | undefined; port?: number | undefined }, envUrl: string | undefined): { host: string; port: number } {
  if (given.host !== undefined && given.port !== undefined) return { host: given.host, port: given.port }
  const fallback = envUrl !== undefined && envUrl !== '' ? sandboxUrl(envUrl, 'PAY_SANDBOX_URL') : new URL(DEFAULT_URL)
  return {
    host: given.host ?? fallback.hostname.replace(/^\[(.*)\]$/, '$1'),
    port: given.port ?? Number(fallback.port || 80),
  }
}
