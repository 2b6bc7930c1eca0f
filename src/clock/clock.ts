/**
 * Time as the sandbox stamps it. Stamps never go backwards, even when the machine's wall clock is set back:
 * a record's `updatedAt` is never before its `createdAt`.
 */
export function nonDecreasing(wall: () => Date): () => Date {
  let last = -Infinity
  return () => {
    const ms = wall().getTime()
    if (ms > last) last = ms
    return new Date(last)
  }
}

/** `at`, or `floor` when `at` is earlier: a change to a record is never stamped before the record's last change. */
export function notBefore(at: string, floor: string): string {
  return Date.parse(at) < Date.parse(floor) ? floor : at
}
