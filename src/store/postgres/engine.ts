import { randomBytes } from 'node:crypto'
import { hostname } from 'node:os'
import pg from 'pg'
import { SandboxError } from '../../domain/outcomes.js'
import type { Change } from '../changes.js'
import type { Claim, EngineHost, EngineOpened, FullImage, RemoteUnit, SharedEntries, StoreDescription, StoreEngine, UnitResult, UnitWrite, WriteOutcome } from '../engine.js'
import { DataFileError } from '../errors.js'
import { applyHeads, type HeadOp, headsOf, lastSets } from './heads.js'
import { Beside, BESIDE_CHANNELS } from './beside.js'
import { AdvisoryLeadership } from './leader.js'
import { mergePart, partsOf, readUnit } from './records.js'
import { LOCKS, migrate, SCHEMA_VERSION, SchemaTooNewError } from './schema.js'

export interface PostgresEngineOptions {
  /** The connection URL, password included (never shown). */
  url: string
  /** The URL as messages show it, the password masked. */
  shown: string
  /** Changes after the latest snapshot after which the leader compacts; it also waits for half as many as records held. */
  compactAfter?: number
  /** How often an instance tells the others it is alive (and how far it has applied the log). Default 2 s. */
  heartbeatMs?: number
}

/** An instance not seen for this long is not counted as live (its heartbeat comes every `heartbeatMs`). */
const LIVE_WITHIN_S = 10
/** Rows of the log read per query when catching up. */
const PAGE = 5_000
const LISTEN_RETRY_MS = { first: 250, max: 5_000 }
const CHANNEL = 'pay_changes'


/**
 * The log in a PostgreSQL database that any number of instances share (see schema.ts for the tables). Each
 * instance keeps its own replica, fed in seq order by its own commits and by the others' (pull, LISTEN/NOTIFY).
 *
 * A write is one transaction: it locks the log's head row, so commits are serialised and seq order is commit
 * order; checks each unit's expectations against the heads of the records it writes; writes the units that hold
 * (their changes, their records' new heads, the head) and notifies the other instances. A unit based on a record
 * another instance changed meanwhile is answered `conflict` and not written.
 */
export class PostgresEngine implements StoreEngine {
  readonly location: string
  readonly leadership: AdvisoryLeadership
  private readonly pool: pg.Pool
  private readonly config: pg.ClientConfig
  private readonly compactAfter: number
  private readonly heartbeatMs: number
  private readonly instance = `${hostname()}-${process.pid}-${randomBytes(4).toString('hex')}`
  private host!: EngineHost
  private url: string | undefined
  private snapshotSeq = 0
  private compaction: Promise<void> | undefined
  private compactSoon = false
  private heartbeat: NodeJS.Timeout | undefined
  private listener: pg.Client | undefined
  private listenRetryMs = LISTEN_RETRY_MS.first
  private listenTimer: NodeJS.Timeout | undefined
  private wake: (() => void) | undefined
  /** Shared lists and claims, beside the state. */
  private readonly beside: Beside
  private closed = false

  constructor(options: PostgresEngineOptions) {
    this.location = options.shown
    this.compactAfter = options.compactAfter ?? 10_000
    this.heartbeatMs = options.heartbeatMs ?? 2_000
    this.config = {
      connectionString: options.url,
      application_name: 'pay-sandbox',
      connectionTimeoutMillis: 5_000,
      // A database that stopped answering (paused, unplugged) fails a query instead of holding it for ever.
      query_timeout: 30_000,
      keepAlive: true,
    }
    this.pool = new pg.Pool({ ...this.config, max: 4, idleTimeoutMillis: 30_000 })
    // An idle connection dropped by the server (a restart) is let go; the next query connects again.
    this.pool.on('error', () => {})
    this.leadership = new AdvisoryLeadership(this.config)
    this.beside = new Beside(this.pool, (task) => this.transaction(task))
  }

  // ── open ──────────────────────────────────────────────────────────────

  async open(host: EngineHost, seed: () => readonly Change[]): Promise<EngineOpened> {
    this.host = host
    try {
      const created = await this.migrate(seed)
      const { seq, replayed } = await this.load()
      await this.pool.query('INSERT INTO pay_instances (id, pid, host, applied) VALUES ($1, $2, $3, $4)', [this.instance, process.pid, hostname(), seq])
      this.startHeartbeat()
      this.listen()
      this.leadership.start()
      return { seq, report: { created, replayed, tornBytes: 0, removedTemps: 0 } }
    } catch (error) {
      await this.release()
      if (error instanceof SchemaTooNewError) {
        throw new DataFileError(
          `the database ${this.location} holds sandbox tables of schema version ${error.found}, newer than this pay-sandbox understands ` +
            `(up to version ${SCHEMA_VERSION}). Nothing was changed. Upgrade pay-sandbox to use it, or give --store another database.`,
        )
      }
      if (error instanceof DataFileError) throw error
      throw new DataFileError(`cannot use the store ${this.location}: ${messageOf(error)}`)
    }
  }

