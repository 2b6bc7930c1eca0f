/** "Did you mean": the closest of a few known names to one that was mistyped. Pure. */

/** Levenshtein distance. */
export function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    const row = [i]
    for (let j = 1; j <= b.length; j++) row[j] = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1))
    prev = row
  }
  return prev[b.length]!
}

/**
 * The known name closest to `typed`, ignoring case, when it is close enough to be a slip of the fingers: at most
 * a third of the typed length away (and at least 2 edits allowed), so `nosuch` suggests nothing.
 */
export function nearest(typed: string, known: readonly string[]): string | undefined {
  const limit = Math.max(2, Math.floor(typed.length / 3))
  let best: { name: string; distance: number } | undefined
  for (const name of known) {
    const distance = editDistance(typed.toLowerCase(), name.toLowerCase())
    if (distance <= limit && (!best || distance < best.distance)) best = { name, distance }
  }
  return best?.name
}
