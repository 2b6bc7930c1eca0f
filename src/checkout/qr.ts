import { escapeHtml, raw, type SafeHtml } from '../pages/html.js'

/**
 * An inline SVG QR code of `text`, labelled for screen readers. Made on the server: the page loads no library.
 * The QR library is loaded on the first checkout page, not at start-up.
 */
export async function qrSvg(text: string, label: string): Promise<SafeHtml> {
  const { default: QRCode } = await import('qrcode')
  const svg = await QRCode.toString(text, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 })
  return raw(svg.trim().replace(/^<svg /, `<svg role="img" aria-label="${escapeHtml(label)}" class="qr" `))
}
