import { FileEngine, type FileEngineOptions } from './file/engine.js'
import { type OpenReport, Store, type StoreCoreOptions } from './store.js'

/** Where the sandbox keeps its data, and how: today the data file (the file engine). */
export type StoreOptions = FileEngineOptions & StoreCoreOptions

/** Opens the store on the data file: its lock taken, its snapshot and journal loaded. Throws DataFileError. */
export function openFileStore(options: StoreOptions): Promise<{ store: Store<FileEngine>; report: OpenReport }> {
  const { onError, ...file } = options
  return Store.open(new FileEngine(file), { ...(options.now ? { now: options.now } : {}), ...(onError ? { onError } : {}) })
}

/** Opens the store the options name. */
export function openStore(options: StoreOptions): Promise<{ store: Store; report: OpenReport }> {
  return openFileStore(options)
}
