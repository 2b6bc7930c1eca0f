import type pg from 'pg'
import type { Change } from '../changes.js'
import { keyOf, keyText, type RecordKind, REPLACE_KINDS, RESET_KINDS } from '../keys.js'

/**
 * pay_heads: per record key, the seq of the change that last wrote it, kept as the replica keeps its versions
 * (State.versionOf), so a unit's expectations can be checked in the database: a reset or an import clears the kinds
 * it clears, and the records an import brings are at its seq. Heads of updates a bot confirmed, and of files let go,
 * stay: an id used again is refused, as it should be.
 */

/** What a change does to the heads: the record it writes gets its seq; a reset or import clears kinds' heads. */
export type HeadOp = { set: string; kind: RecordKind; version: number } | { clear: readonly RecordKind[] }

export function headsOf(change: Change, seq: number, heads: Map<string, number>): HeadOp[] {
  if (change.k === 'reset' || change.k === 'replace') {
    const kinds = change.k === 'reset' ? RESET_KINDS : REPLACE_KINDS
    for (const key of [...heads.keys()]) if (kinds.some((kind) => key.startsWith(`${kind}:`))) heads.delete(key)
    const ops: HeadOp[] = [{ clear: kinds }]
    if (change.k === 'replace') {
      // The records an import brings are at its seq, as the replica has them.
      const v = change.v
      const records: Change[] = [
        ...v.merchants.map((m) => ({ k: 'merchant' as const, v: m })),
        ...v.payments.map((p) => ({ k: 'payment' as const, v: p })),
        ...v.deliveries.map((d) => ({ k: 'delivery' as const, v: d })),
      ]
      for (const record of records) ops.push(...headsOf(record, seq, heads))
    }
    return ops
  }
  const key = keyOf(change)
  if (!key) return []
  const text = keyText(key)
  heads.set(text, seq)
  return [{ set: text, kind: key.kind, version: seq }]
}

/** The heads a write without clears leaves: the last version of each key. */
export function lastSets(ops: readonly HeadOp[]): Map<string, { kind: RecordKind; version: number }> {
  const sets = new Map<string, { kind: RecordKind; version: number }>()
  for (const op of ops) if ('set' in op) sets.set(op.set, { kind: op.kind, version: op.version })
  return sets
}

/** Writes head changes in order: consecutive sets in one statement (the last of a key wins), clears between them. */
export async function applyHeads(client: pg.ClientBase, ops: readonly HeadOp[]): Promise<void> {
  const sets = new Map<string, { kind: RecordKind; version: number }>()
  const flush = async () => {
    if (sets.size === 0) return
    await client.query(
      'INSERT INTO pay_heads (key, kind, version) SELECT * FROM unnest($1::text[], $2::text[], $3::bigint[]) ON CONFLICT (key) DO UPDATE SET kind = EXCLUDED.kind, version = EXCLUDED.version',
      [[...sets.keys()], [...sets.values()].map((s) => s.kind), [...sets.values()].map((s) => s.version)],
    )
    sets.clear()
  }
  for (const op of ops) {
    if ('clear' in op) {
      await flush()
      await client.query('DELETE FROM pay_heads WHERE kind = ANY($1::text[])', [op.clear])
    } else {
      sets.delete(op.set)
      sets.set(op.set, { kind: op.kind, version: op.version })
    }
  }
  await flush()
}