  /** Creates or migrates the tables; a log created now gets the seed, in the same transaction. */
  private async migrate(seed: () => readonly Change[]): Promise<boolean> {
    return this.transaction(async (client) => {
      const { created } = await migrate(client, randomBytes(8).toString('hex'))
      if (created) {
        const changes = seed()
        if (changes.length > 0) {
          await this.insertUnits(client, [{ seq: 1, changes }])
          const heads = new Map<string, number>()
          await applyHeads(client, changes.flatMap((change, i) => headsOf(change, i + 1, heads)))
        }
        await client.query('UPDATE pay_log_head SET seq = $1', [changes.length])
      }
      return created
    })
  }

  /** The latest snapshot and the changes after it, read as one consistent view, into the replica. */
  private async load(): Promise<{ seq: number; replayed: number }> {
    const client = await this.connect()
    try {
      await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY')
      const latest = await client.query<{ seq: string | null }>('SELECT max(seq) AS seq FROM pay_snapshots')
      const snapshotSeq = Number(latest.rows[0]?.seq ?? 0)
      const image: FullImage = { merchants: [], payments: [], deliveries: [] }
      if (snapshotSeq > 0) {
        const parts = await client.query<{ body: string }>('SELECT body FROM pay_snapshots WHERE seq = $1 ORDER BY part', [snapshotSeq])
        for (const row of parts.rows) mergePart(image, row.body, this.location)
      }
      const heads = await client.query<{ key: string; version: string }>('SELECT key, version FROM pay_heads')
      const versions = new Map(heads.rows.map((row) => [row.key, Number(row.version)]))
      this.host.load(image, snapshotSeq, versions)
      let seq = snapshotSeq
      let replayed = 0
      for (;;) {
        const units = await this.changesAfter(client, seq)
        for (const unit of units) {
          unit.changes.forEach((change, i) => this.host.replay(change, unit.seq + i))
          seq = unit.seq + unit.changes.length - 1
          replayed += unit.changes.length
        }
        if (units.length < PAGE) break
      }
      await client.query('COMMIT')
      this.snapshotSeq = snapshotSeq
      return { seq, replayed }
    } catch (error) {
      await client.query('ROLLBACK').catch(() => {})
      throw error
    } finally {
      client.release()
    }
  }

  // ── the log ───────────────────────────────────────────────────────────

  async write(units: readonly UnitWrite[], after: number): Promise<WriteOutcome> {
    return this.transaction(async (client) => {
      const head = await client.query<{ seq: string }>('SELECT seq FROM pay_log_head FOR UPDATE')
      let seq = Number(head.rows[0]!.seq)
      const remote = seq > after ? await this.allAfter(client, after) : []
      const keys = [...new Set(units.flatMap((u) => u.expects.map((e) => e.key)))]
      const heads = new Map<string, number>()
      if (keys.length > 0) {
        const found = await client.query<{ key: string; version: string }>('SELECT key, version FROM pay_heads WHERE key = ANY($1::text[])', [keys])
        for (const row of found.rows) heads.set(row.key, Number(row.version))
      }
      const results: UnitResult[] = []
      const written: RemoteUnit[] = []
      const headOps: HeadOp[] = []
      for (const unit of units) {
        const notWritten = unit.basedOn?.find((i) => !results[i]?.ok)
        const stale = unit.expects.find((e) => (heads.get(e.key) ?? 0) !== e.version)
        if (notWritten !== undefined || stale) {
          results.push({
            ok: false,
            conflict: stale ? `${stale.key} was changed by another instance` : 'a change it was based on was not saved',
          })
          continue
        }
        results.push({ ok: true, seq: seq + 1 })
        written.push({ seq: seq + 1, changes: unit.changes })
        for (const change of unit.changes) headOps.push(...headsOf(change, ++seq, heads))
      }
      if (written.length > 0 && headOps.every((op) => 'set' in op)) {
        // The usual write in one statement, one round trip while the head is locked: the changes, the heads of the
        // records they write, the head, the notification.
        const sets = lastSets(headOps)
        await client.query(
          `WITH changes AS (INSERT INTO pay_changes (seq, instance, unit) SELECT s, $1, u FROM unnest($2::bigint[], $3::text[]) AS t(s, u)),
                heads AS (INSERT INTO pay_heads (key, kind, version) SELECT * FROM unnest($4::text[], $5::text[], $6::bigint[])
                          ON CONFLICT (key) DO UPDATE SET kind = EXCLUDED.kind, version = EXCLUDED.version),
                head AS (UPDATE pay_log_head SET seq = $7)
           SELECT pg_notify($8, $9)`,
          [
            this.instance,
            written.map((u) => u.seq),
            written.map((u) => JSON.stringify(u.changes)),
            [...sets.keys()],
            [...sets.values()].map((v) => v.kind),
            [...sets.values()].map((v) => v.version),
            seq,
            CHANNEL,
            String(seq),
          ],
        )
      } else if (written.length > 0) {
        // A reset or an import clears heads between the others: in turn.
        await this.insertUnits(client, written)
        await applyHeads(client, headOps)
        await client.query('UPDATE pay_log_head SET seq = $1', [seq])
        await client.query('SELECT pg_notify($1, $2)', [CHANNEL, String(seq)])
      }
      if (units.some((u) => u.changes[0]?.k === 'replace')) this.compactSoon = true
      return { results, remote }
    })
  }

