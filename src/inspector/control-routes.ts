import type { FastifyInstance } from 'fastify'
import { SandboxError } from '../domain/outcomes.js'
import type { WireProvider } from '../http/type-provider.js'
import type { EventStreams } from '../http/sse.js'
import type { ChangeFeed } from './changes.js'
import { type FilterKey, matchesFilter, readFilter, type RequestFilter } from './request-filter.js'
import type { RequestLog } from './request-log.js'
import { routeSchemas as schemas } from './schemas.js'

/** Bytes a request-log stream leaves unsent before it waits for its reader: far below MAX_UNREAD_BYTES, so it is never dropped. */
const STREAM_PACE_BYTES = 64 * 1024

/** The query's filter fields as the log reads them (methods in upper case, `4XX` as `4xx`); the schema checked them. */
function filterOf(query: Partial<Record<FilterKey, string | number>>): RequestFilter {
  const read = readFilter(query)
  if ('problem' in read) throw new SandboxError('invalidBody', `request querystring/${read.problem}`)
  return read.filter
}

/** The request log and the inspector's event streams, under /_sandbox. */
export function inspectorControlRoutes(requests: RequestLog, changes: ChangeFeed, streams: EventStreams) {
  return async function (fastify: FastifyInstance): Promise<void> {
    const app = fastify.withTypeProvider<WireProvider>()
    app.get(
      '/_sandbox/requests',
      { schema: schemas.requestLog },
      async (request) => {
        const { after, limit, ...rest } = request.query
        // A team sandbox's log: what every instance answered before this request.
        await requests.refresh()
        return {
          requests: requests.list(filterOf(rest), { ...(after !== undefined ? { after } : {}), ...(limit !== undefined ? { limit } : {}) }),
          capacity: requests.capacity,
          maxBytes: requests.maxBytes,
          oldestSeq: requests.oldestSeq,
          latestSeq: requests.latestSeq,
        }
      },
    )

    app.get(
      '/_sandbox/requests/events',
      { schema: schemas.requestEvents },
      async (request, reply) => {
        const { after, ...rest } = request.query
        const filter = filterOf(rest)
        let stop = (): void => {}
        const stream = streams.open(reply, () => stop())
        // The last seq this reader was sent or passed over. A seq this log never reached was given by a reader of
        // an earlier run of the sandbox: it gets all that this run kept.
        let sent = after === undefined ? requests.latestSeq : after > requests.latestSeq ? 0 : after
        let waiting = false
        // Paced by the reader: the log is the buffer, so a reader that falls behind costs nothing; when it reads
        // again it is told what the log let go meanwhile (`gap`), then gets the rest.
        const pump = (): void => {
          while (stream.open && !waiting && sent < requests.latestSeq) {
            if (sent + 1 < requests.oldestSeq) {
              stream.send('gap', { from: sent + 1, to: requests.oldestSeq - 1 })
              sent = requests.oldestSeq - 1
            } else if (stream.unsent >= STREAM_PACE_BYTES) {
              waiting = true
              stream.whenDrained(() => {
                waiting = false
                pump()
              })
            } else {
              const entry = requests.get(++sent)!
              if (matchesFilter(entry, filter)) stream.send('request', entry, entry.seq)
            }
          }
        }
        stop = requests.subscribe(pump)
        pump()
      },
    )

    app.get(
      '/_sandbox/events',
      { schema: schemas.changeEvents },
      async (request, reply) => {
        const { trackId } = request.query
        const stops: Array<() => void> = []
        const stream = streams.open(reply, () => stops.forEach((stop) => stop()))
        stops.push(
          changes.subscribe((change) => {
            if (change.kind === 'payment') {
              if (trackId === undefined || change.payment.trackId === trackId) stream.send('payment', { created: change.created, payment: change.payment })
            } else if (change.kind === 'delivery') {
              if (trackId === undefined || change.delivery.trackId === trackId) stream.send('delivery', { delivery: change.delivery })
            } else {
              stream.send(change.kind, {})
            }
          }),
        )
        if (request.query.requests) {
          const filter: RequestFilter = trackId !== undefined ? { trackId } : {}
          stops.push(requests.subscribe((entry) => matchesFilter(entry, filter) && stream.send('request', entry, entry.seq)))
        }
      },
    )
  }
}
