import pg from 'pg'
import type { Leadership } from '../engine.js'
import { LOCKS } from './schema.js'

/** How often an instance that does not lead tries to, and a leader checks that its lock's session is still there. */
const TRY_EVERY_MS = 1_000
/** How long a leader's check of its lock's session may take before it stops leading. */
const CHECK_TIMEOUT_MS = 3_000

type Roles = { lead(): void; follow(): void }

/**
 * The leader is the instance holding a session-level advisory lock on a connection of its own. A leader killed
 * (even with kill -9) loses its session, and so the lock: another instance takes it within a second or so. A
 * leader whose connection fails stops leading at once (it cannot know whether it still holds the lock) and tries
 * again on a new connection.
 */
export class AdvisoryLeadership implements Leadership {
  private held = false
  private client: pg.Client | undefined
  private connecting: Promise<pg.Client> | undefined
  private timer: NodeJS.Timeout | undefined
  private busy = false
  private stopped = false
  private readonly roles = new Set<Roles>()

  private readonly config: pg.ClientConfig

  constructor(config: pg.ClientConfig) {
    // A leader cut off from the database stops leading after this, sooner than the database lets its lock go.
    this.config = { ...config, query_timeout: CHECK_TIMEOUT_MS }
  }

  get leading(): boolean {
    return this.held
  }

  watch(roles: Roles): () => void {
    this.roles.add(roles)
    if (this.held) roles.lead()
    return () => this.roles.delete(roles)
  }

  /** Starts trying (at once, then every second). */
  start(): void {
    void this.tick()
    this.timer = setInterval(() => void this.tick(), TRY_EVERY_MS)
    this.timer.unref()
  }

  private async tick(): Promise<void> {
    if (this.busy || this.stopped) return
    this.busy = true
    try {
      const client = this.client ?? (await this.connect())
      if (this.held) {
        await client.query('SELECT 1')
      } else {
        const taken = await client.query<{ taken: boolean }>('SELECT pg_try_advisory_lock($1) AS taken', [LOCKS.leader.toString()])
        if (taken.rows[0]?.taken && !this.stopped) this.take()
      }
    } catch {
      this.lost()
    } finally {
      this.busy = false
    }
  }

  private async connect(): Promise<pg.Client> {
    this.connecting ??= (async () => {
      const client = new pg.Client(this.config)
      client.on('error', () => this.lost())
      try {
        await client.connect()
        // The database lets the lock of a leader it cannot reach any more go once these keepalives fail (~11 s),
        // rather than after the system's default (two hours): the leader itself gave up before (CHECK_TIMEOUT_MS).
        await client.query('SET tcp_keepalives_idle = 5; SET tcp_keepalives_interval = 2; SET tcp_keepalives_count = 3')
      } catch (error) {
        void client.end().catch(() => {})
        throw error
      }
      this.client = client
      return client
    })().finally(() => (this.connecting = undefined))
    return this.connecting
  }

  private take(): void {
    this.held = true
    for (const roles of this.roles) roles.lead()
  }

  /** The lock's connection failed: not leading any more, whatever the database thinks; a new connection tries again. */
  private lost(): void {
    const client = this.client
    this.client = undefined
    if (client) void client.end().catch(() => {})
    if (!this.held) return
    this.held = false
    for (const roles of this.roles) roles.follow()
  }

  /** Stops trying and lets the lock go (closing its session releases it). */
  async stop(): Promise<void> {
    this.stopped = true
    clearInterval(this.timer)
    const client = this.client
    this.client = undefined
    this.held = false
    if (client) await client.end().catch(() => {})
  }
}
