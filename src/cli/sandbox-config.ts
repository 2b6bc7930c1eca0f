import { resolve } from 'node:path'
import { Flags, type Interfaces } from '@oclif/core'
import { MAX_CONCURRENCY, MAX_RETRIES, MAX_TIMEOUT_MS, MAX_WAIT_MS, parseSchedule, resolvePolicy, type CallbackPolicy } from '../callbacks/schedule.js'
import { COMPACT_FORM, compactFault, type FaultRuleInput, inputOf, parseCompactFault } from '../domain/api-fault.js'
import { parsePublicUrl } from '../domain/checkout-url.js'
import { formatDuration, MAX_DURATION_MS, readDuration } from '../domain/duration.js'
import { CALLBACK_MODE_RULE, CHAOS_NAMES, parseCallbackMode, writeCallbackMode } from '../domain/fault.js'
import { MAX_CONFIRMATIONS } from '../domain/payment.js'
import { type AllowedHosts, allowedHostsFlag, parseAllowedHosts } from '../domain/request-guard.js'
import { DURABILITIES, type Durability, type SandboxSettings } from '../domain/settings.js'
import { parseStoreUrl, type StoreUrl } from '../domain/store-url.js'
import type { StartOptions } from '../server/start.js'
import { usage } from './usage.js'

/**
 * The sandbox's start options, each once: its flag, its environment variable, how it reads and what it means, how
 * it goes into the settings the sandbox starts with, how it is read back from a running sandbox's settings, and how
 * it is written back as a flag for a sandbox started in the background. The flags of `pay sandbox start` and
 * `pay sandbox exec`, the arguments of a detached sandbox and startServer()'s options are all read from this table.
 */

/** `strings`: a string flag that may be repeated. */
type Kind = 'string' | 'strings' | 'integer' | 'boolean'
type RawOf<K extends Kind> = K extends 'integer' ? number : K extends 'boolean' ? boolean : K extends 'strings' ? string[] : string

/** The settings a start builds (startServer()'s options, and what the CLI does around the sandbox). */
export type StartDraft = Omit<Partial<SandboxSettings>, 'callbacks'> & { callbacks?: Partial<CallbackPolicy> }

export interface StartOption<V = unknown, K extends Kind = Kind> {
  readonly kind: K
  /** Help text, as `pay sandbox start --help` shows it. */
  readonly description: string
  /** Read when the flag is not given. */
  readonly env?: string
  /** The bounds of an integer, checked as the flag is read. */
  readonly min?: number
  readonly max?: number
  /** The only values a string takes. */
  readonly options?: readonly string[]
  readonly default?: RawOf<K>
  /** The value as typed, checked: a RangeError naming the flag when it is wrong. */
  parse(raw: RawOf<K>): V
  /** The flag's text for a child process (each text, for a repeated flag), which parses back to the same value; undefined: nothing to write. */
  write(value: V): string | readonly string[] | undefined
  /** Puts the value into the settings a start builds. `config`: the other values, for a value that needs one. */
  apply(value: V, draft: StartDraft, config: Readonly<Record<string, unknown>>): void
  /** The value back from a running sandbox's settings; undefined when it has none. */
  read(settings: StartDraft): V | undefined
  /**
   * How `pay sandbox exec` takes it: as start does (absent), not at all (false), or with its own help and default
   * and no environment variable (those name the developer's own sandbox, which may be running).
   */
  readonly exec?: false | { readonly description: string; readonly default?: RawOf<K> }
}

function option<V, K extends Kind>(definition: StartOption<V, K>): StartOption<V, K> {
  return definition
}

/** A duration flag, kept in milliseconds and written back exactly. */
function duration(name: string, range: { min: number; max: number }) {
  return {
    parse(text: string): number {
      const read = readDuration(`--${name}`, text, range)
      if ('problem' in read) throw new RangeError(read.problem)
      return read.ms
    },
    write: (ms: number) => `${ms}ms`,
  }
}

/** Where `pay sandbox start` keeps its state unless told. */
export const DEFAULT_DATA_FILE = '.pay-sandbox/data.json'

/** Shortest block time: each block writes every unfinalized payment. */
const MIN_BLOCK_TIME_MS = 1000
const MAX_SEED = 2 ** 31 - 1

const asText = (text: string) => text
const asNumber = (n: number) => n

