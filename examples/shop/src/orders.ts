import { randomBytes } from 'node:crypto'

/**
 * Where an order stands. `awaiting_payment` and `confirming` are open: the shop keeps verifying them. The others
 * are final; only `delivered` ships anything.
 */
export type OrderState = 'awaiting_payment' | 'confirming' | 'delivered' | 'amount_mismatch' | 'not_completed' | 'cancelled'

export const OPEN_STATES: readonly OrderState[] = ['awaiting_payment', 'confirming']

export interface Order {
  id: string
  item: string
  quantity: number
  /** The order amount, as sent to create: verify must answer exactly this before the order ships. */
  amount: number
  state: OrderState
  trackId: string
  checkoutUrl: string
  refNumber?: string
  createdAt: string
  updatedAt: string
  /** Verify calls in a row that got no answer to act on, and the last reason. */
  verifyFailures: number
  lastError?: string
  /** When the reconciliation verifies this order next (ms since the epoch). */
  nextCheckAt: number
}

/** The orders, in memory (an example: a real shop keeps them in its database), each changed by one task at a time. */
export class Orders {
  private readonly byId = new Map<string, Order>()
  private readonly byTrackId = new Map<string, string>()
  private readonly locks = new Map<string, Promise<unknown>>()

  newId(): string {
    return `ord_${randomBytes(6).toString('base64url')}`
  }

  put(order: Order): void {
    this.byId.set(order.id, order)
    this.byTrackId.set(order.trackId, order.id)
  }

  get(id: string): Order | undefined {
    return this.byId.get(id)
  }

  byPayment(trackId: string): Order | undefined {
    const id = this.byTrackId.get(trackId)
    return id === undefined ? undefined : this.byId.get(id)
  }

  list(): Order[] {
    return [...this.byId.values()]
  }

  /** Runs `task` once every earlier task on this order has ended: a notification and a reconciliation never race. */
  exclusive<T>(id: string, task: () => Promise<T>): Promise<T> {
    const before = this.locks.get(id) ?? Promise.resolve()
    const run = before.then(task, task)
    const settled = run.catch(() => undefined)
    this.locks.set(id, settled)
    void settled.then(() => {
      if (this.locks.get(id) === settled) this.locks.delete(id)
    })
    return run
  }
}
