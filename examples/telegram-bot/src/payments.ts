/** The two operations of the Merchant Payment Service a bot needs: create and verify. JSON over HTTP. */

export type CreateAnswer = { result: 100; trackId: string; message: string } | { result: number; message: string }
export type VerifyAnswer = { result: number; amount?: number; refNumber?: string; message?: string }

async function post<T>(baseUrl: string, path: string, body: unknown): Promise<T> {
  const res = await fetch(`${baseUrl}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(15_000),
  })
  if (!res.ok) throw new Error(`${path} answered HTTP ${res.status}`)
  return (await res.json()) as T
}

export class PaymentService {
  constructor(
    private readonly baseUrl: string,
    private readonly merchantKey: string,
  ) {}

  create(input: { amount: number; callbackUrl: string; description?: string }): Promise<CreateAnswer> {
    return post(this.baseUrl, '/api/v1/request', { merchant: this.merchantKey, ...input })
  }

  verify(trackId: string): Promise<VerifyAnswer> {
    return post(this.baseUrl, '/api/v1/verify', { merchant: this.merchantKey, trackId })
  }

  checkoutUrl(trackId: string): string {
    return `${this.baseUrl}/pay/${encodeURIComponent(trackId)}`
  }
}
