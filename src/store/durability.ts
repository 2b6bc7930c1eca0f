/**
 * How an append is acknowledged. `disk` (the default): after its fdatasync, so it survives a power loss. `os`:
 * once the OS has the write, synced within OS_SYNC_MS, so it survives the process being killed but not a power
 * loss (Redis's `appendfsync everysec`, SQLite's `synchronous=NORMAL`).
 *
 * A module of its own: `pay sandbox start` names the choices in its flags, and every `pay` command loads those at
 * start, without the journal's record checks (and their JSON schema validator).
 */
export type Durability = 'disk' | 'os'
export const DURABILITIES: readonly Durability[] = ['disk', 'os']
