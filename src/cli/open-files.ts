import { readFileSync } from 'node:fs'

/** The process's limit of open files (`ulimit -n`), where the system tells it (Linux); undefined elsewhere. */
export function openFilesLimit(): number | undefined {
  try {
    const line = /^Max open files\s+(\d+)/m.exec(readFileSync('/proc/self/limits', 'utf8'))
    return line ? Number(line[1]) : undefined
  } catch {
    return undefined
  }
}

/** A command that ran out of file descriptors (EMFILE, or ENFILE for the whole system), in words, with what to do. */
export function outOfDescriptorsMessage(code: string, doing: string): string {
  const limit = code === 'EMFILE' ? openFilesLimit() : undefined
  return (
    `too many open files (${code}) ${doing}${limit !== undefined ? `: the limit is ${limit} (ulimit -n)` : ''}; ` +
    'raise the limit of open files, e.g. `ulimit -n 1024`, and run it again'
  )
}
