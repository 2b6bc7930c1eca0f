import type { PoolClient } from 'pg'

/**
 * The sandbox's tables in a PostgreSQL database, each named `pay_…` so they can share a database with others.
 * `pay_schema` holds the version of this layout; each migration takes it one version further. Starts migrate
 * under a transaction-scoped advisory lock, so instances starting together do not race.
 *
 * - pay_log_head: the one row every commit locks (`FOR UPDATE`): the last seq given, so seq order is commit order.
 * - pay_changes: the log: one row per unit, at the seq of its first change, its changes as JSON text (text, not
 *   jsonb: the records' JSON stays exactly what the data file holds, NUL escapes included).
 * - pay_heads: per record key, the seq of the change that last wrote it: what a unit's expectations are checked against.
 * - pay_snapshots: the log compacted: the full image at a seq, in parts of bounded size.
 * - pay_instances: the instances running on the database, and how far each has applied the log (heartbeat).
 * - pay_entries, pay_entry_heads: lists beside the state that the instances share, bounded (the request log);
 *   each list's ids are given under a row lock on its head, so id order is commit order.
 * - pay_claims_seq: numbers the claims instances make (a bot's long poll): the newest claim wins.
 */
export const SCHEMA_VERSION = 3

const MIGRATIONS: ReadonlyArray<readonly string[]> = [
  // 1: the log, its heads and snapshots, the instances.
  [
    `CREATE TABLE pay_log_head (
       only_row boolean PRIMARY KEY DEFAULT true CHECK (only_row),
       seq bigint NOT NULL,
       store_id text NOT NULL
     )`,
    `CREATE TABLE pay_changes (
       seq bigint PRIMARY KEY,
       instance text NOT NULL,
       at timestamptz NOT NULL DEFAULT now(),
       unit text NOT NULL
     )`,
    `CREATE TABLE pay_heads (
       key text PRIMARY KEY,
       kind text NOT NULL,
       version bigint NOT NULL
     )`,
    'CREATE INDEX pay_heads_kind ON pay_heads (kind)',
    `CREATE TABLE pay_snapshots (
       seq bigint NOT NULL,
       part integer NOT NULL,
       body text NOT NULL,
       PRIMARY KEY (seq, part)
     )`,
    `CREATE TABLE pay_instances (
       id text PRIMARY KEY,
       url text,
       pid integer NOT NULL,
       host text NOT NULL,
       started_at timestamptz NOT NULL DEFAULT now(),
       seen_at timestamptz NOT NULL DEFAULT now(),
       applied bigint NOT NULL DEFAULT 0
     )`,
  ],
  // 2: shared lists beside the state (the request log).
  [
    `CREATE TABLE pay_entry_heads (
       channel text PRIMARY KEY,
       id bigint NOT NULL
     )`,
    `CREATE TABLE pay_entries (
       channel text NOT NULL,
       id bigint NOT NULL,
       body text NOT NULL,
       PRIMARY KEY (channel, id)
     )`,
  ],
  // 3: claims (one long poll per bot across instances).
  ['CREATE SEQUENCE pay_claims_seq'],
]

/** Advisory lock keys (one namespace of bigints per database): the migration, the leader, compaction. */
export const LOCKS = { migrate: 7_240_190_001n, leader: 7_240_190_002n, compact: 7_240_190_003n } as const

/** The database holds a sandbox schema newer than this code: nothing was changed. */
export class SchemaTooNewError extends Error {
  constructor(readonly found: number) {
    super(`schema version ${found}`)
  }
}

/**
 * Creates or migrates the tables inside the caller's transaction, which holds the migration lock until it ends.
 * Returns whether the log was created just now. Throws SchemaTooNewError for a schema this code does not know.
 */
export async function migrate(client: PoolClient, storeId: string): Promise<{ created: boolean }> {
  await client.query('SELECT pg_advisory_xact_lock($1)', [LOCKS.migrate.toString()])
  await client.query(`CREATE TABLE IF NOT EXISTS pay_schema (
      only_row boolean PRIMARY KEY DEFAULT true CHECK (only_row),
      version integer NOT NULL
    )`)
  const found = await client.query<{ version: number }>('SELECT version FROM pay_schema')
  const version = found.rows[0]?.version ?? 0
  if (version > SCHEMA_VERSION) throw new SchemaTooNewError(version)
  for (let next = version + 1; next <= SCHEMA_VERSION; next++) {
    for (const statement of MIGRATIONS[next - 1]!) await client.query(statement)
    if (next === 1) await client.query('INSERT INTO pay_log_head (seq, store_id) VALUES (0, $1)', [storeId])
    await client.query('INSERT INTO pay_schema (version) VALUES ($1) ON CONFLICT (only_row) DO UPDATE SET version = EXCLUDED.version', [next])
  }
  return { created: version === 0 }
}
