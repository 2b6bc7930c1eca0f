import { createReadStream } from 'node:fs'
import { ExportReader } from '../domain/export-reader.js'
import type { ExportCheck } from '../domain/transfer.js'

/**
 * Checks an export file with the sandbox's own reader, chunk by chunk, before anything is sent: the verdict
 * is the one the sandbox would give. Throws the file system's error when the file cannot be read.
 */
export async function checkImportFile(path: string): Promise<ExportCheck> {
  const stream = createReadStream(path, { highWaterMark: 1024 * 1024 })
  try {
    return await checkImportStream(stream)
  } finally {
    stream.destroy()
  }
}

/** The same check of a file read from a stream (stdin). */
export async function checkImportStream(stream: AsyncIterable<Buffer | string>): Promise<ExportCheck> {
  const reader = new ExportReader()
  for await (const chunk of stream) {
    if (!reader.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk)) break
  }
  return reader.end()
}
