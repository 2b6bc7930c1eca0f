import { isIP } from 'node:net'
import { resolve } from 'node:path'
import type { FastifyInstance } from 'fastify'
import { auditPlugin, runAudit } from '../audit/plugin.js'
import type { AuditSettings } from '../audit/rules.js'
import { type CallbackFaults, CallbackDispatcher } from '../callbacks/dispatcher.js'
import { type CallbackPolicy, resolvePolicy } from '../callbacks/schedule.js'
import { chainPlugin } from '../chain/plugin.js'
import { loadPageScripts } from '../pages/page-scripts.js'
import { type ChainOptions, ChainService } from '../chain/service.js'
import { clockPlugin } from '../clock/plugin.js'
import { SandboxClock } from '../clock/sandbox-clock.js'
import { ClockService } from '../clock/service.js'
import { ExpiryWatch } from '../service/expiry.js'
import { MAX_DURATION_MS } from '../domain/duration.js'
import { parsePublicUrl } from '../domain/checkout-url.js'
import { parseStoreUrl } from '../domain/store-url.js'
import { waitAskedBy } from '../domain/fault.js'
import { type AllowedHosts, parseAllowedHosts } from '../domain/request-guard.js'
import { SandboxService } from '../service/sandbox.js'
import { DataFileError, DESCRIPTOR_ADVICE, isOutOfDescriptors } from '../store/errors.js'
import type { StoreFs } from '../store/file/fs.js'
import type { StoreEngine } from '../store/engine.js'
import { openStore } from '../store/open.js'
import { type OpenReport, Store } from '../store/store.js'
import type { Durability } from '../domain/settings.js'
import type { ExportImage } from '../domain/transfer.js'
import { importSandbox } from '../service/transfer.js'
import { version } from '../version.js'
import { buildApp, DEFAULT_TIMEOUTS, type RequestTimeouts } from './app.js'
import type { SandboxInfo } from '../http/info.js'
import type { SandboxSettings, StartFiles } from '../domain/settings.js'
import { callbackRoutes } from './routes/callbacks.js'
import { telegramPlugin } from '../telegram/plugin.js'
import { inspectorPlugin } from '../inspector/plugin.js'
import { faultsPlugin } from '../faults/plugin.js'
import { FaultService } from '../faults/service.js'
import { type FaultRuleInput, faultRuleProblem, HOLD_MAX_MS, inputOf } from '../domain/api-fault.js'
import { RequestLog, type RequestLogLimits } from '../inspector/request-log.js'
import { type TelegramOptions, TelegramService } from '../telegram/service.js'

export const DEFAULT_HOST = '127.0.0.1'
export const DEFAULT_PORT = 8787
export const DEFAULT_DATA_FILE = '.pay-sandbox/data.json'

