import { CHECK_IDS } from '../audit/rules.js'
import { COMPACT_FORM, faultRuleInputSchema } from '../domain/api-fault.js'
import { CLOCK_LATEST } from '../domain/clock-range.js'
import { CALLBACK_MODE_PATTERN, CALLBACK_MODE_RULE, FAULT_EXAMPLES } from '../domain/fault.js'
import { outcomes, paymentStatuses } from '../domain/payment.js'
import { DEFAULT_CHAT_ID } from '../telegram/messages.js'
import { httpStep } from './schema-http.js'
import { bindName, durationText, LIMITS, NAME, sent, text, title } from './schema-parts.js'

export { LIMITS }

/*
 * The scenario file format, stated once. Ajv checks files against it (validate.ts), file.ts derives the type
 * of a file from it, editors show its titles and descriptions as hover docs and its enums as completions, and
 * the build writes it to schemas/scenario.schema.json. Draft-07: the newest draft that VS Code's JSON service
 * and the YAML language server fully support.
 *
 * `errorMessage` (a keyword editors already show for type, enum and pattern mismatches) is the message `pay`
 * prints too, followed by what the file has. Without it the message is made from type, range and enum.
 *
 * Adding a step: one more branch in `stepSchemas` and in the steps' oneOf (its action key in `required`), its
 * runtime type in types.ts (read from its schema where the runner takes the file's value as written), its
 * checks of names in parse.ts, then its runner code in run.ts.
 */

/** The scenario format version; 1 is the only one. */
export const SCENARIO_VERSION = 1

export const SCENARIO_SCHEMA_ID = 'urn:pay-sandbox:scenario:1'

const stepName = (title: string, kind: string, example: string) =>
  ({
    title,
    description: `The "as" name of an earlier ${kind} step.`,
    type: 'string',
    pattern: NAME,
    maxLength: 100,
    errorMessage: `must be the name of a ${kind} step (its "as")`,
    examples: [example],
  }) as const

const presence = (title: string, what: string) =>
  ({
    title,
    description: `${what} true: present; false: absent; a string: equal to it (after \${…} references).`,
    type: ['boolean', 'string'],
    errorMessage: 'must be true (present), false (absent) or the exact text',
    examples: [true, false],
  }) as const

/** `payment` (a create step of this file) or `trackId` (a payment made elsewhere, e.g. by a bot): exactly one. */
const paymentOrTrackId = (kind: string) =>
  ({
    payment: { ...stepName('Payment', 'create', 'order'), description: 'The "as" name of an earlier create step. Or give "trackId" instead.' },
    trackId: {
      title: 'Track ID',
      description: `A payment this file did not create, e.g. "\${link.trackId}" from a chat expect step that found the bot's checkout link. Or give "payment" instead. ${kind}`.trim(),
      type: 'string',
      minLength: 1,
      maxLength: 200,
      errorMessage: 'must be a trackId (or a ${…} reference such as "${link.trackId}")',
      examples: ['${link.trackId}'],
    },
  }) as const

/** Not both payment and trackId; validate.ts prints a `not`'s errorMessage as it is. */
const NOT_BOTH = {
  if: { required: ['payment'], properties: { payment: true } },
  then: { not: { required: ['trackId'], properties: { trackId: true } }, errorMessage: 'give "payment" or "trackId", not both' },
} as const

/** Exactly one of payment and trackId. */
const onePayment = {
  ...NOT_BOTH,
  else: { required: ['trackId'], properties: { trackId: true }, errorMessage: 'give "payment" (a create step of this file) or "trackId"' },
} as const

const resultCode = (what: string) =>
  ({ title: 'Result code', description: what, type: 'integer', minimum: 0, maximum: 999, examples: [100, 105, 202] }) as const

const requestError = {
  title: 'Request error code',
  description: 'The error code of a 4xx answer the spec has no result code for, e.g. invalid_field or invalid_transition.',
  type: 'string',
  minLength: 1,
  maxLength: 100,
  pattern: '\\S',
  errorMessage: 'must be a non-empty string of at most 100 characters',
  examples: ['invalid_field', 'invalid_transition'],
} as const

