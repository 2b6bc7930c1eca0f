import { constants } from 'node:fs'
import type { FileHandle, StoreFs } from '../../src/store/file/fs.js'
import { nodeFs } from '../../src/store/file/fs.js'

/**
 * Hooks called around the real file-system calls; each may wait (a slow disk) or throw (a failing one). They
 * can be changed while the store runs. `path` is the file the call is about.
 */
export interface Faults {
  /** `flags` as Node names them: the journal's numeric O_DSYNC flags as the string flags they extend ('a', 'wx'). */
  open?: (path: string, flags: string) => void | Promise<void>
  rename?: (from: string, to: string) => void | Promise<void>
  /** Before a write through a handle; returning a number writes only that many bytes and then fails with it. */
  write?: (path: string, bytes: number) => void | number | Promise<void | number>
  /** Before an fdatasync or fsync, and after each write through a handle opened with O_DSYNC (its sync is the write's). */
  sync?: (path: string) => void | Promise<void>
  truncate?: (path: string) => void | Promise<void>
  /** Before a read through a handle, numbered from 1 for each handle. */
  read?: (path: string, nth: number) => void | Promise<void>
}

export function errno(code: string, message = code): NodeJS.ErrnoException {
  return Object.assign(new Error(`${code}: ${message}`), { code })
}

/** The real file system with `faults` injected into exactly the calls they name. */
export function faultyFs(faults: Faults): StoreFs {
  return {
    ...nodeFs,
    async open(path, flags) {
      await faults.open?.(path, typeof flags === 'number' ? stringFlags(flags) : flags)
      const dsync = typeof flags === 'number' && (flags & constants.O_DSYNC) !== 0
      return wrap(await nodeFs.open(path, flags), path, faults, dsync)
    },
    async rename(from, to) {
      await faults.rename?.(from, to)
      return nodeFs.rename(from, to)
    },
  }
}

/** The string flag a numeric one extends: only the journal's opens (append, or create exclusively) are numeric. */
function stringFlags(flags: number): string {
  if ((flags & constants.O_EXCL) !== 0) return 'wx'
  if ((flags & constants.O_APPEND) !== 0) return 'a'
  throw new Error(`faulty-fs: numeric flags ${flags} are not the journal's`)
}

function wrap(handle: FileHandle, path: string, faults: Faults, dsync: boolean): FileHandle {
  let reads = 0
  return new Proxy(handle, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver) as unknown
      if (typeof value !== 'function') return value
      switch (property) {
        case 'write':
          return async (buffer: Buffer, offset = 0, length = buffer.length - offset, position?: number | null) => {
            const cut = await faults.write?.(path, length)
            if (typeof cut === 'number') {
              if (cut > 0) await target.write(buffer, offset, Math.min(cut, length), position)
              throw errno('ENOSPC', `no space left on device, write ${path}`)
            }
            const written = await target.write(buffer, offset, length, position)
            // The kernel syncs an O_DSYNC write before it returns: a failing or slow sync is this write's.
            if (dsync) await faults.sync?.(path)
            return written
          }
        case 'read':
          return async (...args: unknown[]) => {
            await faults.read?.(path, ++reads)
            return (value as (...a: unknown[]) => unknown).apply(target, args)
          }
        case 'datasync':
        case 'sync':
          return async () => {
            await faults.sync?.(path)
            return (value as () => Promise<void>).call(target)
          }
        case 'truncate':
          return async (len?: number) => {
            await faults.truncate?.(path)
            return target.truncate(len)
          }
        default:
          return (value as (...args: unknown[]) => unknown).bind(target)
      }
    },
  })
}

/** A gate a hook can wait on, opened by the test. */
export function gate(): { wait: () => Promise<void>; open: () => void; waiting: () => boolean } {
  let release!: () => void
  let waiters = 0
  const opened = new Promise<void>((r) => (release = r))
  return {
    wait: async () => {
      waiters++
      await opened
    },
    open: () => release(),
    waiting: () => waiters > 0,
  }
}
