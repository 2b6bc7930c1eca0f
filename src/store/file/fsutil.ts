import { dirname } from 'node:path'
import type { FileHandle, StoreFs } from './fs.js'

/** Makes a rename or unlink in `dir` durable. Some file systems refuse to open a directory: then it is a no-op. */
export async function syncDir(fs: StoreFs, dir: string): Promise<void> {
  let handle: FileHandle | undefined
  try {
    handle = await fs.open(dir, 'r')
    await handle.sync()
  } catch {
    // best effort: directory fsync is not supported everywhere
  } finally {
    await handle?.close().catch(() => {})
  }
}

/**
 * Writes all of `data` at the handle's position. A single write may store only part of it (a full disk or a
 * file size limit cuts it short without an error), so this writes on until done and fails if nothing fits.
 */
export async function writeAll(handle: FileHandle, data: string | Buffer): Promise<void> {
  const buffer = typeof data === 'string' ? Buffer.from(data) : data
  let offset = 0
  while (offset < buffer.length) {
    const { bytesWritten } = await handle.write(buffer, offset, buffer.length - offset)
    if (bytesWritten <= 0) throw Object.assign(new Error('no space left: nothing could be written'), { code: 'ENOSPC' })
    offset += bytesWritten
  }
}

export function dirOf(file: string): string {
  return dirname(file)
}
