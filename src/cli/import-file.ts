import { createReadStream } from 'node:fs'
import { ExportReader } from '../domain/export-reader.js'
import type { ExportCheck } from '../domain/transfer.js'

/**
 * Checks an export file with the sandbox's own reader, chunk by chunk, before anything is sent: the verdict
 * is the one the sandbox would give. Throws the file system's error when the file cannot be read.
 */
export async function checkImportFile(path: string): Promise<ExportCheck> {
  const reader = new ExportReader()
  const stream = createReadStream(path, { highWaterMark: 1024 * 1024 })
  for await (const chunk of stream) {
    if (!reader.push(chunk as Buffer)) break
  }
  stream.destroy()
  return reader.end()
}