export const START_OPTIONS = {
  port: option({
    kind: 'integer',
    description: 'port to listen on; 0 picks a free one [default: the port of PAY_SANDBOX_URL, else 8787]',
    env: 'PAY_SANDBOX_PORT',
    min: 0,
    max: 65535,
    parse: asNumber,
    write: String,
    apply: (port, draft) => void (draft.port = port),
    read: (settings) => settings.port,
    exec: { description: 'port to listen on; 0 picks a free one', default: 0 },
  }),
  host: option({
    kind: 'string',
    description: 'address to listen on [default: the host of PAY_SANDBOX_URL, else 127.0.0.1]',
    env: 'PAY_SANDBOX_HOST',
    parse: asText,
    write: asText,
    apply: (host, draft) => void (draft.host = host),
    read: (settings) => settings.host,
  }),
  data: option({
    kind: 'string',
    description: `data file [default: ${DEFAULT_DATA_FILE}]`,
    env: 'PAY_SANDBOX_DATA',
    parse: asText,
    write: (path) => resolve(path),
    apply: (path, draft) => void (draft.dataFile = path),
    read: (settings) => settings.dataFile,
    exec: { description: 'data file, kept after the run [default: a temporary one, removed after the run]' },
  }),
  store: option({
    kind: 'string',
    description:
      'keep the state in a PostgreSQL database instead of a data file, e.g. postgres://pay:secret@db:5432/pay: any number of sandboxes started with the same URL answer as one (a team sandbox); not with --data',
    env: 'PAY_SANDBOX_STORE',
    parse(text): StoreUrl {
      const parsed = parseStoreUrl(text)
      if ('problem' in parsed) throw new RangeError(`--store ${parsed.problem}`)
      return parsed
    },
    // A sandbox started in the background gets it in its environment (PAY_SANDBOX_STORE): a password in its
    // arguments would show in every process list.
    write: () => undefined,
    apply: (store, draft) => void (draft.store = store.url),
    // Health shows it with the password masked: it cannot be read back.
    read: () => undefined,
  }),
  quiet: option({
    kind: 'boolean',
    description: 'no request log lines',
    parse: (quiet: boolean) => quiet,
    write: () => '',
    apply: (quiet, draft) => void (draft.quiet = quiet),
    read: (settings) => (settings.quiet ? true : undefined),
    exec: false,
  }),
  'allowed-hosts': option({
    kind: 'string',
    description:
      'host names to answer besides IP addresses, localhost and *.localhost, comma-separated (e.g. a docker-compose service name; .example.test also takes in its subdomains; all answers any name, which lets web pages reach the sandbox)',
    env: 'PAY_SANDBOX_ALLOWED_HOSTS',
    parse(text): AllowedHosts {
      const parsed = parseAllowedHosts(text.split(','))
      if ('error' in parsed) throw new RangeError(parsed.error)
      return parsed.hosts
    },
    write: (hosts) => allowedHostsFlag(hosts),
    apply: (hosts, draft) => void (draft.allowedHosts = hosts === 'all' ? true : hosts),
    read: (settings) => (settings.allowedHosts === undefined ? undefined : settings.allowedHosts === true ? 'all' : [...settings.allowedHosts]),
  }),
  'callback-retries': option({
    kind: 'integer',
    description: 'retries after a failed callback attempt (0: one attempt only) [default: 3]',
    env: 'PAY_SANDBOX_CALLBACK_RETRIES',
    min: 0,
    max: MAX_RETRIES,
    parse: asNumber,
    write: String,
    apply: (retries, draft) => void (draft.callbacks = { ...draft.callbacks, retries }),
    read: (settings) => settings.callbacks?.retries,
  }),
  'callback-timeout': option({
    kind: 'string',
    description: 'time allowed per callback attempt, e.g. 500ms, 5s; a bare number is seconds [default: 5s]',
    env: 'PAY_SANDBOX_CALLBACK_TIMEOUT',
    ...duration('callback-timeout', { min: 1, max: MAX_TIMEOUT_MS }),
    apply: (timeoutMs, draft) => void (draft.callbacks = { ...draft.callbacks, timeoutMs }),
    read: (settings) => settings.callbacks?.timeoutMs,
  }),
  'callback-schedule': option({
    kind: 'string',
    description: 'waits before each retry, comma-separated; the last repeats [default: 1s,5s,30s]',
    env: 'PAY_SANDBOX_CALLBACK_SCHEDULE',
    parse(text): number[] {
      const waits = parseSchedule(text)
      if (waits === undefined || waits.some((w) => w > MAX_WAIT_MS)) {
        throw new RangeError(`--callback-schedule must be comma-separated durations of at most ${formatDuration(MAX_WAIT_MS)}, e.g. 1s,5s,30s (got ${JSON.stringify(text)})`)
      }
      return waits
    },
    write: (waits) => waits.map((ms) => `${ms}ms`).join(','),
    apply: (scheduleMs, draft) => void (draft.callbacks = { ...draft.callbacks, scheduleMs }),
    read: (settings) => settings.callbacks?.scheduleMs,
  }),
  durability: option({
    kind: 'string',
    description:
      'when a change is acknowledged: disk (after fdatasync: survives a power loss) or os (once the OS has the write, synced within 1 s: survives the process being killed, not a power loss; faster) [default: disk]',
    env: 'PAY_SANDBOX_DURABILITY',
    options: DURABILITIES,
    parse: (text) => text as Durability,
    write: (durability) => durability,
    apply: (durability, draft) => void (draft.durability = durability),
    read: (settings) => settings.durability,
  }),
  'callback-concurrency': option({
    kind: 'integer',
    description: 'callback attempts out at once; the rest wait their turn [default: 64]',
    env: 'PAY_SANDBOX_CALLBACK_CONCURRENCY',
    min: 1,
    max: MAX_CONCURRENCY,
    parse: asNumber,
    write: String,
    apply: (concurrency, draft) => void (draft.callbacks = { ...draft.callbacks, concurrency }),
    read: (settings) => settings.callbacks?.concurrency,
  }),
  import: option({
    kind: 'string',
    description: "load this export file (pay sandbox export) at start, replacing the data file's state; checked whole first, an invalid file changes nothing (exit 2)",
    parse: asText,
    write: (path) => resolve(path),
    apply: (path, draft) => void (draft.files = { ...draft.files, import: resolve(path) }),
    read: (settings) => settings.files?.import,
  }),
  'export-on-exit': option({
    kind: 'string',
    description: 'write an export file of the state when the sandbox stops (Ctrl-C, SIGTERM, pay sandbox stop); a failed write is exit 1',
    parse: asText,
    write: (path) => resolve(path),
    apply: (path, draft) => void (draft.files = { ...draft.files, exportOnExit: resolve(path) }),
    read: (settings) => settings.files?.exportOnExit,
  }),
  'callback-mode': option({
    kind: 'string',
    description: `what to do with every notification no simulate asked a mode for: ${CALLBACK_MODE_RULE} [default: send]`,
    env: 'PAY_SANDBOX_CALLBACK_MODE',
    parse(text) {
      const parsed = parseCallbackMode(text)
      if ('problem' in parsed) throw new RangeError(`--callback-mode: ${parsed.problem}`)
      return parsed.mode
    },
    write: writeCallbackMode,
    apply(mode, draft) {
      if (mode.mode !== 'send') draft.callbackFaults = { ...draft.callbackFaults, mode }
    },
    read: (settings) => settings.callbackFaults?.mode,
  }),
  'callback-chaos': option({
    kind: 'string',
    description: `play a fault (${CHAOS_NAMES.join(', ')}) on this share of notifications, from 0 to 1, picked by a seeded generator`,
    env: 'PAY_SANDBOX_CALLBACK_CHAOS',
    parse(text) {
      const rate = Number(text)
      if (text.trim() === '' || !Number.isFinite(rate) || rate < 0 || rate > 1) {
        throw new RangeError(`--callback-chaos must be the share of notifications to play a fault on, from 0 to 1, e.g. 0.3 (got ${JSON.stringify(text)})`)
      }
      return rate
    },
    write: String,
    apply(rate, draft, config) {
      if (rate > 0) draft.callbackFaults = { ...draft.callbackFaults, chaos: { rate, seed: config.seed as number } }
    },
    read: (settings) => settings.callbackFaults?.chaos?.rate,
  }),
  seed: option({
    kind: 'integer',
    description: 'seed of --callback-chaos: the same seed and the same notifications in the same order get the same faults [default: random, printed]',
    env: 'PAY_SANDBOX_SEED',
    min: 0,
    max: MAX_SEED,
    parse: asNumber,
    write: String,
    // --callback-chaos takes it.
    apply: () => {},
    read: (settings) => settings.callbackFaults?.chaos?.seed,
  }),
  'api-fault': option({
    kind: 'strings',
    description: `play an API fault from the start: ${COMPACT_FORM}; repeat the flag for more rules (they replace those of an earlier start; see pay fault add)`,
    parse(texts: string[]): FaultRuleInput[] {
      return texts.map((text) => {
        const parsed = parseCompactFault(text)
        if ('problem' in parsed) throw new RangeError(`--api-fault: ${parsed.problem}`)
        // As written back (a delay in ms): the same rule whether typed here or passed on to a detached sandbox.
        const written = parseCompactFault(compactFault(parsed.input))
        return 'input' in written ? written.input : parsed.input
      })
    },
    write: (rules) => rules.map((rule) => compactFault(rule)),
    apply: (rules, draft) => void (draft.apiFaults = rules),
    read: (settings) => (Array.isArray(settings.apiFaults) ? settings.apiFaults.map(inputOf) : undefined),
  }),
  'payment-ttl': option({
    kind: 'string',
    description: 'pending payments older than this expire (verify: 202, a notification), e.g. 15m [default: never]',
    env: 'PAY_SANDBOX_PAYMENT_TTL',
    ...duration('payment-ttl', { min: 1000, max: MAX_DURATION_MS }),
    apply: (ms, draft) => void (draft.paymentTtlMs = ms),
    read: (settings) => settings.paymentTtlMs,
  }),
  confirmations: option({
    kind: 'integer',
    description: 'confirmations every unfinalized payment needs before it is paid [default: per asset, see pay chain]',
    env: 'PAY_SANDBOX_CONFIRMATIONS',
    min: 1,
    max: MAX_CONFIRMATIONS,
    parse(n) {
      if (!Number.isInteger(n) || n < 1 || n > MAX_CONFIRMATIONS) throw new RangeError(`--confirmations must be a whole number from 1 to ${MAX_CONFIRMATIONS} (got ${n})`)
      return n
    },
    write: String,
    apply: (confirmations, draft) => void (draft.chain = { ...draft.chain, confirmations }),
    read: (settings) => settings.chain?.confirmations,
  }),
  'block-time': option({
    kind: 'string',
    description: 'mine a block this often on the sandbox clock, e.g. 30s [default: only when asked]',
    env: 'PAY_SANDBOX_BLOCK_TIME',
    ...duration('block-time', { min: MIN_BLOCK_TIME_MS, max: MAX_DURATION_MS }),
    apply: (blockTimeMs, draft) => void (draft.chain = { ...draft.chain, blockTimeMs }),
    read: (settings) => settings.chain?.blockTimeMs,
  }),
  'public-url': option({
    kind: 'string',
    description:
      'where customers and bots reach the sandbox (a tunnel, a LAN name), e.g. https://pay-dev.example.test: every checkout URL it hands out starts with it, and its host name is answered [default: the URL it listens on]',
    env: 'PAY_SANDBOX_PUBLIC_URL',
    parse(text) {
      const parsed = parsePublicUrl(text)
      if ('problem' in parsed) throw new RangeError(`--public-url ${parsed.problem}`)
      return parsed.url
    },
    write: asText,
    apply: (url, draft) => void (draft.publicUrl = url),
    read: (settings) => settings.publicUrl,
  }),
  'telegram-allow-local-urls': option({
    kind: 'boolean',
    description:
      "the Bot API emulator takes inline URL buttons to localhost, loopback addresses and dot-less names, which Telegram refuses (Wrong HTTP URL): to test a bot's button to a local checkout page [default: off, as on Telegram]",
    env: 'PAY_SANDBOX_TELEGRAM_ALLOW_LOCAL_URLS',
    parse: (on: boolean) => on,
    write: () => '',
    apply(on, draft) {
      if (on) draft.telegram = { ...draft.telegram, allowLocalUrls: true }
    },
    read: (settings) => (settings.telegram?.allowLocalUrls ? true : undefined),
  }),
}

