import { open } from 'node:fs/promises'
import { dirname } from 'node:path'

/** Makes a rename or unlink in `dir` durable. Some file systems refuse to open a directory: then it is a no-op. */
export async function syncDir(dir: string): Promise<void> {
  let handle
  try {
    handle = await open(dir, 'r')
    await handle.sync()
  } catch {
    // best effort: directory fsync is not supported everywhere
  } finally {
    await handle?.close()
  }
}

type Handle = Awaited<ReturnType<typeof open>>

/**
 * Writes all of `data` at the handle's position. A single write may store only part of it (a full disk or a
 * file size limit cuts it short without an error), so this writes on until done and fails if nothing fits.
 */
export async function writeAll(handle: Handle, data: string | Buffer): Promise<void> {
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