const receiverStep = {
  title: 'receiver step',
  description: 'Starts a callback endpoint on 127.0.0.1 that records every request it gets. Binds ${as.url}.',
  type: 'object',
  required: ['receiver'],
  additionalProperties: false,
  properties: {
    receiver: {
      title: 'Callback receiver',
      description: 'A local endpoint that records callbacks; the first failFirst requests are answered with failStatus, to see the sandbox retry.',
      type: 'object',
      required: ['as'],
      additionalProperties: false,
      properties: {
        as: bindName('The receiver’s name.', 'receiver'),
        failFirst: {
          title: 'Fail the first N requests',
          description: 'How many requests, from the first, are answered with failStatus before the receiver answers 200.',
          type: 'integer',
          minimum: 0,
          maximum: LIMITS.failFirst,
          default: 0,
          examples: [2],
        },
        failStatus: {
          title: 'Status of a failed answer',
          description: 'The HTTP status the failing requests get.',
          type: 'integer',
          minimum: 400,
          maximum: 599,
          default: 500,
          examples: [503],
        },
        verifyWith: {
          title: 'Verify with this key',
          description: 'Plays a correct merchant: on every callback the receiver calls verify for the callback’s trackId with this key before it answers. ${…} references are replaced, e.g. "${shop.key}".',
          type: 'string',
          errorMessage: 'must be a merchant key (or a ${…} reference)',
          examples: ['${shop.key}'],
        },
        refuseRepeats: {
          title: 'Refuse repeats',
          description: 'Plays an endpoint that is not idempotent: a request whose X-Pay-Sandbox-Delivery it already answered 2xx is answered 409.',
          type: 'boolean',
          default: false,
        },
      },
      examples: [{ as: 'receiver' }, { as: 'flaky', failFirst: 2, failStatus: 503 }, { as: 'shop_endpoint', verifyWith: '${shop.key}' }],
    },
    title,
  },
} as const

const merchantStep = {
  title: 'merchant step',
  description: 'Creates a merchant for this scenario. Binds ${as.key} and ${as.name}.',
  type: 'object',
  required: ['merchant'],
  additionalProperties: false,
  properties: {
    merchant: {
      title: 'New merchant',
      description: 'A merchant of this scenario, so scenarios do not share state.',
      type: 'object',
      required: ['as'],
      additionalProperties: false,
      properties: {
        as: bindName('The merchant’s name in this file.', 'shop'),
        key: { title: 'API key', description: 'The merchant API key; random when left out. ${…} references are replaced.', type: 'string', errorMessage: 'must be a string', examples: ['shop-key-1'] },
        name: { title: 'Merchant name', description: 'Shown on the checkout page; made from the scenario name when left out. ${…} references are replaced.', type: 'string', errorMessage: 'must be a string', examples: ['Coffee shop'] },
      },
      examples: [{ as: 'shop' }],
    },
    title,
  },
} as const

function toggleStep<K extends 'disable' | 'enable'>(kind: K, description: string) {
  const merchant = stepName(`Merchant to ${kind}`, 'merchant', 'shop')
  return {
    title: `${kind} step`,
    description,
    type: 'object',
    required: [kind] as const,
    additionalProperties: false,
    properties: { [kind]: merchant, title } as Record<K, typeof merchant> & { title: typeof title },
  } as const
}

const createFields = {
  merchant: sent('Merchant API key', 'The merchant field, usually "${shop.key}".', ['${shop.key}']),
  amount: sent('Amount', 'The order amount; a number greater than 0 is valid.', [25.5]),
  callbackUrl: sent('Callback URL', 'Where the sandbox sends callbacks, e.g. "${receiver.url}".', ['${receiver.url}']),
  returnUrl: sent('Return URL', 'Where the checkout page sends the customer back.', ['https://merchant.example/thanks']),
  description: sent('Order description', 'Shown on the checkout page.', ['Order #1042']),
  mobile: sent('Customer mobile', 'The customer’s mobile number.', ['09123456789']),
} as const

/** The create fields the spec's request takes, in the order of the spec. */
export const CREATE_FIELDS = Object.keys(createFields) as Array<keyof typeof createFields>

