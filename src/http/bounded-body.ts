import type { Readable } from 'node:stream'

/**
 * How much of a body over its limit is still read, and dropped. A client sends its whole body before it reads the
 * answer (Node's fetch, undici, axios, http.request): if the server answered 413 and closed the connection at the
 * first byte over the limit, the client's next write would fail (EPIPE, connection reset) and the 413 be lost.
 * So the rest is read and dropped, then the 413 is sent and the connection closed. A body declared, or found,
 * larger than this is answered at once instead and the connection closed while the client may still be sending:
 * it may then see the connection reset rather than the answer.
 */
export const DISCARD_MAX_BYTES = 64 * 1024 * 1024

export type BoundedBody =
  | { kind: 'body'; bytes: Buffer }
  /** Over the limit; `drained` when the whole body was read, so the client gets the answer. */
  | { kind: 'tooLarge'; drained: boolean }
  /** The client went away, or the body ended short of its Content-Length: there is no one to answer. */
  | { kind: 'cut' }

/** Reads a request body of at most `limit` bytes (see DISCARD_MAX_BYTES for what happens past it); `done` is called once. */
export function readBoundedBody(
  stream: Readable,
  contentLength: string | undefined,
  limit: number,
  done: (body: BoundedBody) => void,
): void {
  const declared = contentLength === undefined || contentLength === '' ? undefined : Number(contentLength)
  if (declared !== undefined && declared > DISCARD_MAX_BYTES) return done({ kind: 'tooLarge', drained: false })
  let chunks: Buffer[] = []
  let received = 0
  let settled = false
  const settle = (body: BoundedBody) => {
    if (settled) return
    settled = true
    stream.removeListener('data', onData)
    stream.removeListener('end', onEnd)
    stream.removeListener('error', onCut)
    stream.removeListener('close', onCut)
    if (body.kind === 'tooLarge' && !body.drained) stream.pause()
    done(body)
  }
  const onData = (chunk: Buffer | string) => {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk
    received += bytes.length
    if (received <= limit) {
      chunks.push(bytes)
      return
    }
    chunks = []
    if (received > DISCARD_MAX_BYTES) settle({ kind: 'tooLarge', drained: false })
  }
  const onEnd = () => {
    if (declared !== undefined && received !== declared) return settle({ kind: 'cut' })
    settle(received > limit ? { kind: 'tooLarge', drained: true } : { kind: 'body', bytes: Buffer.concat(chunks, received) })
  }
  const onCut = () => settle({ kind: 'cut' })
  stream.on('data', onData)
  stream.on('end', onEnd)
  stream.on('error', onCut)
  stream.on('close', onCut)
  stream.resume()
}

/** "1 MB", "64 MB", "512 KB": a limit as the error messages name it. */
export function sizeText(bytes: number): string {
  return bytes % (1024 * 1024) === 0 ? `${bytes / 1024 / 1024} MB` : `${Math.round(bytes / 1024)} KB`
}