export type StartOptionName = keyof typeof START_OPTIONS
type ValueOf<O> = O extends StartOption<infer V, Kind> ? V : never

/** Start options as read from flags, each checked: what a start, a detached child and `exec` share. */
export type SandboxConfig = { -readonly [N in StartOptionName]?: ValueOf<(typeof START_OPTIONS)[N]> }

const entries = Object.entries(START_OPTIONS) as Array<[StartOptionName, StartOption<unknown, Kind>]>

type FlagOf<O> = O extends StartOption<unknown, infer K>
  ? K extends 'integer'
    ? Interfaces.OptionFlag<number | undefined>
    : K extends 'boolean'
      ? Interfaces.BooleanFlag<boolean>
      : K extends 'strings'
        ? Interfaces.OptionFlag<string[] | undefined>
        : Interfaces.OptionFlag<string | undefined>
  : never

/** The oclif flags of `pay sandbox start` (every option) or `pay sandbox exec` (those it takes, as it takes them). */
export function startFlags(command: 'start' | 'exec'): { [N in StartOptionName]: FlagOf<(typeof START_OPTIONS)[N]> } {
  const flags: Record<string, unknown> = {}
  for (const [name, row] of entries) {
    if (command === 'exec' && row.exec === false) continue
    const own = command === 'exec' && row.exec ? row.exec : undefined
    const common = {
      description: own?.description ?? row.description,
      ...(row.env !== undefined && !own ? { env: row.env } : {}),
      ...((own ? own.default : row.default) !== undefined ? { default: own ? own.default : row.default } : {}),
    }
    if (row.kind === 'boolean') flags[name] = Flags.boolean(common as { description: string })
    else if (row.kind === 'integer') flags[name] = Flags.integer({ ...(common as { description: string }), min: row.min, max: row.max })
    else if (row.kind === 'strings') flags[name] = Flags.string({ ...(common as { description: string }), multiple: true })
    else flags[name] = Flags.string({ ...(common as { description: string }), ...(row.options ? { options: [...row.options] } : {}) })
  }
  return flags as { [N in StartOptionName]: FlagOf<(typeof START_OPTIONS)[N]> }
}