const createStep = {
  title: 'create step',
  description: 'POST /api/v1/request: asks for a payment. Binds ${as.trackId}, ${as.checkoutUrl}, ${as.result}, ${as.message}, ${as.amount} and ${as.merchant} (only result and message when a failure is expected).',
  type: 'object',
  required: ['create'],
  additionalProperties: false,
  properties: {
    create: {
      title: 'Payment request',
      description: 'The fields to send; any may be left out or invalid, to test validation.',
      type: 'object',
      additionalProperties: false,
      properties: { as: bindName('The payment’s name.', 'order'), ...createFields },
      examples: [{ as: 'order', merchant: '${shop.key}', amount: 10, callbackUrl: '${receiver.url}' }],
    },
    expect: {
      title: 'Expected answer',
      description: 'A result code ({"result": 105}), by default {"result": 100}; or a 4xx request error ({"error": "invalid_field"}).',
      oneOf: [
        {
          title: 'Expected result',
          type: 'object',
          required: ['result'],
          additionalProperties: false,
          properties: {
            result: resultCode('The result code the answer must carry: 100 for success, 103–109 for the spec’s failures.'),
            message: presence('Message', 'The answer’s message.'),
            trackId: { title: 'Track ID', description: 'true: the answer carries a trackId; false: it does not.', type: 'boolean', errorMessage: 'must be true (present) or false (absent)' },
          },
        },
        {
          title: 'Expected request error',
          type: 'object',
          required: ['error'],
          additionalProperties: false,
          properties: { error: requestError, message: presence('Message', 'The error’s message.') },
        },
      ],
      examples: [{ result: 105, message: 'Amount is missing or invalid', trackId: false }, { error: 'invalid_field' }],
    },
    title,
  },
} as const

const simulateStep = {
  title: 'simulate step',
  description: 'Acts as the customer on the checkout page: pays, pays without finality, or fails.',
  type: 'object',
  required: ['simulate'],
  additionalProperties: false,
  properties: {
    simulate: {
      title: 'Customer action',
      description: 'What the customer does on the checkout page of a payment: one of this file ("payment") or one named by trackId.',
      type: 'object',
      required: ['outcome'],
      additionalProperties: false,
      ...onePayment,
      properties: {
        ...paymentOrTrackId(''),
        outcome: { title: 'Outcome', description: 'What the customer does.', enum: outcomes, errorMessage: `must be one of ${outcomes.join(', ')}` },
        amount: sent('Paid amount', 'The amount paid, when it differs from the order.', [4]),
        asset: sent('Asset', 'The asset paid with.', ['USDT']),
        callback: {
          title: 'Notification',
          description: `What the sandbox does with this change’s notification: ${CALLBACK_MODE_RULE}.`,
          type: 'string',
          pattern: CALLBACK_MODE_PATTERN,
          errorMessage: `must be ${CALLBACK_MODE_RULE}`,
          examples: [...FAULT_EXAMPLES],
        },
      },
      examples: [{ payment: 'order', outcome: 'paid' }, { payment: 'order', outcome: 'paid', callback: 'drop' }, { trackId: '${link.trackId}', outcome: 'paid' }],
    },
    expect: {
      title: 'Expected result',
      description: 'The status the payment must reach (by default the outcome), or the error of a refused move.',
      oneOf: [
        {
          title: 'Expected status',
          type: 'object',
          required: ['status'],
          additionalProperties: false,
          properties: { status: { title: 'Status', description: 'The payment’s status after the move.', enum: paymentStatuses, errorMessage: `must be one of ${paymentStatuses.join(', ')}` } },
        },
        { title: 'Expected refusal', type: 'object', required: ['error'], additionalProperties: false, properties: { error: requestError } },
      ],
      examples: [{ status: 'paid' }, { error: 'invalid_transition' }],
    },
    title,
  },
} as const

