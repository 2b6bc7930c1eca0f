import type { Outcome } from '../domain/payment.js'
import type { Read } from './file.js'
import type { SCENARIO_VERSION, stepSchemas } from './schema.js'
import type { Json } from './template.js'

export { SCENARIO_VERSION } from './schema.js'

/** The schemas of the steps' parts: what the file says is read from them (`Read`, defaults filled in). */
type Steps = typeof stepSchemas

/**
 * A checked scenario file, as the runner reads it: each step with its kind, number and defaults. The shape of
 * the file itself is the schema's (schema.ts): what a step carries as written is read from it, and parse.ts
 * builds these from the file, so the compiler holds the two in step. Values typed `Json` may hold `${…}`
 * templates, resolved when the step runs.
 */
export interface Scenario {
  version: typeof SCENARIO_VERSION
  name: string
  description?: string
  /** Path the scenario was read from, as given. */
  file: string
  /**
   * What `${env.NAME}` and `${vars.name}` stand for: the environment variables the file uses, read when it was
   * loaded, and its vars with their `--var` overrides.
   */
  variables: { env: Record<string, string>; vars: Record<string, string | number | boolean> }
  steps: Step[]
}

export type Step =
  | ReceiverStep
  | MerchantStep
  | ToggleStep
  | CreateStep
  | SimulateStep
  | VerifyStep
  | CallbackStep
  | WaitStep
  | ClockStep
  | MineStep
  | VerifiesStep
  | AuditStep
  | FaultStep
  | ChatStep
  | HttpStep
export type StepKind = Step['kind']

interface StepBase {
  /** 1-based position in the file. */
  number: number
  /** Shown in reports; a default is made from the step. */
  title?: string
}

/**
 * A local HTTP server on 127.0.0.1 that records callbacks; `${as.url}`. The first failFirst requests are
 * answered with failStatus; verifyWith plays a correct merchant; refuseRepeats an endpoint that is not idempotent.
 */
export type ReceiverStep = StepBase & { kind: 'receiver' } & Read<Steps['receiver']['properties']['receiver']>

/** A new merchant for this scenario; `${as.key}`, `${as.name}`. */
export type MerchantStep = StepBase & { kind: 'merchant' } & Read<Steps['merchant']['properties']['merchant']>

export interface ToggleStep extends StepBase {
  kind: 'disable' | 'enable'
  /** Name of a merchant step. */
  merchant: string
}

export interface CreateStep extends StepBase {
  kind: 'create'
  as?: string
  body: Record<string, Json>
  expect: CreateExpect
}

export type CreateExpect = Read<Steps['create']['properties']['expect']>

/** true: present; false: absent; a string: equal to it (after references). */
export type Presence = NonNullable<CreateExpect['message']>

/** A payment of this file (the name of a create step), or one named by its trackId (e.g. a bot's). */
export type PaymentRef = { payment: string } | { trackId: Json }

export type SimulateStep = StepBase &
  PaymentRef & {
    kind: 'simulate'
    outcome: Outcome
    amount?: Json
    asset?: Json
    /** The notification's callback mode (drop, delay=…, duplicate=…, reorder, send). */
    callback?: Read<Steps['simulate']['properties']['simulate']>['callback']
    expect: Read<Steps['simulate']['properties']['expect']>
  }

export interface VerifyStep extends StepBase {
  kind: 'verify'
  as?: string
  /** Name of a create step: supplies trackId, merchant and the order amount. */
  payment?: string
  trackId?: Json
  merchant?: Json
  /** Checks as the sandbox's operator: the call is marked and judges nothing of the merchant. */
  operator: boolean
  expect: VerifyExpect
}

export type VerifyExpect = Read<Steps['verify']['properties']['expect']>

/** Waits for a callback: at a receiver of this run, or in the sandbox's delivery log (the merchant's own URL). */
export interface CallbackStep extends StepBase {
  kind: 'callback'
  receiver?: string
  payment?: string
  trackId?: Json
  /** Body fields the callback must carry (deep equality). */
  match: Record<string, Json>
  within: number
  /** Requests needed up to and including the one answered 2xx. */
  attempts?: number
}

export interface WaitStep extends StepBase {
  kind: 'wait'
  ms: number
}