/**
 * The start options from flags as oclif read them (environment variables included), each checked; a RangeError
 * naming the flag when one is wrong. Chaos without a seed gets a random one, so that the run can be told and replayed.
 */
export function configFrom(flags: Readonly<Record<string, unknown>>, randomSeed: () => number = () => Math.floor(Math.random() * 2 ** 31)): SandboxConfig {
  const config: Record<string, unknown> = {}
  for (const [name, row] of entries) {
    const raw = flags[name]
    // An unset boolean flag is false: nothing asked for.
    if (raw === undefined || raw === false) continue
    config[name] = row.parse(raw as never)
  }
  const checked = config as SandboxConfig
  if (checked['callback-chaos'] !== undefined) {
    if (checked['callback-chaos'] > 0 && checked.seed === undefined) checked.seed = randomSeed()
  } else if (checked.seed !== undefined) {
    throw new RangeError('--seed seeds --callback-chaos; give --callback-chaos <rate> too')
  }
  if (checked.store !== undefined && checked.data !== undefined) {
    throw new RangeError('--store and --data both say where the state is kept: give --store (a PostgreSQL database) or --data (a data file), not both')
  }
  if (checked.store !== undefined && checked.durability !== undefined) {
    throw new RangeError('--durability is for the data file: with --store a change is acknowledged once its transaction is committed, as durable as the database makes it')
  }
  // The callback settings together (e.g. retries need a wait to wait).
  resolvePolicy(draftOf(checked).callbacks)
  return checked
}