const verifyStep = {
  title: 'verify step',
  description: 'POST /api/v1/verify: asks whether a payment is paid. Binds ${as.result}, ${as.amount}, ${as.refNumber} and ${as.message}.',
  type: 'object',
  required: ['verify'],
  additionalProperties: false,
  properties: {
    verify: {
      title: 'Verify request',
      description: 'A payment of this file by name ("payment"), or "trackId" and "merchant" as sent: exactly one of payment and trackId.',
      type: 'object',
      additionalProperties: false,
      properties: {
        as: bindName('The answer’s name.', 'check'),
        payment: { ...stepName('Payment', 'create', 'order'), description: 'The "as" name of an earlier create step: supplies trackId, merchant and the order amount. Or give "trackId" and "merchant" instead.' },
        trackId: sent('Track ID', 'The trackId to send instead of "payment", e.g. "${link.trackId}" for a payment a bot made.', ['${order.trackId}']),
        merchant: sent('Merchant API key', 'The merchant to send with "trackId".', ['${shop.key}']),
        operator: {
          title: 'As the operator',
          description:
            'true: check as the sandbox’s operator, not as the merchant: the call is marked (Pay-Sandbox-Operator), so the audit, the verifies step and payment wait --verified leave it out. By default the step plays the merchant’s own verify.',
          type: 'boolean',
          default: false,
          errorMessage: 'must be true or false',
        },
      },
      allOf: [onePayment, { if: { required: ['trackId'], properties: { trackId: true } }, then: { required: ['merchant'], properties: { merchant: true }, errorMessage: 'with "trackId", verify needs "merchant" (the key to send) too' } }],
      examples: [{ payment: 'order' }, { trackId: '${order.trackId}', merchant: '${shop.key}' }],
    },
    expect: {
      title: 'Expected answer',
      description: 'Any of the fields below; those left out are not checked.',
      type: 'object',
      additionalProperties: false,
      properties: {
        result: resultCode('100 paid, 202 not completed yet, 203 invalid track ID, 103/104 merchant refused.'),
        amount: {
          title: 'Amount',
          description: 'The amount the answer must carry; a string may be a reference such as "${order.amount}".',
          type: ['number', 'string'],
          errorMessage: 'must be a number (or a ${…} reference)',
        },
        amountMatchesOrder: {
          title: 'Amount matches the order',
          description: 'Whether the answered amount equals the order amount: the merchant’s check before delivering. Needs "payment".',
          type: 'boolean',
          errorMessage: 'must be true or false',
        },
        refNumber: presence('Reference number', 'The answer’s refNumber.'),
        message: presence('Message', 'The answer’s message.'),
      },
      examples: [{ result: 100, amountMatchesOrder: true, refNumber: true }],
    },
    title,
  },
  if: { required: ['expect'], properties: { expect: { type: 'object', required: ['amountMatchesOrder'], properties: { amountMatchesOrder: true } } } },
  then: {
    properties: {
      verify: {
        type: 'object',
        required: ['payment'],
        properties: { payment: true },
        errorMessage: '"expect.amountMatchesOrder" compares the answer with the order amount, so verify needs "payment"',
      },
    },
  },
} as const

const callbackStep = {
  title: 'callback step',
  description:
    'Waits for a callback answered 2xx: at a receiver of this file, or (without "receiver") delivered to the merchant’s own URL, as the sandbox’s delivery log shows.',
  type: 'object',
  required: ['callback'],
  additionalProperties: false,
  properties: {
    callback: {
      title: 'Expected callback',
      description: 'Which callback to wait for, where, and for how long.',
      type: 'object',
      additionalProperties: false,
      properties: {
        receiver: stepName('Receiver', 'receiver', 'receiver'),
        payment: { ...stepName('Payment', 'create', 'order'), description: 'The "as" name of an earlier create step: the callback must carry its trackId. Or give "trackId" instead.' },
        trackId: { ...paymentOrTrackId('The callback must carry it.').trackId },
        match: {
          title: 'Body fields',
          description: 'Fields the callback body must carry, compared deeply; ${…} references are replaced.',
          type: 'object',
          errorMessage: 'must be an object of body fields, e.g. {"status": "paid"}',
          examples: [{ status: 'paid' }],
        },
        within: {
          title: 'Time limit (ms)',
          description: 'How long to wait for the callback, in milliseconds.',
          type: 'integer',
          minimum: 1,
          maximum: LIMITS.withinMs,
          default: 5000,
          examples: [15000],
        },
        attempts: {
          title: 'Attempts',
          description: 'Requests needed up to and including the one answered 2xx.',
          type: 'integer',
          minimum: 1,
          maximum: LIMITS.failFirst + 1,
          examples: [3],
        },
      },
      allOf: [
        NOT_BOTH,
        {
          if: { anyOf: [{ required: ['receiver'], properties: { receiver: true } }, { required: ['trackId'], properties: { trackId: true } }] },
          else: { required: ['payment'], properties: { payment: true }, errorMessage: 'without "receiver", the callback is looked up in the sandbox’s delivery log, by payment (or trackId)' },
        },
        {
          if: { anyOf: [{ required: ['payment'], properties: { payment: true } }, { required: ['trackId'], properties: { trackId: true } }] },
          else: {
            required: ['match'],
            properties: { match: { type: 'object', minProperties: 1, errorMessage: 'give "payment" or "match": something to tell this callback from others' } },
            errorMessage: 'give "payment" or "match": something to tell this callback from others',
          },
        },
      ],
      examples: [{ receiver: 'receiver', payment: 'order', match: { status: 'paid' } }],
    },
    title,
  },
} as const

