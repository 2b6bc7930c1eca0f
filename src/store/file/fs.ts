import * as fsp from 'node:fs/promises'

export type FileHandle = fsp.FileHandle

/**
 * The file-system calls the store makes, and nothing else. Tests pass a wrapped version to inject faults
 * (a full disk, EMFILE, a slow fsync) into exactly the call they mean, with the real file system underneath.
 */
export interface StoreFs {
  open(path: string, flags: string | number): Promise<FileHandle>
  rename(from: string, to: string): Promise<void>
  unlink(path: string): Promise<void>
  link(existing: string, path: string): Promise<void>
  readdir(dir: string): Promise<string[]>
  mkdir(dir: string, options: { recursive: true }): Promise<unknown>
  realpath(path: string): Promise<string>
  stat(path: string): Promise<{ size: number; mtimeMs: number }>
}

export const nodeFs: StoreFs = {
  open: (path, flags) => fsp.open(path, flags),
  rename: (from, to) => fsp.rename(from, to),
  unlink: (path) => fsp.unlink(path),
  link: (existing, path) => fsp.link(existing, path),
  readdir: (dir) => fsp.readdir(dir),
  mkdir: (dir, options) => fsp.mkdir(dir, options),
  realpath: (path) => fsp.realpath(path),
  stat: (path) => fsp.stat(path),
}

export function errorCode(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | undefined)?.code
}

export function isMissing(error: unknown): boolean {
  return errorCode(error) === 'ENOENT'
}
