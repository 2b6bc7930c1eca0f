import type { StoreUrl } from '../domain/store-url.js'
import { FileEngine, type FileEngineOptions } from './file/engine.js'
import { type OpenReport, Store, type StoreCoreOptions } from './store.js'

/** A store on a PostgreSQL database that several instances share. */
export interface SharedStoreOptions {
  store: StoreUrl
  /** Changes after the latest snapshot after which the leader compacts the log. */
  compactAfter?: number
}

/** Where the sandbox keeps its data, and how: the data file (the file engine), or a PostgreSQL database. */
export type StoreOptions = (FileEngineOptions | SharedStoreOptions) & StoreCoreOptions

/** Opens the store on the data file: its lock taken, its snapshot and journal loaded. Throws DataFileError. */
export function openFileStore(options: FileEngineOptions & StoreCoreOptions): Promise<{ store: Store<FileEngine>; report: OpenReport }> {
  const { onError, ...file } = options
  return Store.open(new FileEngine(file), { ...(options.now ? { now: options.now } : {}), ...(onError ? { onError } : {}) })
}

/** Opens the store the options name: the PostgreSQL engine is loaded only when asked for. Throws DataFileError. */
export async function openStore(options: StoreOptions): Promise<{ store: Store; report: OpenReport }> {
  if (!('store' in options)) return openFileStore(options)
  const { PostgresEngine } = await import('./postgres/engine.js')
  const engine = new PostgresEngine({
    url: options.store.url,
    shown: options.store.shown,
    ...(options.compactAfter !== undefined ? { compactAfter: options.compactAfter } : {}),
  })
  return Store.open(engine, { ...(options.now ? { now: options.now } : {}), ...(options.onError ? { onError: options.onError } : {}) })
}
