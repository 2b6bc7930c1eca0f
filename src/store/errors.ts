import { SandboxError } from '../domain/outcomes.js'

/** The data file cannot be used; start-up stops with this message. Nothing was written. */
export class DataFileError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'DataFileError'
  }
}

/** Another live sandbox holds the data file. */
export class DataFileInUseError extends DataFileError {
  readonly pid: number
  readonly url: string | undefined
  constructor(message: string, pid: number, url: string | undefined) {
    super(message)
    this.name = 'DataFileInUseError'
    this.pid = pid
    this.url = url
  }
}

/** The process has no file descriptor left (EMFILE), or the system none (ENFILE). */
export function isOutOfDescriptors(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code
  return code === 'EMFILE' || code === 'ENFILE'
}

/** What to do about ENFILE and EMFILE, for every message that meets them. */
export const DESCRIPTOR_ADVICE = 'raise the limit of open files, e.g. `ulimit -n 1024`, and start again'

/**
 * A file-system failure of the data file's folder in words: what it is, by its code, and what to do about it
 * (`the disk is full (ENOSPC): free some space …`). Codes with nothing to add are given as they are.
 */
export function fsProblem(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code
  switch (code) {
    case 'ENOSPC':
      return 'the disk is full (ENOSPC): free some space on it, or start on another disk with --data <file>'
    case 'EDQUOT':
      return 'the disk quota is used up (EDQUOT): free some space, or start on another disk with --data <file>'
    case 'EMFILE':
    case 'ENFILE':
      return `too many open files (${code}): ${DESCRIPTOR_ADVICE}`
    case 'EACCES':
    case 'EPERM':
    case 'EROFS':
      return `not allowed (${code}): the folder must be writable, and the data file and journal readable and writable; fix their permissions, or use another --data file`
    default:
      return code ?? (error instanceof Error ? error.message : String(error))
  }
}

/**
 * A unit was not written: a record it was based on had changed meanwhile (through another instance). Nothing of it
 * was stored. The writer reads again once the replica caught up (`store.sync()`) and tries again; see
 * `Store.retrying`. Unretried, it answers 503 as any store trouble does.
 */
export class ConflictError extends SandboxError {
  constructor(detail: string) {
    super('storageUnavailable', `the sandbox's data changed meanwhile (${detail}); nothing was stored, try again`)
    this.name = 'ConflictError'
  }
}