/** Moves the sandbox clock. */
export interface ClockStep extends StepBase {
  kind: 'clock'
  move: Read<Steps['clock']['properties']['clock']>
}

/** Mines blocks: a number, or one at a time until a payment (the name of a create step) is confirmed. */
export type MineStep = StepBase & { kind: 'mine' } & Read<Steps['mine']['properties']['mine']>

/** Expectations on a payment's verify journal. */
export type VerifiesStep = StepBase &
  PaymentRef & {
    kind: 'verifies'
    within: number
    expect: Read<Steps['verifies']['properties']['expect']>
  }

/** Runs the audit and checks its verdict. */
export interface AuditStep extends StepBase {
  kind: 'audit'
  merchant?: Json
  /** Name of a create step. */
  payment?: string
  /** A payment the file did not create (e.g. through the merchant's shop). */
  trackId?: Json
  strict: boolean
  ignore: NonNullable<Read<Steps['audit']['properties']['audit']>['ignore']>
  expect: Read<Steps['audit']['properties']['expect']>
}

/**
 * Adds an API fault rule (`rule`: its fields as written, `merchant` and `trackId` may hold references; `payment`:
 * a create step whose trackId scopes it), or removes every rule (`clear`).
 */
export type FaultStep = StepBase & { kind: 'fault' } & ({ rule: Record<string, Json>; payment?: string } | { clear: true })

/** Plays the customer of a bot in the Telegram Bot API emulator. */
export interface ChatStep extends StepBase {
  kind: 'chat'
  /** The bot by token, @username or id; the sandbox's only bot when left out. */
  bot?: string
  /** Where the bot is named in the file (`file:line:col: step N (chat) › chat.bot`), for a bot the sandbox does not know. */
  where: string
  chat: number
  as?: string
  action: ChatAction
}

export type ChatAction =
  /** The customer writes this text (after references). */
  | { send: Json }
  /** A bot message matching the pattern (see pattern.ts), within this many ms. */
  | { expect: string; within: number }
  /** Presses the button with this text, of this message (a number or a reference) or the newest that has it. */
  | { press: string; message?: Json }

/** A request to the merchant's own system, and what its answer must show. */
export interface HttpStep extends StepBase {
  kind: 'http'
  as?: string
  method: HttpMethod
  url: Json
  headers: Record<string, Json>
  body?: { json: Json } | { form: Record<string, Json> } | { text: Json }
  timeoutMs: number
  /** Repeat the request until the expectations hold, for up to this long; once when undefined. */
  withinMs?: number
  bind: Record<string, HttpBind>
  expect: HttpExpect
  /** Where the URL is written (`file:line:col: step N (http) › http.url`), for a URL the run may not reach. */
  where: string
}

export type HttpMethod = 'GET' | 'HEAD' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'OPTIONS'

/** Where a bound value comes from: a JSON pointer into the body, a pattern over the body, or a header. */
export type HttpBind = { json: string } | { body: string } | { header: string; pattern?: string }

export interface HttpExpect {
  /** Statuses (303) and classes ("2xx"), any one; below 400 when undefined. */
  status?: Array<number | string>
  /** Values by JSON pointer. */
  json?: Record<string, JsonMatcher>
  /** A pattern the body matches. */
  body?: string
  /** Patterns header values match, by lower-case name. */
  headers?: Record<string, string>
}

/** A value at a pointer: equal to `equals`, or each comparison given holds. */
export interface JsonMatcher {
  equals?: Json
  pattern?: string
  gt?: Json
  gte?: Json
  lt?: Json
  lte?: Json
  exists?: boolean
}

/** Fields each kind of step binds under its `as` name. */
export const BOUND_FIELDS = {
  receiver: ['url'],
  merchant: ['key', 'name'],
  create: ['trackId', 'checkoutUrl', 'result', 'message', 'amount', 'merchant'],
  createFailure: ['result', 'message'],
  createError: ['message'],
  verify: ['result', 'amount', 'refNumber', 'message'],
  sandbox: ['url'],
  chatSend: ['text', 'messageId'],
  chatExpect: ['text', 'messageId', 'url', 'trackId'],
  chatPress: ['messageId', 'url', 'trackId', 'data'],
  http: ['status', 'location', 'trackId', 'body'],
} as const