const waitStep = {
  title: 'wait step',
  description: 'Sleeps.',
  type: 'object',
  required: ['wait'],
  additionalProperties: false,
  properties: {
    wait: {
      title: 'Milliseconds',
      description: 'How long to sleep, in milliseconds.',
      type: 'integer',
      minimum: 0,
      maximum: LIMITS.waitMs,
      errorMessage: `must be a whole number of milliseconds from 0 to ${LIMITS.waitMs}`,
      examples: [100],
    },
    title,
  },
} as const

const clockStep = {
  title: 'clock step',
  description: 'Moves the sandbox clock: what becomes due (callback retries, delayed notifications, expiries, blocks) happens before the next step.',
  type: 'object',
  required: ['clock'],
  additionalProperties: false,
  properties: {
    clock: {
      title: 'Clock move',
      description: 'One of advance (a duration), set (an ISO 8601 time, never earlier than the sandbox’s) or reset (back to real time).',
      oneOf: [
        { title: 'Advance', type: 'object', required: ['advance'], additionalProperties: false, properties: { advance: { title: 'By', description: 'How far to move the clock forward.', ...durationText } } },
        {
          title: 'Set',
          type: 'object',
          required: ['set'],
          additionalProperties: false,
          properties: { set: { title: 'To', description: `An ISO 8601 time; never earlier than the sandbox’s time, never later than ${CLOCK_LATEST}.`, type: 'string', minLength: 10, maxLength: 40, examples: ['2030-01-31T12:00:00Z'] } },
        },
        { title: 'Reset', type: 'object', required: ['reset'], additionalProperties: false, properties: { reset: { title: 'Reset', description: 'Back to real time.', const: true } } },
      ],
      examples: [{ advance: '15m' }, { set: '2030-01-31T12:00:00Z' }, { reset: true }],
    },
    title,
  },
} as const

const mineStep = {
  title: 'mine step',
  description: 'Mines blocks: one confirmation each for every unfinalized payment; one with enough becomes paid.',
  type: 'object',
  required: ['mine'],
  additionalProperties: false,
  properties: {
    mine: {
      title: 'Blocks',
      description: 'How many blocks (blocks), or one block at a time until a payment of this file is no longer unfinalized (until).',
      type: 'object',
      additionalProperties: false,
      properties: {
        blocks: { title: 'Blocks', description: 'Blocks to mine.', type: 'integer', minimum: 1, maximum: LIMITS.blocks, default: 1, examples: [2] },
        until: { ...stepName('Payment', 'create', 'order'), description: 'Mine until this payment of the file is confirmed (paid), however many its asset needs.' },
      },
      examples: [{ blocks: 2 }, { until: 'order' }],
    },
    title,
  },
} as const

const verifiesStep = {
  title: 'verifies step',
  description: 'Checks the verify calls the sandbox observed for a payment of this file: did its merchant verify, with what result, how often.',
  type: 'object',
  required: ['verifies'],
  additionalProperties: false,
  properties: {
    verifies: {
      title: 'Verify journal',
      description: 'Whose verify calls to check, and how long to wait for them.',
      type: 'object',
      additionalProperties: false,
      ...onePayment,
      properties: {
        ...paymentOrTrackId(''),
        within: { title: 'Time limit (ms)', description: 'How long to wait for "verified": true.', type: 'integer', minimum: 0, maximum: LIMITS.withinMs, default: 5000, examples: [2000] },
      },
      examples: [{ payment: 'order' }],
    },
    expect: {
      title: 'Expected',
      description: 'verified: the merchant verified the payment’s current status with its own key after the status last changed (true) or not (false); result: of that verify; count: verify calls of the payment in all.',
      type: 'object',
      additionalProperties: false,
      properties: {
        verified: { title: 'Verified', description: 'true: wait (up to "within") for the merchant’s verify of the current status; false: there must be none.', type: 'boolean', default: true },
        result: resultCode('The result the merchant’s verify got, e.g. 100.'),
        count: { title: 'Count', description: 'Verify calls of the payment, by any key.', type: 'integer', minimum: 0, maximum: 1_000_000 },
      },
      examples: [{ verified: true, result: 100 }],
    },
    title,
  },
} as const

