import { randomBytes } from 'node:crypto'
import { linkSync, readFileSync, readlinkSync, realpathSync, renameSync, statSync, unlinkSync, writeFileSync } from 'node:fs'
import { basename, dirname, join, resolve } from 'node:path'
import { DataFileError, DataFileInUseError, fsProblem } from '../errors.js'

export interface LockInfo {
  pid: number
  url?: string
  startedAt: string
  /** Tells two locks of one process apart. */
  token?: string
}

/** How long a takeover guard or unreadable lock may sit before it is taken for a leftover of a crash. */
const LEFTOVER_MS = 5_000
const ATTEMPTS = 200

/**
 * A pid file beside the data file: one sandbox per data file. The lock lives beside the data file's real path,
 * so a symlink and its target share one lock. It is created whole and atomically (written aside, then
 * hard-linked into place, which fails if a lock exists), and a lock left by a dead process is taken over under a
 * guard, so that of several starts racing for a stale lock exactly one wins.
 */
export class DataFileLock {
  readonly path: string
  private info: LockInfo

  private constructor(path: string, info: LockInfo) {
    this.path = path
    this.info = info
  }

  /** `dataFile` must be the data file's real path (see realDataPath). */
  static acquire(dataFile: string, now: string): DataFileLock {
    const path = `${dataFile}.lock`
    const info: LockInfo = { pid: process.pid, startedAt: now, token: randomBytes(6).toString('base64url') }
    const mine = `${path}.${process.pid}.${randomBytes(4).toString('hex')}`
    const cannot = (error: unknown) => new DataFileError(`cannot create lock file ${path} beside data file ${dataFile}: ${fsProblem(error)}.`)
    try {
      writeFileSync(mine, JSON.stringify(info))
    } catch (error) {
      // A full disk leaves the file created but empty.
      removeQuietly(mine)
      throw cannot(error)
    }
    try {
      for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
        if (tryLink(mine, path)) return new DataFileLock(path, info)
        const holder = readLockFile(path)
        if (holder === 'missing') continue
        if (holder !== 'unreadable' && holder.pid !== process.pid && isAlive(holder.pid)) throw inUse(dataFile, holder)
        if (holder === 'unreadable' && !isOlderThan(path, LEFTOVER_MS)) {
          pause(10)
          continue
        }
        if (takeOver(path, mine, holder)) return new DataFileLock(path, info)
        pause(5 + Math.random() * 20)
      }
    } catch (error) {
      if (error instanceof DataFileError) throw error
      throw cannot(error)
    } finally {
      removeQuietly(mine)
    }
    throw new DataFileInUseError(`could not lock data file ${dataFile}: other starts kept taking it; try again`, 0, undefined)
  }

  /** Records the URL the sandbox listens on, for the message another start would print. */
  setUrl(url: string): void {
    this.info = { ...this.info, url }
    // Replaced whole, so a concurrent reader never sees half a lock.
    const tmp = `${this.path}.${process.pid}.url`
    try {
      writeFileSync(tmp, JSON.stringify(this.info))
      renameSync(tmp, this.path)
    } catch {
      // The lock still holds without the URL; only another start's message is less helpful.
    }
  }

  release(): void {
    try {
      const held = readLockFile(this.path)
      if (held !== 'missing' && held !== 'unreadable' && !sameLock(held, this.info)) return
      unlinkSync(this.path)
    } catch {
      // already gone
    }
  }
}

/**
 * Removes a stale lock and puts ours in its place, under a guard file that only one process can create: whoever
 * holds the guard checks that the lock is still the stale one before removing it, so a fresh lock made
 * meanwhile by another start is never removed.
 */
function takeOver(path: string, mine: string, stale: LockInfo | 'unreadable'): boolean {
  const guard = `${path}.takeover`
  if (!tryLink(mine, guard)) {
    const holder = readLockFile(guard)
    const leftover =
      holder === 'missing' ? false : holder === 'unreadable' ? isOlderThan(guard, LEFTOVER_MS) : !isAlive(holder.pid) && isOlderThan(guard, LEFTOVER_MS)
    if (leftover) {
      try {
        unlinkSync(guard)
      } catch {
        // someone else cleared it
      }
    }
    return false
  }
  try {
    const now = readLockFile(path)
    const same =
      now === 'unreadable' ? stale === 'unreadable' : now !== 'missing' && stale !== 'unreadable' && sameLock(now, stale)
    if (same) unlinkSync(path)
    return tryLink(mine, path)
  } finally {
    try {
      unlinkSync(guard)
    } catch {
      // already gone
    }
  }
}

function sameLock(a: LockInfo, b: LockInfo): boolean {
  return a.pid === b.pid && a.startedAt === b.startedAt && a.token === b.token
}

function tryLink(from: string, to: string): boolean {
  try {
    linkSync(from, to)
    return true
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false
    throw error
  }
}

function readLockFile(path: string): LockInfo | 'missing' | 'unreadable' {
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'missing' : 'unreadable'
  }
  try {
    const info = JSON.parse(text) as LockInfo
    return typeof info.pid === 'number' && Number.isSafeInteger(info.pid) ? info : 'unreadable'
  } catch {
    return 'unreadable'
  }
}

function isOlderThan(path: string, ms: number): boolean {
  try {
    return Date.now() - statSync(path).mtimeMs > ms
  } catch {
    return false
  }
}

function inUse(dataFile: string, holder: LockInfo): DataFileInUseError {
  const where = holder.url ? `the sandbox at ${holder.url}` : 'another sandbox'
  return new DataFileInUseError(
    `data file ${dataFile} is in use by ${where} (pid ${holder.pid}). ` +
      `Stop it with \`pay sandbox stop${holder.url ? ` --url ${holder.url}` : ''}\`, or use another --data file.`,
    holder.pid,
    holder.url,
  )
}

function removeQuietly(path: string): void {
  try {
    unlinkSync(path)
  } catch {
    // never made, or already gone
  }
}

function pause(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms)
}

export function readLock(path: string): LockInfo | undefined {
  const info = readLockFile(path)
  return info === 'missing' || info === 'unreadable' ? undefined : info
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

/**
 * The path the data file really lives at: symlinks resolved (also a link to a file not created yet), so every
 * name of one file leads to one lock, one journal and one rename target. The folder must exist.
 */
export function realDataPath(file: string, depth = 0): string {
  const absolute = resolve(file)
  try {
    return realpathSync(absolute)
  } catch {
    // missing, or a link whose target is missing
  }
  if (depth < 16) {
    try {
      return realDataPath(resolve(dirname(absolute), readlinkSync(absolute)), depth + 1)
    } catch {
      // not a link
    }
  }
  return join(realpathSync(dirname(absolute)), basename(absolute))
}
