import { randomBytes } from 'node:crypto'
import { open, readFile, rename } from 'node:fs/promises'

/** What the bot told the customer last; each is sent at most once per order. */
export type OrderState = 'awaiting_payment' | 'confirming' | 'not_completed' | 'amount_mismatch' | 'delivered'

export interface Order {
  trackId: string
  chatId: number
  amount: number
  state: OrderState
  createdAt: string
  updatedAt: string
  refNumber?: string
}

/**
 * Orders by trackId in a small JSON file: chat id ↔ trackId, as the payment service's bot flow asks. Every change
 * is written to a temporary file, synced and renamed over the old one before anything is sent to the customer,
 * so a restart neither forgets an order nor delivers one twice.
 */
export class Orders {
  private orders = new Map<string, Order>()
  private writing: Promise<void> = Promise.resolve()
  private readonly locks = new Map<string, Promise<unknown>>()

  private constructor(private readonly file: string) {}

  static async open(file: string): Promise<Orders> {
    const orders = new Orders(file)
    try {
      const list = JSON.parse(await readFile(file, 'utf8')) as Order[]
      for (const o of list) orders.orders.set(o.trackId, o)
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw new Error(`cannot read ${file}: ${(error as Error).message}`)
    }
    return orders
  }

  get(trackId: string): Order | undefined {
    return this.orders.get(trackId)
  }

  async put(order: Order): Promise<void> {
    this.orders.set(order.trackId, order)
    const text = JSON.stringify([...this.orders.values()], null, 2)
    const write = this.writing.then(async () => {
      const tmp = `${this.file}.${randomBytes(4).toString('hex')}.tmp`
      const handle = await open(tmp, 'w')
      try {
        await handle.writeFile(text)
        await handle.sync()
      } finally {
        await handle.close()
      }
      await rename(tmp, this.file)
    })
    this.writing = write.catch(() => {})
    await write
  }

  /** Runs `task` for one order at a time: duplicate notifications arriving together are handled one by one. */
  async exclusive<T>(trackId: string, task: () => Promise<T>): Promise<T> {
    const before = this.locks.get(trackId) ?? Promise.resolve()
    const run = before.catch(() => {}).then(task)
    this.locks.set(trackId, run)
    try {
      return await run
    } finally {
      if (this.locks.get(trackId) === run) this.locks.delete(trackId)
    }
  }
}
