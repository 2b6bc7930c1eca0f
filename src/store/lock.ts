import { readFileSync, unlinkSync, writeFileSync } from 'node:fs'
import { DataFileError, DataFileInUseError } from './errors.js'

export interface LockInfo {
  pid: number
  url?: string
  startedAt: string
}

/** A pid file beside the data file: one sandbox per data file. A lock left by a dead process is taken over. */
export class DataFileLock {
  readonly path: string
  private info: LockInfo

  private constructor(path: string, info: LockInfo) {
    this.path = path
    this.info = info
  }

  static acquire(dataFile: string, now: string): DataFileLock {
    const path = `${dataFile}.lock`
    const info: LockInfo = { pid: process.pid, startedAt: now }
    for (let tries = 0; tries < 2; tries++) {
      try {
        writeFileSync(path, JSON.stringify(info), { flag: 'wx' })
        return new DataFileLock(path, info)
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code
        if (code !== 'EEXIST') {
          throw new DataFileError(
            `cannot create lock file ${path} beside data file ${dataFile} (${code ?? (error as Error).message}): ` +
              'the folder must be writable; use another --data file or fix its permissions.',
          )
        }
      }
      const holder = readLock(path)
      if (holder && holder.pid !== process.pid && isAlive(holder.pid)) {
        const where = holder.url ? `the sandbox at ${holder.url}` : 'another sandbox'
        throw new DataFileInUseError(
          `data file ${dataFile} is in use by ${where} (pid ${holder.pid}). ` +
            `Stop it with \`pay sandbox stop${holder.url ? ` --url ${holder.url}` : ''}\`, or use another --data file.`,
          holder.pid,
          holder.url,
        )
      }
      unlinkSync(path) // stale: its process is gone
    }
    throw new DataFileInUseError(`could not lock data file ${dataFile}`, 0, undefined)
  }

  /** Records the URL the sandbox listens on, for the message another start would print. */
  setUrl(url: string): void {
    this.info = { ...this.info, url }
    writeFileSync(this.path, JSON.stringify(this.info))
  }

  release(): void {
    try {
      unlinkSync(this.path)
    } catch {
      // already gone
    }
  }
}

export function readLock(path: string): LockInfo | undefined {
  try {
    const info = JSON.parse(readFileSync(path, 'utf8')) as LockInfo
    return typeof info.pid === 'number' ? info : undefined
  } catch {
    return undefined
  }
}

/** Whether a process with this pid exists (EPERM: it does, owned by someone else). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}