  async pull(after: number): Promise<RemoteUnit[]> {
    const client = await this.connect()
    try {
      return await this.allAfter(client, after)
    } finally {
      client.release()
    }
  }

  /** Every unit after `after`, in seq order, without a gap. */
  private async allAfter(client: pg.ClientBase, after: number): Promise<RemoteUnit[]> {
    const all: RemoteUnit[] = []
    let from = after
    for (;;) {
      const units = await this.changesAfter(client, from)
      if (all.length === 0 && units[0] !== undefined && units[0].seq !== after + 1) {
        throw new SandboxError(
          'storageUnavailable',
          `this instance fell behind the shared log of ${this.location} (it stands at change ${after}, and the changes after it were compacted); restart it`,
        )
      }
      all.push(...units)
      const last = units.at(-1)
      if (!last || units.length < PAGE) return all
      from = last.seq + last.changes.length - 1
    }
  }

  private async changesAfter(client: pg.ClientBase, after: number): Promise<RemoteUnit[]> {
    const rows = await client.query<{ seq: string; unit: string }>('SELECT seq, unit FROM pay_changes WHERE seq > $1 ORDER BY seq LIMIT $2', [after, PAGE])
    return rows.rows.map((row) => {
      const seq = Number(row.seq)
      return { seq, changes: readUnit(row.unit, seq, this.location) }
    })
  }

  private async insertUnits(client: pg.ClientBase, units: readonly RemoteUnit[]): Promise<void> {
    await client.query('INSERT INTO pay_changes (seq, instance, unit) SELECT s, $1, u FROM unnest($2::bigint[], $3::text[]) AS t(s, u)', [
      this.instance,
      units.map((u) => u.seq),
      units.map((u) => JSON.stringify(u.changes)),
    ])
  }

  onRemote(wake: () => void): () => void {
    this.wake = wake
    return () => {
      if (this.wake === wake) this.wake = undefined
    }
  }

  /** LISTEN on a connection of its own; after a reconnect, a sync at once (notifications may have been missed). */
  private listen(): void {
    if (this.closed) return
    const client = new pg.Client(this.config)
    this.listener = client
    const retry = () => {
      if (this.listener !== client) return
      this.listener = undefined
      void client.end().catch(() => {})
      if (this.closed) return
      this.listenTimer = setTimeout(() => this.listen(), this.listenRetryMs)
      this.listenTimer.unref()
      this.listenRetryMs = Math.min(this.listenRetryMs * 2, LISTEN_RETRY_MS.max)
    }
    client.on('error', retry)
    client.on('end', retry)
    client.on('notification', (message) => {
      if (this.beside.heard(message.channel, message.payload ?? '')) return
      if (Number(message.payload) > this.host.seq) this.wake?.()
    })
    client
      .connect()
      .then(() => client.query([CHANNEL, ...BESIDE_CHANNELS].map((channel) => `LISTEN ${channel}`).join('; ')))
      .then(() => {
        this.listenRetryMs = LISTEN_RETRY_MS.first
        this.wake?.()
        this.beside.wakeAll()
      })
      .catch(retry)
  }

  entries(channel: string, keep: number): SharedEntries {
    return this.beside.entries(channel, keep)
  }

  claim(name: string): Claim {
    return this.beside.claim(name)
  }

  // ── compaction ────────────────────────────────────────────────────────

  async applied(): Promise<void> {
    if (this.compaction || this.closed || !this.leadership.leading) return
    const behind = this.host.seq - this.snapshotSeq
    if (!this.compactSoon && behind < Math.max(this.compactAfter, this.host.size / 2)) return
    this.compactSoon = false
    this.compaction = this.compact()
      .catch(() => {
        // Tried again after the next write: the log keeps every change meanwhile.
      })
      .finally(() => (this.compaction = undefined))
  }