export interface StartOptions {
  /** 0 picks a free port. Default 8787. */
  port?: number
  host?: string
  /** Data file path; relative paths resolve against the current directory. */
  dataFile?: string
  /**
   * A PostgreSQL URL: the state is kept in that database instead of the data file, shared by every sandbox started
   * with the same URL (see README, Team sandbox).
   */
  store?: string
  /** Request log lines; omit for silence. */
  log?: (line: string) => void
  logError?: (error: unknown) => void
  /** Trouble worth seeing even without request lines (a callback attempt that could not be recorded). */
  warn?: (line: string) => void
  /** Real time (default: the wall clock at start, moved on by the monotonic clock); the sandbox clock adds its offset. */
  now?: () => Date
  compactAfter?: number
  /** The store's file system; tests wrap the real one to inject faults. */
  storeFs?: StoreFs
  /** A store engine in place of the data file's (tests pass one that plays other instances' changes). */
  storeEngine?: StoreEngine
  /** When a change is acknowledged: once fdatasynced (`disk`, the default) or once the OS has it (`os`). */
  durability?: Durability
  /**
   * Callback retries (default 3), timeout per attempt (default 5000 ms), waits (default 1 s, 5 s, 30 s) and
   * attempts out at once (default 64).
   */
  callbacks?: Partial<CallbackPolicy>
  /** Faults played on notifications nobody asked a mode for: a default mode, or seeded chaos. */
  callbackFaults?: CallbackFaults
  /** Pending payments older than this expire (default: never). */
  paymentTtlMs?: number
  /** Confirmations needed (default: per asset) and automatic mining. */
  chain?: ChainOptions
  /** The audit's grace period and thresholds (default: DEFAULT_AUDIT_SETTINGS). */
  audit?: Partial<AuditSettings>
  /**
   * Runs after `POST /_sandbox/shutdown` is answered. The CLI passes its signal path (stop, then exit);
   * by default the sandbox just stops.
   */
  onShutdownRequest?: () => void
  /**
   * Host names the sandbox answers besides IP literals, localhost and *.localhost (and `host` when it is a
   * name), e.g. a docker-compose service name; `.example.test` allows a domain and its subdomains. `true`
   * answers any Host, which lets any web page read and change the sandbox through DNS rebinding.
   */
  allowedHosts?: readonly string[] | true
  /** Time allowed to send the headers (default 10 s) and the whole request (default 30 s); then 408 and close. 0: no limit. */
  timeouts?: Partial<RequestTimeouts>
  /** The Bot API emulator's webhook retry waits and timeout, and whether URL buttons may lead to local addresses. */
  telegram?: Omit<TelegramOptions, 'now'>
  /**
   * Where customers and bots reach the sandbox (a tunnel, a LAN name): checkout URLs the sandbox hands out start
   * with it (health, the inspector, the CLI, scenario bindings), and its host name is answered. Default: the URL it
   * listens on.
   */
  publicUrl?: string
  /**
   * A checked export file (ExportReader's image) that replaces the data file's state before the server listens,
   * as an import would: whole, or not at all (then the start fails and the data file is as it was).
   */
  seed?: ExportImage
  /** How many requests, and how many bytes of them, the request log keeps (default: the last 1,000, at most 4 MB). */
  requestLog?: Partial<RequestLogLimits>
  /** Shown in /_sandbox/health's settings only: the files the caller imported at start and exports at stop. */
  files?: StartFiles
  /**
   * API fault rules to play from the start (`pay sandbox start --api-fault`): they replace the rules an earlier start
   * put in the data file, and are listed, counted and removed like any other.
   */
  apiFaults?: readonly FaultRuleInput[]
  /** The longest a request is held open by a timeout fault (default 5 minutes). */
  faultHoldMs?: number
}

export interface RunningSandbox {
  url: string
  info: SandboxInfo
  report: OpenReport
  service: SandboxService
  app: FastifyInstance
  callbacks: CallbackDispatcher
  /** The Telegram Bot API emulator. */
  telegram: TelegramService
  /** The sandbox clock, its moves, and the chain that mines on it. */
  clock: ClockService
  chain: ChainService
  /** Expires pending payments; undefined without a time to live. */
  expiry: ExpiryWatch | undefined
  /** The API fault rules. */
  faults: FaultService
  /** Finishes in-flight requests, writes the full state to the data file, releases it. */
  stop(): Promise<void>
}

/** The port is taken or the address cannot be bound. */
export class ListenError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'ListenError'
  }
}

/**
 * Opens the data file, builds the app and listens. Throws DataFileError, ListenError or (a package not built)
 * PageScriptMissingError with a clear message; whatever fails once the data file is open, the file is let go (its
 * lock released) before the error is thrown.
 */
