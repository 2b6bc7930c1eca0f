import type { VerifyBody } from '../client/index.js'

const meaning: Record<number, string> = {
  100: 'paid and verified',
  202: 'not completed by the customer',
  103: 'merchant account disabled',
  104: 'invalid API key',
}

/** What a verify answer means, in words: its message when it has one, else what its result says. */
export function verifyMeaning(body: VerifyBody): string {
  if ('message' in body) return body.message
  return body.result === 203 ? 'exists, not finalized' : (meaning[body.result] ?? '')
}
