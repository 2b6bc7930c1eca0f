import type { FastifyInstance } from 'fastify'
import { CLOCK_LATEST } from '../domain/clock-range.js'
import type { WireProvider } from '../http/type-provider.js'
import { emptyBody, json, noQuery, replies } from '../http/schemas.js'
import { advanceBody, clockChange, clockViewSchema, setBody } from './schemas.js'
import type { ClockService } from './service.js'

const tags = ['Lab']

/** The sandbox clock under /_sandbox/clock: show, advance, set, reset. */
export function clockPlugin(clock: ClockService) {
  return async function (fastify: FastifyInstance): Promise<void> {
    const app = fastify.withTypeProvider<WireProvider>()
    app.get(
      '/_sandbox/clock',
      { schema: { tags, summary: 'The sandbox clock', querystring: noQuery, response: replies('GET', { 200: json('the clock', clockViewSchema) }) } },
      async () => clock.settledView(),
    )

    app.post(
      '/_sandbox/clock/advance',
      {
        schema: {
          tags,
          summary: 'Move the clock forward; answers once what became due (retries, delayed notifications, expiries, blocks) has run',
          body: advanceBody,
          response: replies('POST', { 200: json('the clock moved, and how many timers fired', clockChange) }, ['invalidBody', 'invalidField', 'storageUnavailable']),
        },
      },
      async (request) => clock.advance(request.body.ms),
    )

    app.post(
      '/_sandbox/clock/set',
      {
        schema: {
          tags,
          summary: `Move the clock to a time, never earlier than its own, at most ${CLOCK_LATEST}`,
          body: setBody,
          response: replies('POST', { 200: json('the clock moved, and how many timers fired', clockChange) }, ['invalidBody', 'invalidField', 'storageUnavailable']),
        },
      },
      async (request) => clock.set(request.body.time),
    )

    app.post(
      '/_sandbox/clock/reset',
      {
        schema: {
          tags,
          summary: 'Back to real time (standing still until real time catches up, when it was ahead)',
          body: emptyBody,
          response: replies('POST', { 200: json('the clock now', clockChange) }, ['invalidBody', 'storageUnavailable']),
        },
      },
      async () => clock.reset(),
    )
  }
}