export async function startServer(options: StartOptions = {}): Promise<RunningSandbox> {
  loadPageScripts()
  const shared = options.store === undefined ? undefined : parseStoreUrl(options.store)
  if (shared && 'problem' in shared) throw new DataFileError(`--store ${shared.problem}`)
  if (shared && options.dataFile !== undefined) throw new TypeError('give a store or a data file, not both')
  // Where the state is: the data file's path, or the database's URL with its password masked.
  const dataFile = shared ? shared.shown : resolve(options.dataFile ?? DEFAULT_DATA_FILE)
  const host = options.host ?? DEFAULT_HOST
  const port = options.port ?? DEFAULT_PORT
  checkDurations(options)
  const sandboxClock = new SandboxClock({
    ...(options.now ? { real: options.now } : {}),
    onError: (error) => (options.logError ?? (() => {}))(error),
  })
  const now = (): Date => sandboxClock.now()
  const policy = resolvePolicy(options.callbacks)
  const publicUrl = options.publicUrl === undefined ? undefined : parsePublicUrl(options.publicUrl)
  if (publicUrl && 'problem' in publicUrl) throw new TypeError(`publicUrl ${publicUrl.problem}`)
  const allowedHosts = withPublicHost(resolveAllowedHosts(options.allowedHosts, host), publicUrl?.host)
  const requests = new RequestLog(options.requestLog)
  const requestMs = options.timeouts?.requestMs ?? DEFAULT_TIMEOUTS.requestMs
  // Node refuses a headers timeout longer than the request's.
  const headersMs = Math.min(options.timeouts?.headersMs ?? DEFAULT_TIMEOUTS.headersMs, requestMs || Infinity)
  const onError = (error: unknown) => (options.logError ?? (() => {}))(error)
  const { store, report } = options.storeEngine
    ? await Store.open(options.storeEngine, { now, onError })
    : await openStore({
        ...(shared
          ? { store: shared }
          : {
              file: dataFile,
              ...(options.storeFs !== undefined ? { fs: options.storeFs } : {}),
              ...(options.durability !== undefined ? { durability: options.durability } : {}),
            }),
        now,
        onError,
        ...(options.compactAfter !== undefined ? { compactAfter: options.compactAfter } : {}),
      })
  // What is running so far, stopped in turn if the start fails.
  const started: { callbacks?: CallbackDispatcher; app?: FastifyInstance; expiry?: ExpiryWatch; chain?: ChainService; leading?: () => void; sharing?: () => void } = {}
  try {
    // A team sandbox's request log is the instances' one list.
    const sharedRequests = store.sharedEntries('requests', requests.capacity)
    // An entry that cannot be sent while the database is down is left out: every request answers 503 meanwhile anyway.
    if (sharedRequests) started.sharing = requests.share(sharedRequests)
    const saved = store.clock()
    if (saved) sandboxClock.load(saved)
    let chain: ChainService | undefined
    const service = new SandboxService(store, now, { confirmationsFor: (asset) => chain!.required(asset) })
    chain = started.chain = new ChainService(service, sandboxClock, options.chain)
    const clock = new ClockService(store, sandboxClock)
    if (options.seed) {
      try {
        await importSandbox(service, options.seed)
      } catch (error) {
        throw new DataFileError(`cannot load the import into ${dataFile}: ${(error as Error).message}`)
      }
    }
    const callbacks = (started.callbacks = new CallbackDispatcher({
      store,
      policy,
      clock: sandboxClock,
      ...(options.callbackFaults ? { faults: options.callbackFaults } : {}),
      ...(options.log ? { log: options.log } : {}),
      ...(options.warn ? { warn: options.warn } : {}),
    }))
    service.onPaymentChanged(callbacks)
    const expiry = options.paymentTtlMs !== undefined ? new ExpiryWatch(service, sandboxClock, options.paymentTtlMs) : undefined
    if (expiry) service.onPaymentChanged((started.expiry = expiry))
    const telegram = new TelegramService(store, { ...options.telegram, now })
    const faults = new FaultService(store, now)
    service.onPaymentChanged(faults)
    // The rules of the last start go; this start's take their place.
    await faults.clear('start')
    for (const rule of options.apiFaults ?? []) await faults.add(rule, 'start')
    let info: SandboxInfo = {
      name: 'pay-sandbox',
      version,
      url: '',
      dataFile,
      pid: process.pid,
      startedAt: now().toISOString(),
    }
    const app = (started.app = await buildApp({
      service,
      info: () => info,
      clock: () => sandboxClock.view(),
      checkout: { clock: sandboxClock, chain, ...(expiry ? { expiry } : {}) },
      ...(options.log ? { log: options.log } : {}),
      ...(options.logError ? { logError: options.logError } : {}),
      requests,
      allowedHosts,
      timeouts: { headersMs, requestMs },
      // Each request sees every change acknowledged before it was sent, by any instance.
      ...(store.syncs ? { sync: () => store.sync() } : {}),
      onShutdownRequest: () => (options.onShutdownRequest ?? (() => void running.stop().catch(() => {})))(),
      wrappers: [faultsPlugin({ faults, store, now, ...(options.faultHoldMs !== undefined ? { holdMaxMs: options.faultHoldMs } : {}) })],
      plugins: [
        callbackRoutes(store, callbacks),
        telegramPlugin(telegram),
        clockPlugin(clock),
        chainPlugin(chain),
        auditPlugin(service, sandboxClock, options.audit),
        inspectorPlugin({
          service,
          callbacks,
          requests,
          url: () => info.url,
          checkoutBase: () => info.settings?.publicUrl ?? info.url,
          lab: {
            clock: () => sandboxClock.view(),
            verifiesOf: (trackId) => service.store.verifiesOf(trackId),
            faults: { rules: () => faults.list(), hitsOf: (trackId) => faults.hitsOf(trackId), onChanged: (listener) => faults.onChanged(listener) },
            audit: async () => {
              await service.store.flushObservations()
              return runAudit(service, sandboxClock, { strict: false }, options.audit)
            },
          },
        }),
      ],
    }))
    try {
      await app.listen({ port, host })
    } catch (error) {
      throw listenError(error, host, port)
    }
    const address = app.server.address()
    const boundPort = typeof address === 'object' && address ? address.port : port
    const urlHost = host.includes(':') ? `[${host}]` : host === '0.0.0.0' ? '127.0.0.1' : host
    const url = `http://${urlHost}:${boundPort}`
    info = { ...info, url, settings: settingsOf(options, { host, port: boundPort, dataFile, policy, ...(publicUrl ? { publicUrl: publicUrl.url } : {}) }) }
    store.announce(url)
    // Jobs that must run once (callback attempts, webhooks, expiries, blocks) run while this instance leads; each
    // resumes from the state when it starts. The data file's sandbox always leads.
    started.leading = store.leadership.watch({
      lead: () => {
        callbacks.resume()
        telegram.resume()
        expiry?.start()
        chain.start()
      },
      follow: () => {
        expiry?.stop()
        chain.stop()
        void callbacks.standDown()
        telegram.standDown()
      },
    })

    let stopping: Promise<void> | undefined
    const running: RunningSandbox = {
      url,
      info,
      report,
      service,
      app,
      callbacks,
      telegram,
      clock,
      chain,
      expiry,
      faults,
      stop: () =>
        (stopping ??= (async () => {
          // Retries, expiries and blocks wait for the next start rather than holding up the stop.
          started.leading?.()
          expiry?.stop()
          chain.stop()
          sandboxClock.stop()
          await callbacks.stop()
          await app.close()
          await requests.settled()
          started.sharing?.()
          await store.close()
        })()),
    }
    return running
  } catch (error) {
    started.leading?.()
    started.expiry?.stop()
    started.chain?.stop()
    sandboxClock.stop()
    await started.callbacks?.stop().catch(() => {})
    await started.app?.close().catch(() => {})
    started.sharing?.()
    await store.release()
    throw error
  }
}