const chatWhere = {
  bot: {
    title: 'Bot',
    description: 'The bot, by token, @username or id, as `pay chat bots` lists it; the only bot of the sandbox when left out. It must be known to the sandbox when the run starts.',
    type: 'string',
    minLength: 1,
    maxLength: 200,
    pattern: '\\S',
    errorMessage: 'must be a bot’s token, @username or id',
    examples: ['@shop_bot'],
  },
  chat: {
    title: 'Chat',
    description: 'The chat id: the simulated customer’s user id. Each id is another customer.',
    type: 'integer',
    minimum: 1,
    maximum: Number.MAX_SAFE_INTEGER,
    default: DEFAULT_CHAT_ID,
    examples: [1000002],
  },
} as const

const chatStep = {
  title: 'chat step',
  description:
    'Plays the customer of a bot in the Telegram Bot API emulator: sends it text, waits for its message, or presses a button. The bot must be running against the sandbox.',
  type: 'object',
  required: ['chat'],
  additionalProperties: false,
  properties: {
    chat: {
      title: 'Chat action',
      description: 'One of send, expect or press, with the bot and chat it happens in.',
      oneOf: [
        {
          title: 'Send',
          type: 'object',
          required: ['send'],
          additionalProperties: false,
          properties: {
            send: { title: 'Text', ...text(4096, 'What the customer writes: text or a command such as /buy. ${…} references are replaced.', ['/buy', '/status ${link.trackId}']) },
            ...chatWhere,
            as: bindName('The sent message’s name: binds ${as.text} and ${as.messageId}.', 'hello'),
          },
        },
        {
          title: 'Expect',
          type: 'object',
          required: ['expect'],
          additionalProperties: false,
          properties: {
            expect: {
              title: 'Pattern',
              description:
                'A JavaScript regular expression the text or caption of a bot message must match; case-sensitive, or in slashes with flags (i, m, s, u) such as "/payment received/i". A ${…} reference in it matches its value as written. Only messages the bot sent in that chat after the scenario’s last send or press there, and after the message the previous expect there matched, count.',
              type: 'string',
              minLength: 1,
              maxLength: 1000,
              errorMessage: 'must be a regular expression of 1 to 1000 characters, e.g. "Pay here" or "/paid/i"',
              examples: ['Pay here: .*/pay/', '/payment received/i'],
            },
            within: {
              title: 'Time limit',
              description: `How long to wait for the message: a duration up to ${LIMITS.withinMs / 1000}s.`,
              ...durationText,
              default: '10s',
            },
            ...chatWhere,
            as: bindName('The matched message’s name: binds ${as.text}, ${as.messageId}, ${as.url} (its first URL button’s URL) and ${as.trackId} (from a checkout URL …/pay/<trackId> in a button or the text).', 'link'),
          },
        },
        {
          title: 'Press',
          type: 'object',
          required: ['press'],
          additionalProperties: false,
          properties: {
            press: { title: 'Button text', ...text(4096, 'The text of the button to press: an inline button (callback_data is sent to the bot as a callback_query; a URL button’s URL is recorded) or a reply-keyboard button (its text is sent).', ['Check payment']) },
            message: {
              title: 'Message',
              description: 'The id of the bot message whose button to press, e.g. "${link.messageId}"; by default the newest message with that button.',
              type: ['integer', 'string'],
              minimum: 1,
              pattern: '^\\$\\{[^}]+\\}$',
              errorMessage: 'must be a message id or a ${…} reference such as "${link.messageId}"',
              examples: ['${link.messageId}'],
            },
            ...chatWhere,
            as: bindName('The press’s name: binds ${as.url} and ${as.trackId} for a URL button, ${as.data} for a callback button, and ${as.messageId}.', 'opened'),
          },
        },
      ],
      examples: [{ send: '/buy' }, { expect: 'Pay here', as: 'link' }, { press: 'Check payment' }],
    },
    title,
  },
} as const

