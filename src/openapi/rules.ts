import { failures, RequestError, SpecMessage, SpecResult } from '../domain/outcomes.js'
import { AMOUNT_RULE } from '../domain/payment.js'
import { LIMITS } from '../domain/validate.js'

/**
 * The spec's rules in words for the API document, made from the tables the sandbox runs on (outcomes, limits), so
 * the document cannot drift from the code. Pure; Markdown (tables, `code`), which OpenAPI descriptions use.
 */

type Failure = keyof typeof failures

/** The create fields in the spec's order, with the rule the sandbox applies and the failure it answers. */
const createFields: Array<{ field: string; required: boolean; rule: string; failure: Failure }> = [
  { field: 'merchant', required: true, rule: 'the API key of a known merchant (then: enabled)', failure: 'invalidApiKey' },
  { field: 'amount', required: true, rule: `a JSON number: ${AMOUNT_RULE}, any number of decimals; kept and answered exactly as sent`, failure: 'invalidAmount' },
  { field: 'callbackUrl', required: true, rule: `an absolute http or https URL with a host, at most ${LIMITS.callbackUrl} characters`, failure: 'invalidCallbackUrl' },
  { field: 'returnUrl', required: false, rule: `an absolute http or https URL with a host, at most ${LIMITS.returnUrl} characters`, failure: 'invalidReturnUrl' },
  { field: 'description', required: false, rule: `a string of at most ${LIMITS.description} characters (Unicode code points)`, failure: 'descriptionTooLong' },
  { field: 'mobile', required: false, rule: `a string of at most ${LIMITS.mobile} characters`, failure: 'mobileTooLong' },
]

const code = (text: string | number) => `\`${text}\``
const row = (cells: Array<string | number>) => `| ${cells.join(' | ')} |`
const tableOf = (header: string[], rows: Array<Array<string | number>>) => [row(header), row(header.map(() => '---')), ...rows.map(row)].join('\n')

/** The create request's fields, rules and failure codes, in the order they are checked. */
export function createRulesText(): string {
  return [
    'Checked in this order; the first failure is answered, with HTTP 200. Absent and `null` optional fields mean "not given". Unknown fields are ignored.',
    '',
    tableOf(
      ['Field', 'Required', 'Rule', 'Failure'],
      createFields.map((f) => [code(f.field), f.required ? 'yes' : 'no', f.rule, `${failures[f.failure].result} ${code(failures[f.failure].message)}`]),
    ),
    '',
    `A disabled merchant's key is ${failures.merchantDisabled.result} ${code(failures.merchantDisabled.message)}. A \`description\` or \`mobile\` that is not a string is HTTP 400 \`${RequestError.invalidField.error}\`: the spec has no code for it.`,
    '',
    `Success: \`{"result": ${SpecResult.success}, "trackId": "…", "message": "${SpecMessage.success}"}\`. The customer pays at \`/pay/<trackId>\`.`,
  ].join('\n')
}

/** The verify answers, payment by payment. */
export function verifyRulesText(): string {
  return [
    tableOf(
      ['Payment', 'Answer'],
      [
        ['paid', `${code(`{"result": ${SpecResult.success}, "amount": <amount paid>, "refNumber": "<12 digits>"}`)}; the same refNumber every time`],
        ['not completed (pending or failed)', code(`{"result": ${SpecResult.notCompleted}, "amount": <order amount>}`)],
        ['paid, not finalized', `${code(`{"result": ${SpecResult.invalidTrackIdOrNotFinal}, "amount": <amount paid>}`)}, no message`],
        ['unknown trackId, or another merchant\'s', code(`{"result": ${SpecResult.invalidTrackIdOrNotFinal}, "message": "${SpecMessage.invalidTrackId}"}`)],
        ['unknown or disabled merchant key', `${failures.invalidApiKey.result} ${code(failures.invalidApiKey.message)} / ${failures.merchantDisabled.result} ${code(failures.merchantDisabled.message)}`],
      ],
    ),
    '',
    `Treat a payment as successful only when \`result\` is ${SpecResult.success} **and** \`amount\` equals the order amount.`,
  ].join('\n')
}

/** Every spec result code with its message, from the outcomes table. */
export function resultCodesText(): string {
  const rows: Array<[number, string, string]> = [
    [SpecResult.success, 'create, verify', `${code(SpecMessage.success)} on create; none on verify`],
    ...Object.values(failures).map((f): [number, string, string] => [f.result, f.result === failures.merchantDisabled.result || f.result === failures.invalidApiKey.result ? 'create, verify' : 'create', code(f.message)]),
    [SpecResult.notCompleted, 'verify', 'none; `amount` is the order amount'],
    [SpecResult.invalidTrackIdOrNotFinal, 'verify', `${code(SpecMessage.invalidTrackId)} (unknown trackId), or none with \`amount\` (not finalized)`],
  ]
  return tableOf(['result', 'Operation', 'message'], rows)
}

/** The request errors, which carry the HTTP status as `result` under /api/v1. */
export function requestErrorsText(): string {
  const byStatus = new Map<number, string[]>()
  for (const { statusCode, error } of Object.values(RequestError)) byStatus.set(statusCode, [...(byStatus.get(statusCode) ?? []), code(error)])
  return [
    'Requests the spec has no code for (malformed JSON, a body that is not an object, a `Content-Type` other than JSON, a body over 1 MB, an unknown route, a wrong method) get an HTTP 4xx or 5xx and `{statusCode, error, message}`; under `/api/v1` also `result`, the HTTP status, which can never be read as one of the spec\'s codes.',
    '',
    tableOf(['HTTP', 'error'], [...byStatus].sort(([a], [b]) => a - b).map(([status, errors]) => [status, errors.join(', ')])),
  ].join('\n')
}

/** The document's description: what the sandbox is, its two APIs, and the spec's rules. */
export function apiDescription(): string {
  return [
    'The local sandbox of the Merchant Payment Service. **Spec API** (`/api/v1`): create and verify, exactly as the service\'s spec says: every outcome is HTTP 200 with an integer `result`. **Control API** (`/_sandbox`): what the `pay` CLI and test scripts use to act as the customer, inspect payments and callbacks, and manage the sandbox. Also the checkout page\'s endpoints and the sandbox\'s pages.',
    '',
    'The sandbox answers only requests whose `Host` is an IP address, `localhost` or a name it was started with (`--allowed-hosts`); every request that changes something must say `Content-Type: application/json`, even without a body (an empty body reads as `{}` outside `/api/v1`). No answer carries an `Access-Control-Allow-*` header.',
    '',
    '## Result codes',
    '',
    resultCodesText(),
    '',
    '## Request errors',
    '',
    requestErrorsText(),
  ].join('\n')
}
