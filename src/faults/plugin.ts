import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify'
import { type FaultedRoute, HELD_MAX, HOLD_MAX_MS } from '../domain/api-fault.js'
import { isOperatorMark, OPERATOR_HEADER } from '../domain/operator.js'
import type { Store } from '../store/store.js'
import { aboutRequest, Play } from './play.js'
import { faultRoutes } from './routes.js'
import type { FaultService } from './service.js'

export interface FaultsOptions {
  faults: FaultService
  /** Payments and merchants, for the rules' scope and the record. */
  store: Pick<Store, 'getMerchant' | 'getPayment'>
  /** Sandbox time, for the record. */
  now: () => Date
  /** The longest a request is held open (default HOLD_MAX_MS). */
  holdMaxMs?: number
  /** How many requests are held open (a timeout) or kept waiting (a delay) at once, at most (default HELD_MAX). */
  heldMax?: number
}

/** The routes faults play on, by method and path as registered. */
const FAULTED: Readonly<Record<string, FaultedRoute>> = {
  'POST /api/v1/request': 'create',
  'POST /api/v1/verify': 'verify',
  'GET /pay/:trackId': 'checkout',
}

type Hook = (...args: never[]) => unknown
type HookDone = (error?: Error | null, payload?: unknown) => void
const listOf = (hooks: Hook | Hook[] | undefined): Hook[] => (hooks === undefined ? [] : Array.isArray(hooks) ? hooks : [hooks])

/**
 * API faults: the control routes of the rules (`/_sandbox/faults`), and the hooks that play a rule's fault on the
 * spec API's create and verify and on the checkout page. It must be registered before those routes: it puts its
 * hooks on them as they are added, and on no other route.
 */
export function faultsPlugin(options: FaultsOptions) {
  const plugin = async function (app: FastifyInstance): Promise<void> {
    const holds = new Set<() => void>()
    const plays = new WeakMap<FastifyRequest, Play>()
    const context = {
      record: (hit: Parameters<FaultService['record']>[0]) => options.faults.record(hit),
      holds,
      holdMaxMs: options.holdMaxMs ?? HOLD_MAX_MS,
      heldMax: options.heldMax ?? HELD_MAX,
      logUnanswered: (request: FastifyRequest, ms: number) => app.logUnanswered?.(request, ms),
    }

    const before = (route: FaultedRoute) => {
      const playing = async function (request: FastifyRequest, reply: FastifyReply, started: number): Promise<FastifyReply | undefined> {
        // The sandbox's own clients (the pay CLI, the inspector, a scenario checking as the operator) get real
        // answers, and are not counted: a rule rehearses the merchant's code, and the operator's look spends none of it.
        if (isOperatorMark(request.headers[OPERATOR_HEADER.toLowerCase()])) return undefined
        const { target, details } = aboutRequest(route, request, options.store)
        const decision = options.faults.decide(target)
        if (!decision) return undefined
        const at = options.now().toISOString()
        // The rule's place in its sequence is on disk before its fault plays.
        await decision.saved
        const play = new Play(started, route, decision.rule, decision.fault, at, details, context)
        if (play.after) {
          plays.set(request, play)
          return undefined
        }
        const next = await play.before(request, reply)
        if (next === 'go-on') {
          plays.set(request, play)
          return undefined
        }
        return reply
      }
      // Without a rule, the request goes on at once, without a promise in between (the spec API's every request
      // passes here); with one, Fastify waits for the returned promise as for an async hook.
      return function playFault(request: FastifyRequest, reply: FastifyReply, done: HookDone): Promise<FastifyReply | undefined> | undefined {
        if (!options.faults.active) {
          done()
          return undefined
        }
        return playing(request, reply, performance.now())
      }
    }

    /** As playFault: at once when no fault plays on the request, else the fault's promise, as an async hook. */
    function afterRoute(request: FastifyRequest, reply: FastifyReply, payload: unknown, done: HookDone): Promise<unknown> | undefined {
      const play = plays.get(request)
      if (!play) {
        done(null, payload)
        return undefined
      }
      plays.delete(request)
      return play.onSend(request, reply, payload)
    }

    app.addHook('onRoute', (route: RouteOptions) => {
      const methods = [route.method].flat()
      const faulted = methods.length === 1 ? FAULTED[`${methods[0]} ${route.url}`] : undefined
      if (faulted === undefined) return
      route.preHandler = [...listOf(route.preHandler as Hook | Hook[] | undefined), before(faulted)] as RouteOptions['preHandler']
      route.onSend = [...listOf(route.onSend as Hook | Hook[] | undefined), afterRoute] as RouteOptions['onSend']
    })
    // A held request would hold a graceful stop for minutes: each is closed (a delay cut short) as the stop begins.
    app.addHook('preClose', async () => {
      for (const release of [...holds]) release()
    })
    await app.register(faultRoutes(options.faults))
  }
  // Its hooks reach the routes registered after it, as fastify-plugin's do.
  return Object.assign(plugin, { [Symbol.for('skip-override')]: true })
}