const checkId = { type: 'string', enum: CHECK_IDS, errorMessage: `must be a check id: ${CHECK_IDS.join(', ')}` } as const

const auditStep = {
  title: 'audit step',
  description: 'Runs `pay audit` on what the sandbox observed and checks its verdict (by default: no failure).',
  type: 'object',
  required: ['audit'],
  additionalProperties: false,
  properties: {
    audit: {
      title: 'Audit',
      description: 'Which payments: those of a merchant of this file, or one payment (by default every payment in the sandbox).',
      type: 'object',
      additionalProperties: false,
      ...NOT_BOTH,
      properties: {
        merchant: sent('Merchant API key', 'Only this merchant’s payments, e.g. "${shop.key}".', ['${shop.key}']),
        payment: stepName('Payment', 'create', 'order'),
        trackId: paymentOrTrackId('').trackId,
        strict: { title: 'Strict', description: 'Warnings fail too.', type: 'boolean', default: false },
        ignore: { title: 'Checks left out', description: 'Checks the audit leaves out, e.g. insecure-url for local receivers.', type: 'array', items: checkId, maxItems: CHECK_IDS.length, examples: [['insecure-url']] },
      },
      examples: [{ merchant: '${shop.key}', ignore: ['insecure-url'] }],
    },
    expect: {
      title: 'Expected',
      description: 'Any of: the verdict, how many failures and warnings, checks that must be found (found) or must not (absent). By default {"fail": 0}.',
      type: 'object',
      additionalProperties: false,
      properties: {
        verdict: { title: 'Verdict', description: 'pass, warn (warnings only) or fail.', enum: ['pass', 'warn', 'fail'], errorMessage: 'must be pass, warn or fail' },
        fail: { title: 'Failures', description: 'How many failures the audit finds.', type: 'integer', minimum: 0 },
        warn: { title: 'Warnings', description: 'How many warnings the audit finds.', type: 'integer', minimum: 0 },
        found: { title: 'Checks found', description: 'Checks the audit must find.', type: 'array', items: checkId, maxItems: CHECK_IDS.length },
        absent: { title: 'Checks not found', description: 'Checks the audit must not find.', type: 'array', items: checkId, maxItems: CHECK_IDS.length },
      },
      examples: [{ fail: 0 }, { found: ['unverified-notification'] }],
    },
    title,
  },
} as const

const faultStep = {
  title: 'fault step',
  description:
    'Makes the spec API itself fail, as `pay fault add` does: the merchant’s next create, verify or checkout requests that match the rule get its fault (an error, a proxy’s page, a delay, a held request, a reset). The rules a run adds are removed when the run ends; {clear: true} removes every rule now. The operator’s requests (a verify step with operator: true) are never faulted.',
  type: 'object',
  required: ['fault'],
  additionalProperties: false,
  properties: {
    fault: {
      title: 'Fault rule',
      description: `A rule: route, one fault and its scope, as pay fault add takes them (its compact form: ${COMPACT_FORM}); or {clear: true}.`,
      oneOf: [
        {
          title: 'Rule',
          type: 'object',
          required: ['route'],
          additionalProperties: false,
          properties: {
            ...faultRuleInputSchema.properties,
            merchant: {
              title: 'Merchant API key',
              description: 'Only requests of this merchant key (create, verify: the key sent; checkout: the payment’s merchant), e.g. "${shop.key}".',
              type: 'string',
              minLength: 1,
              maxLength: 200,
              examples: ['${shop.key}'],
            },
            trackId: {
              title: 'Track ID',
              description: 'Only requests about this payment (verify, checkout), e.g. "${order.trackId}". Or give "payment".',
              type: 'string',
              minLength: 1,
              maxLength: 200,
              examples: ['${order.trackId}'],
            },
            payment: { ...stepName('Payment', 'create', 'order'), description: 'Only requests about this payment of the file (verify, checkout): the "as" name of an earlier create step. Or give "trackId".' },
          },
          ...NOT_BOTH,
          examples: [{ route: 'verify', status: 503, times: 2, payment: 'order' }, { route: 'create', status: 503, after: true, times: 1, merchant: '${shop.key}' }],
        },
        { title: 'Clear', type: 'object', required: ['clear'], additionalProperties: false, properties: { clear: { title: 'Clear', description: 'Remove every fault rule of the sandbox.', const: true } } },
      ],
      examples: [{ route: 'verify', status: 503, times: 2, trackId: '${order.trackId}' }, { clear: true }],
    },
    title,
  },
} as const

