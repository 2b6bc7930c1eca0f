import { randomBytes } from 'node:crypto'
import type pg from 'pg'
import type { Claim, SharedEntries } from '../engine.js'

const ENTRIES_CHANNEL = 'pay_entries'
const CLAIMS_CHANNEL = 'pay_claims'
/** The notification channels of what is beside the state: the engine's listener listens to them too. */
export const BESIDE_CHANNELS = [ENTRIES_CHANNEL, CLAIMS_CHANNEL] as const

/** A claim made here: its number once the database gave it, and the numbers of others' claims heard before that. */
interface LocalClaim {
  token: string
  n: number | undefined
  heard: number[]
  lost: (() => void) | undefined
  done: boolean
}

/**
 * What the instances share beside the state: lists of entries (the request log, the leader's word on clock moves,
 * callback queries), bounded, with ids given under a row lock on each list's head so id order is commit order; and
 * claims (a bot's long poll), numbered by a sequence and announced by NOTIFY: the newest claim of a name wins.
 */
export class Beside {
  /** Per shared list, those to wake when it grows. */
  private readonly wakes = new Map<string, Set<() => void>>()
  /** Claims made here, by name. */
  private readonly claims = new Map<string, Set<LocalClaim>>()

  constructor(
    private readonly pool: pg.Pool,
    private readonly transaction: (task: (client: pg.PoolClient) => Promise<void>) => Promise<void>,
  ) {}

  /** A notification on one of BESIDE_CHANNELS, taken in; false for another channel's. */
  heard(channel: string, payload: string): boolean {
    if (channel === CLAIMS_CHANNEL) this.heardClaim(payload)
    else if (channel === ENTRIES_CHANNEL) for (const wake of this.wakes.get(payload) ?? []) wake()
    else return false
    return true
  }

  /** Notifications may have been missed (the listener connected again): every list's readers look. */
  wakeAll(): void {
    for (const wakes of this.wakes.values()) for (const wake of wakes) wake()
  }

  entries(channel: string, keep: number): SharedEntries {
    const read = (rows: Array<{ id: string; body: string }>) => rows.map((row) => ({ id: Number(row.id), text: row.body }))
    return {
      append: (texts) =>
        this.transaction(async (client) => {
          // Ids under the list's head row lock: a reader never passes over an id that commits later.
          const head = await client.query<{ id: string }>(
            'INSERT INTO pay_entry_heads (channel, id) VALUES ($1, $2) ON CONFLICT (channel) DO UPDATE SET id = pay_entry_heads.id + EXCLUDED.id RETURNING id',
            [channel, texts.length],
          )
          const last = Number(head.rows[0]!.id)
          const first = last - texts.length + 1
          await client.query('INSERT INTO pay_entries (channel, id, body) SELECT $1, i, b FROM unnest($2::bigint[], $3::text[]) AS t(i, b)', [
            channel,
            texts.map((_, i) => first + i),
            texts,
          ])
          // Bounded: twice what readers keep, so one a little behind still finds what it has not read.
          await client.query('DELETE FROM pay_entries WHERE channel = $1 AND id <= $2', [channel, last - 2 * keep])
          await client.query('SELECT pg_notify($1, $2)', [ENTRIES_CHANNEL, channel])
        }),
      after: async (id, limit) =>
        read((await this.pool.query('SELECT id, body FROM pay_entries WHERE channel = $1 AND id > $2 ORDER BY id LIMIT $3', [channel, id, limit])).rows),
      newest: async (limit) =>
        read((await this.pool.query('SELECT id, body FROM (SELECT id, body FROM pay_entries WHERE channel = $1 ORDER BY id DESC LIMIT $2) AS newest ORDER BY id', [channel, limit])).rows),
      onAppended: (wake) => {
        let wakes = this.wakes.get(channel)
        if (!wakes) this.wakes.set(channel, (wakes = new Set()))
        wakes.add(wake)
        return () => wakes.delete(wake)
      },
    }
  }

  claim(name: string): Claim {
    const claim: LocalClaim = { token: randomBytes(8).toString('hex'), n: undefined, heard: [], lost: undefined, done: false }
    let mine = this.claims.get(name)
    if (!mine) this.claims.set(name, (mine = new Set()))
    mine.add(claim)
    const release = () => {
      claim.done = true
      mine.delete(claim)
      if (mine.size === 0 && this.claims.get(name) === mine) this.claims.delete(name)
    }
    // Numbered by a sequence, and announced to every instance with its number: a claim with a higher number wins.
    void this.pool
      .query<{ n: string }>(`SELECT n FROM (SELECT nextval('pay_claims_seq') AS n) AS s, pg_notify($1, concat($2::text, ' ', s.n, ' ', $3::text)) AS x`, [CLAIMS_CHANNEL, name, claim.token])
      .then((result) => {
        claim.n = Number(result.rows[0]!.n)
        if (claim.heard.some((n) => n > claim.n!)) this.lose(claim)
      })
      // Not announced (the database is down): this instance's own rule still holds, and every request answers 503.
      .catch(() => {})
    return {
      onLost: (lost) => {
        claim.lost = lost
      },
      release,
    }
  }

  /** Another claim was made (`<name> <n> <token>`): the claims of that name made here before it are lost. */
  private heardClaim(payload: string): void {
    const [token, n, ...rest] = payload.split(' ').reverse()
    const name = rest.reverse().join(' ')
    const number = Number(n)
    for (const claim of this.claims.get(name) ?? []) {
      if (claim.token === token || claim.done) continue
      if (claim.n === undefined) claim.heard.push(number)
      else if (number > claim.n) this.lose(claim)
    }
  }

  private lose(claim: LocalClaim): void {
    if (claim.done) return
    claim.done = true
    claim.lost?.()
  }
}
