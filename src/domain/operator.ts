/**
 * The sandbox's own clients mark their requests: the pay CLI, the inspector's pages and scenario steps that check
 * as the operator send `Pay-Sandbox-Operator: 1`. A verify so marked is recorded as the operator's and left out of
 * every judgement of the merchant (the audit, `payment wait --verified`, the verify journal's checks), so the
 * developer's own looks never count for or against the merchant's code.
 *
 * A web page cannot use it to hide anything: a browser sends a header of its own choosing to another origin only
 * after a CORS preflight, which the sandbox never grants, and the request guard refuses every change sent from
 * another origin. Only the sandbox's own pages, and programs (the CLI, a merchant's server), can send it; a
 * merchant's server that sends it hides its own calls from its own audit, on purpose.
 */
export const OPERATOR_HEADER = 'Pay-Sandbox-Operator'

/** Whether a request's header value (as Node gives it) marks it as the operator's. */
export function isOperatorMark(value: string | string[] | undefined): boolean {
  return value === '1'
}