/** One schema per step kind, each required to carry its action key, in the order docs/reference/scenarios.md lists them. */
export const stepSchemas = {
  receiver: receiverStep,
  merchant: merchantStep,
  disable: toggleStep('disable', 'Disables a merchant: its requests get result 103.'),
  enable: toggleStep('enable', 'Enables a disabled merchant again.'),
  create: createStep,
  simulate: simulateStep,
  verify: verifyStep,
  callback: callbackStep,
  wait: waitStep,
  clock: clockStep,
  mine: mineStep,
  verifies: verifiesStep,
  audit: auditStep,
  fault: faultStep,
  chat: chatStep,
  http: httpStep,
} as const

export type StepKind = keyof typeof stepSchemas
export const STEP_KINDS = Object.keys(stepSchemas) as StepKind[]

export const scenarioSchema = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  $id: SCENARIO_SCHEMA_ID,
  title: 'pay scenario',
  description: 'A payment flow and what must happen, step by step; `pay scenario run` plays it against a sandbox and checks every expectation.',
  type: 'object',
  errorMessage: 'must be an object {"version": 1, "name": …, "steps": […]}',
  required: ['version', 'name', 'steps'],
  additionalProperties: false,
  properties: {
    $schema: { title: 'Schema', description: 'Where editors find this schema, e.g. "./node_modules/pay-sandbox/schemas/scenario.schema.json".', type: 'string' },
    version: { title: 'Format version', description: 'The scenario format version; 1 is the only one.', const: SCENARIO_VERSION, errorMessage: 'must be 1 (the only format version)', examples: [1] },
    name: { title: 'Name', ...text(200, 'The scenario’s name in reports.', ['paid']) },
    description: { title: 'Description', ...text(2000, 'What the scenario shows; a property of the JUnit testsuite.', ['The customer pays the full amount.']) },
    vars: {
      title: 'Variables',
      description:
        'Values steps use as ${vars.name}: a string, number or boolean each; a string may use ${env.NAME}. `pay scenario run --var name=value` replaces one for a run (a number or boolean must stay one).',
      type: 'object',
      maxProperties: 100,
      propertyNames: { type: 'string', pattern: '^[A-Za-z_][A-Za-z0-9_]*$', maxLength: 100, errorMessage: 'must be a variable name of letters, digits and _, e.g. shop or SHOP_URL' },
      additionalProperties: { type: ['string', 'number', 'boolean'], maxLength: 10_000, errorMessage: 'must be a string, number or boolean' },
      examples: [{ shop: 'http://127.0.0.1:3000', key: '${env.PAY_MERCHANT_KEY}' }],
    },
    steps: {
      title: 'Steps',
      description: 'Run in order; once one fails, the rest are skipped.',
      type: 'array',
      minItems: 1,
      maxItems: LIMITS.steps,
      errorMessage: `must be a list of 1 to ${LIMITS.steps} steps`,
      items: {
        title: 'Step',
        description: 'An object with one action key (receiver, merchant, disable, enable, create, simulate, verify, callback, wait, clock, mine, verifies, audit, fault, chat, http), an optional "title" and, on create, simulate, verify, verifies, audit and http, an optional "expect".',
        oneOf: [
          stepSchemas.receiver,
          stepSchemas.merchant,
          stepSchemas.disable,
          stepSchemas.enable,
          stepSchemas.create,
          stepSchemas.simulate,
          stepSchemas.verify,
          stepSchemas.callback,
          stepSchemas.wait,
          stepSchemas.clock,
          stepSchemas.mine,
          stepSchemas.verifies,
          stepSchemas.audit,
          stepSchemas.fault,
          stepSchemas.chat,
          stepSchemas.http,
        ],
      },
      examples: [[{ merchant: { as: 'shop' } }, { wait: 100 }]],
    },
  },
} as const

/** The text of schemas/scenario.schema.json, as the build writes it. */
export function scenarioSchemaJson(): string {
  return `${JSON.stringify(scenarioSchema, null, 2)}\n`
}
