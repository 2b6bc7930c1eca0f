import { Args } from '@oclif/core'
import { brief } from '../domain/brief.js'
import { checkoutTrackId } from '../domain/checkout-url.js'
import { usage } from './usage.js'

/**
 * A trackId as typed: the id itself, or a checkout URL `<anything>/pay/<trackId>` as a bot test scrapes it from a
 * chat, with or without a trailing slash, query or fragment; percent-encoding is decoded. A trackId never holds
 * `/`, so text with one is read as a URL, and one that is not a checkout URL is a usage error naming `what`.
 */
export function trackIdFrom(text: string, what: string): string {
  if (!text.includes('/')) return text
  const trackId = checkoutTrackId(text)
  if (trackId === undefined) throw usage(`${what} must be a trackId or a checkout URL ending in /pay/<trackId> (got ${brief(text)})`)
  return trackId
}

/** A required trackId argument that also takes a checkout URL. */
export function trackIdArg(description = 'trackId of the payment, or its checkout URL (…/pay/<trackId>)') {
  return Args.string({ description, required: true, ignoreStdin: true, parse: async (input) => trackIdFrom(input, 'the trackId argument') })
}
