import { request as httpRequest } from 'node:http'
import { request as httpsRequest } from 'node:https'

/** What a webhook attempt came to: delivered (with a method call in the answer, if any), or why not. */
export type WebhookResult = { ok: true; reply?: Record<string, unknown> } | { ok: false; error: string }

const MAX_REPLY_BYTES = 64 * 1024

/**
 * POSTs one update to a bot's webhook as Telegram does: JSON, the secret in X-Telegram-Bot-Api-Secret-Token.
 * A 2xx answer is delivery; its JSON body may carry one method call (`{"method": …}`), which the caller runs.
 * Failures are described as Telegram's getWebhookInfo describes them.
 */
export function postUpdate(url: string, update: unknown, secretToken: string | undefined, timeoutMs: number): Promise<WebhookResult> {
  return new Promise((resolve) => {
    let target: URL
    try {
      target = new URL(url)
    } catch {
      return resolve({ ok: false, error: 'Wrong HTTP URL' })
    }
    const body = Buffer.from(JSON.stringify(update))
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      'content-length': String(body.length),
      ...(secretToken ? { 'x-telegram-bot-api-secret-token': secretToken } : {}),
    }
    const send = target.protocol === 'https:' ? httpsRequest : httpRequest
    let settled = false
    const done = (result: WebhookResult) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      resolve(result)
    }
    const req = send(target, { method: 'POST', headers, agent: false }, (res) => {
      const status = res.statusCode ?? 0
      const chunks: Buffer[] = []
      let size = 0
      res.on('data', (c: Buffer) => {
        size += c.length
        if (size <= MAX_REPLY_BYTES) chunks.push(c)
      })
      res.on('error', () => done({ ok: false, error: 'Connection reset by peer' }))
      res.on('end', () => {
        if (status < 200 || status > 299) {
          return done({ ok: false, error: `Wrong response from the webhook: ${status} ${res.statusMessage ?? ''}`.trimEnd() })
        }
        let reply: Record<string, unknown> | undefined
        if (/json/i.test(String(res.headers['content-type'])) && size <= MAX_REPLY_BYTES) {
          try {
            const parsed: unknown = JSON.parse(Buffer.concat(chunks).toString('utf8'))
            if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) && typeof (parsed as { method?: unknown }).method === 'string') {
              reply = parsed as Record<string, unknown>
            }
          } catch {
            // An answer that is not a method call is just an answer.
          }
        }
        done(reply ? { ok: true, reply } : { ok: true })
      })
    })
    const timer = setTimeout(() => {
      req.destroy()
      done({ ok: false, error: 'Read timeout expired' })
    }, timeoutMs)
    req.on('error', (e: NodeJS.ErrnoException) => {
      const known: Record<string, string> = {
        ECONNREFUSED: 'Connection refused',
        ECONNRESET: 'Connection reset by peer',
        ENOTFOUND: 'Failed to resolve host: Name or service not known',
        EHOSTUNREACH: 'No route to host',
      }
      done({ ok: false, error: known[e.code ?? ''] ?? e.message })
    })
    req.end(body)
  })
}