/** Why the server could not listen, as a person can act on it; other errors as they are. */
function listenError(error: unknown, host: string, port: number): unknown {
  const code = (error as NodeJS.ErrnoException).code
  if (code === 'EADDRINUSE') return new ListenError(`port ${port} on ${host} is in use; pick another with --port, or --port 0 for any free port`)
  if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND') return new ListenError(`cannot listen on host ${host}: no such local address`)
  if (code === 'EACCES') return new ListenError(`not allowed to listen on port ${port}; use a port above 1023`)
  if (isOutOfDescriptors(error)) return new ListenError(`cannot listen on port ${port}: too many open files (${code}): ${DESCRIPTOR_ADVICE}`)
  return error
}

/**
 * Durations the sandbox adds to its clock are at most MAX_DURATION_MS, as every flag takes them, so that every time
 * it computes still prints (see clock-range.ts). A RangeError naming the option otherwise.
 */
function checkDurations(options: StartOptions): void {
  const within = (name: string, ms: number | undefined) => {
    if (ms !== undefined && !(Number.isFinite(ms) && ms >= 0 && ms <= MAX_DURATION_MS)) {
      throw new RangeError(`${name} must be from 0 to ${MAX_DURATION_MS} ms (24 h) (got ${ms})`)
    }
  }
  within('paymentTtlMs', options.paymentTtlMs)
  within('chain.blockTimeMs', options.chain?.blockTimeMs)
  if (options.faultHoldMs !== undefined && !(Number.isInteger(options.faultHoldMs) && options.faultHoldMs >= 1 && options.faultHoldMs <= HOLD_MAX_MS)) {
    throw new RangeError(`faultHoldMs must be a whole number of ms from 1 to ${HOLD_MAX_MS} (got ${options.faultHoldMs})`)
  }
  for (const [i, rule] of (options.apiFaults ?? []).entries()) {
    const problem = faultRuleProblem(rule)
    if (problem !== undefined) throw new RangeError(`apiFaults[${i}]: ${problem}`)
  }
  const mode = options.callbackFaults?.mode
  const wait = mode ? waitAskedBy(mode) : undefined
  if (wait) within(`callbackFaults.mode.${wait.field}`, wait.ms as number)
}