/** configFrom() for a command: a wrong value is a usage error (exit 2). */
export function readConfig(flags: Readonly<Record<string, unknown>>): SandboxConfig {
  try {
    return configFrom(flags)
  } catch (error) {
    if (error instanceof RangeError) throw usage(error.message)
    throw error
  }
}

/** The settings a start builds from the options. */
export function draftOf(config: SandboxConfig): StartDraft {
  const draft: StartDraft = {}
  for (const [name, row] of entries) {
    const value = config[name]
    if (value !== undefined) row.apply(value, draft, config)
  }
  return draft
}

/** startServer()'s options from the start options; the caller adds its log (unless quiet), its handlers and the import. */
export function startOptionsOf(config: SandboxConfig): StartOptions {
  const { quiet: _quiet, ...options } = draftOf(config)
  return options
}

/** The start options read back from a running sandbox's settings (its /_sandbox/health), or from a draft. */
export function configOf(settings: StartDraft): SandboxConfig {
  const config: Record<string, unknown> = {}
  for (const [name, row] of entries) {
    const value = row.read(settings)
    if (value !== undefined) config[name] = value
  }
  return config as SandboxConfig
}

/** The options as flags, for a sandbox started as another process: each reads back to the same value. */
export function configArgs(config: SandboxConfig): string[] {
  const args: string[] = []
  for (const [name, row] of entries) {
    const value = config[name]
    if (value === undefined) continue
    if (row.kind === 'boolean') {
      if (value === true) args.push(`--${name}`)
      continue
    }
    const text = row.write(value)
    for (const one of text === undefined ? [] : typeof text === 'string' ? [text] : text) args.push(`--${name}`, one)
  }
  return args
}
