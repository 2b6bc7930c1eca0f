import { Args } from '@oclif/core'
import { isMerchantKey, merchantKeyRule } from '../domain/merchant.js'
import { usage } from './usage.js'

/** A required merchant key argument; a key no merchant can have is a usage error, not a lookup. */
export function merchantKeyArg() {
  return Args.string({
    description: 'API key of the merchant',
    required: true,
    ignoreStdin: true,
    parse: async (input) => {
      // An empty key is left to the empty-argument check, which names the argument.
      if (input !== '' && !isMerchantKey(input)) throw usage(`the key argument: ${merchantKeyRule(input)}`)
      return input
    },
  })
}
