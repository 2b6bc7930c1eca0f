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

export function dirOf(file: string): string {
  return dirname(file)
}
