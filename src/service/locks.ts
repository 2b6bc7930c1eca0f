/**
 * Runs read-modify-write operations on one record one at a time. A writer reads the durable state inside the
 * lock, so two concurrent simulates of one payment see each other's outcome, and neither ever acts on a change
 * that might still fail to be written.
 */
export class KeyedLock {
  private readonly tails = new Map<string, Promise<void>>()

  async run<T>(key: string, task: () => Promise<T>): Promise<T> {
    const before = this.tails.get(key)
    let release!: () => void
    const mine = new Promise<void>((r) => (release = r))
    const tail = before ? before.then(() => mine) : mine
    this.tails.set(key, tail)
    if (before) await before
    try {
      return await task()
    } finally {
      release()
      if (this.tails.get(key) === tail) this.tails.delete(key)
    }
  }
}
