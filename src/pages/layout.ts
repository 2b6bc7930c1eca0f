import { createHash } from 'node:crypto'
import type { ClockView } from '../clock/sandbox-clock.js'
import { html, raw, type SafeHtml } from './html.js'
import { pageScript, type PageScriptName } from './page-scripts.js'
import { STYLES } from './styles.js'

const hash = (text: string): string => `'sha256-${createHash('sha256').update(text).digest('base64')}'`

/**
 * The pages allow only their own inline style and script (by hash), requests to this server, and no
 * framing: even if escaping were ever missed, injected markup could not run script.
 */
export function contentSecurityPolicy(script: PageScriptName | undefined, extraStyles = ''): string {
  return [
    "default-src 'none'",
    `style-src ${hash(STYLES + extraStyles)}`,
    `script-src ${script !== undefined ? pageScript(script).hash : "'none'"}`,
    "connect-src 'self'",
    "img-src 'self' data:",
    "form-action 'self'",
    "base-uri 'none'",
    "frame-ancestors 'none'",
  ].join('; ')
}

/** Headers every HTML page is sent with. */
export function pageHeaders(script: PageScriptName | undefined, extraStyles = ''): Record<string, string> {
  return {
    'content-type': 'text/html; charset=utf-8',
    'content-security-policy': contentSecurityPolicy(script, extraStyles),
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
    'cache-control': 'no-store',
  }
}

export interface LayoutInput {
  title: string
  body: SafeHtml
  wide?: boolean
  /** The page's script (`src/<feature>/browser/<name>.ts`); send the page with the same in pageHeaders. */
  script?: PageScriptName
  /** CSS of this page only, after the shared stylesheet (send the page with the same in pageHeaders). */
  styles?: string
  /** Links after the banner's text (the sandbox's own pages). */
  bannerLinks?: SafeHtml
  /** The sandbox clock: the banner shows it when it is not at real time. */
  clock?: ClockView
}

/** `· Sandbox clock 2030-01-01 12:00:00 UTC, 1h ahead of real time` (empty at real time). */
function clockNote(clock: ClockView | undefined): SafeHtml | string {
  if (!clock || clock.real) return ''
  const shown = `${clock.now.slice(0, 19).replace('T', ' ')} UTC`
  const why = clock.holdingUntil !== undefined ? 'standing still until real time catches up' : `${aheadText(clock.aheadMs)} ahead of real time`
  return html` <span id="sandbox-clock" class="clock">Sandbox clock <time datetime="${clock.now}">${shown}</time>, ${why}.</span>`
}

function aheadText(ms: number): string {
  const units: Array<[number, string]> = [[86_400_000, 'd'], [3_600_000, 'h'], [60_000, 'min'], [1000, 's']]
  for (const [size, unit] of units) if (ms >= size) return `${Number((ms / size).toFixed(1))} ${unit}`
  return `${ms} ms`
}

export function layout(input: LayoutInput): string {
  return `<!doctype html>\n${html`<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<link rel="icon" href="/favicon.ico" type="image/svg+xml">
<title>${input.title} · SANDBOX</title>
<style>${raw(STYLES + (input.styles ?? ''))}</style>
</head>
<body>
<div class="banner" role="note"><strong>SANDBOX</strong>Test payments only — no real money moves and every address on this page is fake.${clockNote(input.clock)}${input.bannerLinks ?? ''}</div>
<main${raw(input.wide ? ' class="wide"' : '')}>
${input.body}
</main>
${input.script !== undefined ? html`<script>${raw(pageScript(input.script).source)}</script>` : ''}
</body>
</html>`.value}\n`
}
