import { createHash } from 'node:crypto'
import { checkoutScript } from './browser.js'
import { html, raw, type SafeHtml } from './html.js'
import { STYLES } from './styles.js'

export const CHECKOUT_SCRIPT = `(${checkoutScript.toString()})()`

const hash = (text: string): string => `'sha256-${createHash('sha256').update(text).digest('base64')}'`

/**
 * The pages allow only their own inline style and script (by hash), requests to this server, and no
 * framing: even if escaping were ever missed, injected markup could not run script.
 */
export function contentSecurityPolicy(withScript: boolean): string {
  return [
    "default-src 'none'",
    `style-src ${hash(STYLES)}`,
    `script-src ${withScript ? hash(CHECKOUT_SCRIPT) : "'none'"}`,
    "connect-src 'self'",
    "img-src 'self' data:",
    "form-action 'self'",
    "base-uri 'none'",
    "frame-ancestors 'none'",
  ].join('; ')
}

/** Headers every HTML page is sent with. */
export function pageHeaders(withScript: boolean): Record<string, string> {
  return {
    'content-type': 'text/html; charset=utf-8',
    'content-security-policy': contentSecurityPolicy(withScript),
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
    'cache-control': 'no-store',
  }
}

export interface LayoutInput {
  title: string
  body: SafeHtml
  wide?: boolean
  script?: boolean
}

export function layout(input: LayoutInput): string {
  return `<!doctype html>\n${html`<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<link rel="icon" href="/favicon.ico" type="image/svg+xml">
<title>${input.title} · SANDBOX</title>
<style>${raw(STYLES)}</style>
</head>
<body>
<div class="banner" role="note"><strong>SANDBOX</strong>Test payments only — no real money moves and every address on this page is fake.</div>
<main${raw(input.wide ? ' class="wide"' : '')}>
${input.body}
</main>
${input.script ? html`<script>${raw(CHECKOUT_SCRIPT)}</script>` : ''}
</body>
</html>`.value}\n`
}