  /**
   * Writes a snapshot of the replica, and drops the changes every live instance has applied that an older
   * snapshot holds: a snapshot and the changes after the one before it are kept.
   */
  private async compact(): Promise<void> {
    const image = this.host.fullImage()
    const seq = this.host.seq
    const parts = partsOf(image)
    await this.transaction(async (client) => {
      const lock = await client.query<{ taken: boolean }>('SELECT pg_try_advisory_xact_lock($1) AS taken', [LOCKS.compact.toString()])
      if (!lock.rows[0]?.taken) return
      const latest = await client.query<{ seq: string | null }>('SELECT max(seq) AS seq FROM pay_snapshots')
      const previous = Number(latest.rows[0]?.seq ?? 0)
      if (previous >= seq) return
      await client.query('INSERT INTO pay_snapshots (seq, part, body) SELECT $1, p, b FROM unnest($2::int[], $3::text[]) AS t(p, b)', [
        seq,
        parts.map((_, i) => i),
        parts,
      ])
      await client.query('DELETE FROM pay_snapshots WHERE seq < $1', [seq])
      const live = await client.query<{ applied: string | null }>(
        `SELECT min(applied) AS applied FROM pay_instances WHERE seen_at > now() - make_interval(secs => $1)`,
        [LIVE_WITHIN_S * 3],
      )
      const keep = Math.min(previous, Number(live.rows[0]?.applied ?? previous))
      await client.query('DELETE FROM pay_changes WHERE seq <= $1', [keep])
    })
    this.snapshotSeq = seq
  }

  // ── instances ─────────────────────────────────────────────────────────

  private startHeartbeat(): void {
    this.heartbeat = setInterval(() => {
      void this.pool
        .query('UPDATE pay_instances SET seen_at = now(), applied = $2, url = coalesce($3, url) WHERE id = $1', [this.instance, this.host.seq, this.url ?? null])
        .then(async (result) => {
          if (result.rowCount === 0) {
            await this.pool.query('INSERT INTO pay_instances (id, pid, host, applied, url) VALUES ($1, $2, $3, $4, $5) ON CONFLICT (id) DO NOTHING', [
              this.instance,
              process.pid,
              hostname(),
              this.host.seq,
              this.url ?? null,
            ])
          }
          // Instances gone for long (killed) are forgotten.
          await this.pool.query(`DELETE FROM pay_instances WHERE seen_at < now() - interval '1 hour'`)
        })
        .catch(() => {})
    }, this.heartbeatMs)
    this.heartbeat.unref()
  }

  announce(url: string): void {
    this.url = url
    void this.pool.query('UPDATE pay_instances SET url = $2 WHERE id = $1', [this.instance, url]).catch(() => {})
  }

  async describe(): Promise<StoreDescription> {
    const live = await this.pool.query<{ count: string }>('SELECT count(*) AS count FROM pay_instances WHERE seen_at > now() - make_interval(secs => $1)', [LIVE_WITHIN_S])
    return { engine: 'postgres', location: this.location, instances: Number(live.rows[0]?.count ?? 0), leading: this.leadership.leading }
  }

  // ── lifecycle ─────────────────────────────────────────────────────────

  async flush(): Promise<void> {
    while (this.compaction) await this.compaction
  }

  /** Every change is in the database already: lets the connections go, and the leader's lock with them. */
  async close(): Promise<void> {
    await this.flush()
    await this.pool.query('DELETE FROM pay_instances WHERE id = $1', [this.instance]).catch(() => {})
    await this.release()
  }

  async release(): Promise<void> {
    if (this.closed) return
    this.closed = true
    clearInterval(this.heartbeat)
    clearTimeout(this.listenTimer)
    const listener = this.listener
    this.listener = undefined
    await Promise.allSettled([this.leadership.stop(), listener?.end(), this.pool.end()])
  }

  /**
   * A connection of the pool. A connection the server ends while it is checked out (a restart) reports it on the
   * connection itself, not the pool: heard here, it is not an uncaught error; the query under way fails with it.
   */
  private async connect(): Promise<pg.PoolClient> {
    const client = await this.pool.connect()
    if (!heard.has(client)) {
      heard.add(client)
      client.on('error', () => {})
    }
    return client
  }

  private async transaction<T>(task: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    const client = await this.connect()
    let broken: Error | undefined
    try {
      await client.query('BEGIN')
      const result = await task(client)
      await client.query('COMMIT')
      return result
    } catch (error) {
      await client.query('ROLLBACK').catch((e: Error) => (broken = e))
      throw error
    } finally {
      client.release(broken)
    }
  }
}

/** Connections of the pool with an error listener of their own (see PostgresEngine.connect). */
const heard = new WeakSet<pg.PoolClient>()

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}
