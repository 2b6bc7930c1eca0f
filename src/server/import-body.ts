import type { IncomingMessage } from 'node:http'
import type { FastifyRequest } from 'fastify'
import { ExportReader, IMPORT_MAX_BYTES } from '../domain/export-reader.js'
import { SandboxError } from '../domain/outcomes.js'
import { importRefusal } from '../service/transfer.js'
import { bodyCut } from '../http/body.js'

/**
 * Body parser of `POST /_sandbox/import`. The file is read and checked as it arrives (ExportReader), so no
 * request holds the event loop for more than one chunk's work and the handler gets records that passed.
 * Once the file is refused the rest is read and dropped, never kept or parsed, so a client still sending
 * gets the answer; past the size limit the answer is 413 and the connection is closed.
 */
export function readImportBody(
  request: FastifyRequest,
  payload: IncomingMessage,
  done: (error: Error | null, body?: unknown) => void,
): void {
  if (Number(request.headers['content-length']) > IMPORT_MAX_BYTES) return done(tooLarge())
  const reader = new ExportReader()
  let received = 0
  let settled = false
  const settle = (error: Error | null, body?: unknown) => {
    if (settled) return
    settled = true
    payload.removeListener('data', onData)
    payload.removeListener('end', onEnd)
    payload.removeListener('error', onError)
    done(error, body)
  }
  const onData = (chunk: Buffer) => {
    received += chunk.length
    if (received > IMPORT_MAX_BYTES) return settle(tooLarge())
    if (!reader.push(chunk)) return
    // One chunk per turn of the event loop: a socket read can hand over many at once.
    payload.pause()
    setImmediate(() => payload.resume())
  }
  const onEnd = () => {
    const check = reader.end()
    if (check.ok) settle(null, check.image)
    else settle(importRefusal(check))
  }
  // A client gone mid-body (Node's `aborted` error, then `close`): there is no one to answer, but the request
  // must end, and quietly: it is no bug of the sandbox's.
  const onError = () => settle(bodyCut())
  payload.on('data', onData)
  payload.on('end', onEnd)
  payload.on('error', onError)
  payload.once('close', onError)
}

function tooLarge(): SandboxError {
  return new SandboxError('payloadTooLarge', `the import body is larger than ${IMPORT_MAX_BYTES / 1024 / 1024} MB, the most an import takes`)
}
