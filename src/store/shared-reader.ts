import type { SharedEntries } from './engine.js'

/** One entry of a shared list, as read. */
export interface SharedRow {
  id: number
  text: string
}

/**
 * Follows a list shared by the instances of a team sandbox (see SharedEntries), in its order: each read takes the
 * entries after the last one taken (the newest `batch` at first), `batch` at a time until none are left. One read
 * runs at a time; a read asked for while one is under way is one more read after it, since the one under way may
 * have started before what the caller waits for was appended. A read that fails is told to `onError` and ends.
 */
export class SharedListReader {
  private lastId = 0
  private reading: Promise<void> | undefined
  private readAgain = false
  private stopped = false

  constructor(
    private readonly entries: Pick<SharedEntries, 'after' | 'newest'>,
    private readonly batch: number,
    private readonly take: (row: SharedRow) => void,
    private readonly onError: (error: unknown) => void,
  ) {}

  /** The id of the last entry taken; 0 before the first. */
  get last(): number {
    return this.lastId
  }

  /** Starts from after `id` (what the caller already holds). */
  resumeAfter(id: number): void {
    this.lastId = id
  }

  /** The read under way, if any. */
  get busy(): Promise<void> | undefined {
    return this.reading
  }

  read(): Promise<void> {
    if (this.reading) {
      this.readAgain = true
      return this.reading
    }
    this.reading = (async () => {
      do {
        this.readAgain = false
        try {
          for (;;) {
            const rows = this.lastId === 0 ? await this.entries.newest(this.batch) : await this.entries.after(this.lastId, this.batch)
            for (const row of rows) {
              if (this.stopped) return
              this.lastId = row.id
              this.take(row)
            }
            if (rows.length < this.batch) break
          }
        } catch (error) {
          this.onError(error)
        }
      } while (this.readAgain && !this.stopped)
    })().finally(() => (this.reading = undefined))
    return this.reading
  }

  /** Takes nothing more. */
  stop(): void {
    this.stopped = true
  }
}
