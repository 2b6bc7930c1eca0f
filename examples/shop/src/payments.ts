/** The two operations of the Merchant Payment Service a shop needs, create and verify: JSON over HTTP. */

export type CreateAnswer = { result: 100; trackId: string; message: string } | { result: number; message: string }
export type VerifyAnswer = { result: number; amount?: number; refNumber?: string; message?: string }

/**
 * The service gave no answer to act on: it could not be reached, did not answer in time, or answered with
 * something that is not one of its outcomes (an HTTP error such as a 503, an HTML page from a proxy). Nothing is
 * known about the payment then: try again later, never take it as "not paid".
 */
export interface Unavailable {
  unavailable: string
  /** The HTTP status, when there was one. */
  status?: number
  /** What a Retry-After header asked for, in milliseconds. */
  retryAfterMs?: number
}

const TIMEOUT_MS = 10_000
/** An answer bigger than this is not the service's. */
const MAX_ANSWER_BYTES = 64 * 1024

async function post<T extends { result: number }>(url: string, body: unknown): Promise<T | Unavailable> {
  let res: Response
  try {
    res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
      redirect: 'manual',
      signal: AbortSignal.timeout(TIMEOUT_MS),
    })
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause?.code
    return { unavailable: (error as Error).name === 'TimeoutError' ? `no answer within ${TIMEOUT_MS} ms` : `not reachable (${cause ?? (error as Error).message})` }
  }
  const retryAfterMs = retryAfter(res.headers.get('retry-after'))
  const text = await readCapped(res)
  if (!res.ok) return { unavailable: `HTTP ${res.status}`, status: res.status, ...(retryAfterMs !== undefined ? { retryAfterMs } : {}) }
  let value: unknown
  try {
    value = JSON.parse(text ?? '')
  } catch {
    return { unavailable: `HTTP ${res.status} with a body that is not JSON`, status: res.status }
  }
  const result = (value as { result?: unknown } | null)?.result
  // The service's own request errors carry their HTTP status as result (400 and up): not an outcome either.
  if (typeof result !== 'number' || result >= 400) return { unavailable: `an answer without a result code (${text?.slice(0, 100)})`, status: res.status }
  return value as T
}

async function readCapped(res: Response): Promise<string | undefined> {
  if (!res.body) return undefined
  const chunks: Uint8Array[] = []
  let size = 0
  for await (const chunk of res.body as AsyncIterable<Uint8Array>) {
    size += chunk.length
    if (size > MAX_ANSWER_BYTES) return undefined
    chunks.push(chunk)
  }
  return Buffer.concat(chunks).toString('utf8')
}

/** Retry-After in seconds or as an HTTP date, in milliseconds from now. */
function retryAfter(value: string | null): number | undefined {
  if (value === null) return undefined
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000
  const at = Date.parse(value)
  return Number.isFinite(at) ? Math.max(0, at - Date.now()) : undefined
}

export function isUnavailable(answer: object): answer is Unavailable {
  return 'unavailable' in answer
}

export class PaymentService {
  constructor(
    private readonly baseUrl: string,
    private readonly merchantKey: string,
  ) {}

  create(input: { amount: number; callbackUrl: string; returnUrl?: string; description?: string }): Promise<CreateAnswer | Unavailable> {
    return post(`${this.baseUrl}/api/v1/request`, { merchant: this.merchantKey, ...input })
  }

  verify(trackId: string): Promise<VerifyAnswer | Unavailable> {
    return post(`${this.baseUrl}/api/v1/verify`, { merchant: this.merchantKey, trackId })
  }

  checkoutUrl(trackId: string): string {
    return `${this.baseUrl}/pay/${encodeURIComponent(trackId)}`
  }
}