/** What the sandbox runs with, as /_sandbox/health reports it. */
function settingsOf(options: StartOptions, resolved: { host: string; port: number; dataFile: string; policy: CallbackPolicy; publicUrl?: string }): SandboxSettings {
  const given = options.allowedHosts === true ? undefined : parseAllowedHosts(options.allowedHosts ?? [])
  // A list that is not one was refused before the sandbox started.
  const allowedHosts = given === undefined ? true : 'error' in given ? [] : given.hosts === 'all' ? true : given.hosts
  return {
    host: resolved.host,
    port: resolved.port,
    dataFile: resolved.dataFile,
    ...(options.store !== undefined ? { store: resolved.dataFile } : {}),
    durability: options.durability ?? 'disk',
    allowedHosts,
    callbacks: resolved.policy,
    ...(options.callbackFaults ? { callbackFaults: options.callbackFaults } : {}),
    ...(options.paymentTtlMs !== undefined ? { paymentTtlMs: options.paymentTtlMs } : {}),
    ...(options.chain ? { chain: options.chain } : {}),
    quiet: options.log === undefined,
    ...(options.files ? { files: options.files } : {}),
    ...(options.apiFaults && options.apiFaults.length > 0 ? { apiFaults: options.apiFaults.map(inputOf) } : {}),
    ...(resolved.publicUrl !== undefined ? { publicUrl: resolved.publicUrl } : {}),
    ...(options.telegram?.allowLocalUrls ? { telegram: { allowLocalUrls: true } } : {}),
  }
}

/** The public URL's host is answered too: whoever named it expects the sandbox to be reached by it. */
function withPublicHost(allowed: AllowedHosts, host: string | undefined): AllowedHosts {
  if (host === undefined || allowed === 'all' || isIP(host) !== 0 || allowed.includes(host)) return allowed
  return [...allowed, host]
}

/** The option checked, plus the listening host when it is a name: whoever listens there expects to be reached by it. */
function resolveAllowedHosts(option: readonly string[] | true | undefined, host: string): AllowedHosts {
  if (option === true) return 'all'
  const parsed = parseAllowedHosts(option ?? [])
  if ('error' in parsed) throw new TypeError(parsed.error)
  if (parsed.hosts === 'all' || isIP(host) !== 0) return parsed.hosts
  return [...parsed.hosts, host.toLowerCase()]
}

export { DataFileError }
