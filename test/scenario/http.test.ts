import { writeFile } from 'node:fs/promises'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { describe, expect, it, onTestFinished } from 'vitest'
import { parseHttpHosts, targetProblem } from '../../src/scenario/http-call.js'
import { parseScenario, parseScenarioOrThrow } from '../../src/scenario/parse.js'
import { runScenario } from '../../src/scenario/run.js'
import type { Sandbox } from '../../src/index.js'
import { pay, sandbox, tempDir } from '../helpers.js'

type Route = (req: IncomingMessage, res: ServerResponse, body: string) => void

/** A merchant's system as a test double: routes by "METHOD /path", each request recorded. */
async function merchantSystem(routes: Record<string, Route>): Promise<{ url: string; requests: Array<{ method: string; path: string; headers: IncomingMessage['headers']; body: string }> }> {
  const requests: Array<{ method: string; path: string; headers: IncomingMessage['headers']; body: string }> = []
  const server = createServer((req, res) => {
    let body = ''
    req.on('data', (c: Buffer) => (body += c.toString()))
    req.on('end', () => {
      requests.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers, body })
      const route = routes[`${req.method} ${(req.url ?? '').split('?')[0]}`]
      if (route) route(req, res, body)
      else res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"no such route"}')
    })
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  onTestFinished(() => new Promise<void>((r) => {
    server.closeAllConnections()
    server.close(() => r())
  }))
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests }
}

const json = (res: ServerResponse, status: number, value: unknown, headers: Record<string, string> = {}) =>
  res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(value))

function scenario(steps: unknown[], extra: Record<string, unknown> = {}) {
  return parseScenarioOrThrow(JSON.stringify({ version: 1, name: 'http', ...extra, steps }), 'http.json')
}

/** A shop double: POST /orders creates a payment in the sandbox and redirects to its checkout page. */
async function shop(sb: Sandbox, state: () => string = () => 'awaiting_payment') {
  return merchantSystem({
    'POST /orders': (req, res, body) => {
      const type = String(req.headers['content-type'])
      const order = type.startsWith('application/json') ? (JSON.parse(body) as { quantity: number }) : Object.fromEntries(new URLSearchParams(body))
      void sb.client.createPayment({ merchant: 'sandbox', amount: 19.99 * Number(order.quantity), callbackUrl: 'http://127.0.0.1:9/cb' }).then((created) => {
        if (created.result !== 100) return json(res, 502, { error: created.message })
        json(res, 303, { id: 'ord_1', amount: 59.97 }, { location: sb.client.checkoutUrl(created.trackId), 'x-order-id': 'ord_1' })
      })
    },
    'GET /orders/ord_1': (_req, res) => json(res, 200, { id: 'ord_1', state: state(), amount: 59.97, items: [{ sku: 'tshirt', quantity: 3 }] }),
  })
}

describe('http steps: the merchant’s own system, called and checked', () => {
  it('posts JSON and a form, binds the trackId from the redirect, values by pointer, pattern and header; checks status, JSON, body and headers', async () => {
    const sb = await sandbox()
    const system = await shop(sb)
    const report = await runScenario(
      scenario(
        [
          {
            http: { as: 'order', method: 'POST', url: '${vars.shop}/orders', json: { item: 'tshirt', quantity: 3 }, bind: { orderId: { json: '/id' }, fromHeader: { header: 'X-Order-Id' }, shopPath: { header: 'location', pattern: '/(pay)/' }, amountText: { body: '"amount":([\\d.]+)' } } },
            expect: { status: 303, headers: { location: '/pay/' }, json: { '/id': { pattern: '^ord_' }, '/amount': { gte: 59, lt: 60 } } },
          },
          { simulate: { trackId: '${order.trackId}', outcome: 'paid' } },
          { http: { method: 'POST', url: '${vars.shop}/orders', form: { item: 'tshirt', quantity: 3 } }, expect: { status: [302, 303] } },
          {
            http: { url: '${vars.shop}/orders/${order.orderId}', headers: { 'X-Trace': '${order.fromHeader}-${order.shopPath}' } },
            expect: { status: '2xx', json: { '/state': 'awaiting_payment', '/items/0/quantity': 3, '/missing': { exists: false }, '/amount': { equals: 59.97, gte: '${order.amountText}' } }, body: '/AWAITING/i' },
          },
        ],
        { vars: { shop: system.url } },
      ),
      { client: sb.client },
    )
    expect(report.steps.map((s) => [s.number, s.outcome, s.message])).toEqual([1, 2, 3, 4].map((n) => [n, 'passed', undefined]))
    expect(report.steps[0]!.detail).toMatch(new RegExp(`^POST ${system.url}/orders answered 303 See Other, Location ${sb.url}/pay/[\\w-]{22} in \\d+ ms$`))
    expect(system.requests[0]).toMatchObject({ method: 'POST', body: '{"item":"tshirt","quantity":3}', headers: { 'content-type': 'application/json', 'user-agent': expect.stringMatching(/^pay-sandbox\//) } })
    expect(system.requests[1]).toMatchObject({ body: 'item=tshirt&quantity=3', headers: { 'content-type': 'application/x-www-form-urlencoded' } })
    expect(system.requests[2]!.headers['x-trace']).toBe('ord_1-pay')
    const [payment] = await sb.client.listPayments({ status: 'paid' })
    expect(payment!.amount).toBe(59.97)
  })

  it('fails naming the step and what the system answered; within keeps asking until it holds', async () => {
    const sb = await sandbox()
    let asked = 0
    const system = await shop(sb, () => (++asked >= 3 ? 'delivered' : 'awaiting_payment'))
    const report = await runScenario(
      scenario([
        { http: { url: `${system.url}/orders/ord_1`, within: '5s' }, expect: { json: { '/state': 'delivered' } } },
        { http: { url: `${system.url}/orders/ord_1` }, expect: { json: { '/state': 'awaiting_payment', '/amount': { gt: 100 } } } },
      ]),
      { client: sb.client },
    )
    expect(report.steps[0]).toMatchObject({ outcome: 'passed', detail: expect.stringMatching(/answered 200 OK in \d+ ms \(after 3 tries\)$/) })
    expect(report.steps[1]).toMatchObject({ outcome: 'failed', title: `http GET ${system.url}/orders/ord_1 → /state "awaiting_payment", /amount > 100` })
    expect(report.steps[1]!.error).toBeUndefined()
    expect(report.steps[1]!.message).toBe(
      `/state: expected "awaiting_payment", got "delivered"; /amount: expected a number > 100, got 59.97 — GET ${system.url}/orders/ord_1 answered 200 OK in ${/in (\d+) ms/.exec(report.steps[1]!.message!)![1]} ms: {"id":"ord_1","state":"delivered","amount":59.97,"items":[{"sku":"tshirt","quantity":3}]}`,
    )

    const late = await runScenario(scenario([{ http: { url: `${system.url}/orders/ord_1`, within: '600ms' }, expect: { json: { '/state': 'shipped' } } }]), { client: sb.client })
    expect(late.steps[0]!.message).toMatch(/^not met within 600ms \(\d+ tries\); the last: \/state: expected "shipped", got "delivered" — GET /)
  })

  it('bounds hostile answers: a huge body, one that never ends, one that is not JSON, nothing listening', async () => {
    const sb = await sandbox()
    const system = await merchantSystem({
      'GET /huge': (_req, res) => res.writeHead(200, { 'content-type': 'text/plain', 'content-length': String(3 * 1024 * 1024) }).end(Buffer.alloc(3 * 1024 * 1024, 'a')),
      'GET /chunked': (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/plain' })
        for (let i = 0; i < 48; i++) res.write(Buffer.alloc(64 * 1024, 'b'))
        res.end()
      },
      'GET /endless': (_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' })
        const timer = setInterval(() => res.write(' '), 50)
        res.on('close', () => clearInterval(timer))
      },
      'GET /html': (_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<h1>Order</h1>'),
    })
    const started = performance.now()
    const report = await runScenario(
      scenario([
        { http: { url: `${system.url}/huge` }, title: 'huge' },
      ]),
      { client: sb.client },
    )
    expect(report.steps[0]!.message).toBe(`GET ${system.url}/huge: the answer's body is over 1 MiB (Content-Length 3145728); an http step reads at most that much`)
    expect(report.steps[0]!.error).toBe(true)
    const chunked = await runScenario(scenario([{ http: { url: `${system.url}/chunked` } }]), { client: sb.client })
    expect(chunked.steps[0]!.message).toBe(`GET ${system.url}/chunked: the answer's body is over 1 MiB; an http step reads at most that much`)
    const slow = await runScenario(scenario([{ http: { url: `${system.url}/endless`, timeout: '400ms' } }]), { client: sb.client })
    expect(slow.steps[0]!.message).toBe(`GET ${system.url}/endless: no complete answer within 400 ms`)
    // Asking again within 700ms never waits out the 10 s a single request may take.
    const t0 = performance.now()
    const polled = await runScenario(scenario([{ http: { url: `${system.url}/endless`, within: '700ms' } }]), { client: sb.client })
    expect(polled.steps[0]!.message).toMatch(new RegExp(`^not met within 700ms \\(1 try\\); the last: GET ${system.url}/endless: no complete answer within \\d+ ms$`))
    expect(performance.now() - t0).toBeLessThan(3000)
    const html = await runScenario(scenario([{ http: { url: `${system.url}/html` }, expect: { json: { '/state': 'delivered' } } }]), { client: sb.client })
    expect(html.steps[0]!.message).toBe(`expected a JSON body, got one that is not JSON (text/html) — GET ${system.url}/html answered 200 OK in ${/in (\d+) ms/.exec(html.steps[0]!.message!)![1]} ms: <h1>Order</h1>`)
    const closed = await runScenario(scenario([{ http: { url: 'http://127.0.0.1:9/orders' } }]), { client: sb.client })
    expect(closed.steps[0]!.message).toBe('GET http://127.0.0.1:9/orders: connection refused (ECONNREFUSED): nothing listens there; is it running?')
    expect(performance.now() - started).toBeLessThan(10_000)
  })

  it('calls local addresses only, unless the run allows more', () => {
    const local = { allowRemote: false, hosts: [] as string[], sandboxHost: 'sandbox' }
    expect(targetProblem(new URL('http://127.0.0.1:3000/x'), local)).toBeUndefined()
    expect(targetProblem(new URL('http://127.8.0.1/x'), local)).toBeUndefined()
    expect(targetProblem(new URL('http://[::1]:3000/x'), local)).toBeUndefined()
    expect(targetProblem(new URL('http://shop.localhost:3000/x'), local)).toBeUndefined()
    expect(targetProblem(new URL('http://sandbox:8787/x'), local)).toBeUndefined()
    expect(targetProblem(new URL('http://shop:3000/x'), local)).toBe('shop is not a local address; scenario steps call loopback addresses and localhost only, unless pay scenario run --allowed-hosts shop (or --allow-remote) allows more')
    expect(targetProblem(new URL('http://10.0.0.5/x'), local)).toMatch(/^10\.0\.0\.5 is not a local address/)
    expect(targetProblem(new URL('http://127.0.0.1.nip.io/x'), local)).toMatch(/is not a local address/)
    expect(targetProblem(new URL('ftp://127.0.0.1/x'), local)).toBe('only http and https URLs can be called (got ftp)')
    const hosts = parseHttpHosts(['shop', '.example.test', '10.0.0.5'])
    expect(hosts).toEqual({ hosts: ['shop', '.example.test', '10.0.0.5'] })
    const allowed = { ...local, hosts: (hosts as { hosts: string[] }).hosts }
    for (const url of ['http://shop:3000/x', 'https://api.example.test/x', 'http://example.test/x', 'http://10.0.0.5/x']) expect(targetProblem(new URL(url), allowed), url).toBeUndefined()
    expect(targetProblem(new URL('http://10.0.0.6/x'), allowed)).toMatch(/not a local address/)
    expect(targetProblem(new URL('https://api.example.com/x'), { ...local, allowRemote: true })).toBeUndefined()
    expect(parseHttpHosts(['http://shop:3000'])).toEqual({ error: expect.stringMatching(/^--allowed-hosts: "http:\/\/shop:3000" is not a host name or IP address/) })
  })

  it('checks the step before anything runs: one body, none on GET, pointers, patterns, names', () => {
    const problems = (step: unknown) => (parseScenario(JSON.stringify({ version: 1, name: 'x', steps: [step] }), 'x.json') as { problems?: string[] }).problems
    expect(problems({ http: { method: 'POST', url: 'http://127.0.0.1/x', json: {}, form: {} } })).toEqual(['x.json:1:42: step 1 (http) › http: give at most one body: json, form or body'])
    expect(problems({ http: { url: 'http://127.0.0.1/x', json: { a: 1 } } })).toEqual(['x.json:1:77: step 1 (http) › http.json: a GET request sends no body; use method POST (or PUT, PATCH, DELETE)'])
    expect(problems({ http: { url: 'http://127.0.0.1/x' }, expect: { json: { state: 'paid' } } })).toEqual([
      'x.json:1:89: step 1 (http) › expect.json.state: must be a JSON pointer such as "/state" ("" for the whole body), got "state"',
    ])
    expect(problems({ http: { url: 'http://127.0.0.1/x', bind: { status: { json: '/s' }, id: { body: '(' } } } })).toEqual([
      'x.json:1:87: step 1 (http) › http.bind.status: "status" is bound by every http step already (status, location, trackId, body); pick another name',
      'x.json:1:114: step 1 (http) › http.bind.id.body: is not a valid regular expression: /(/: Unterminated group',
    ])
    expect(problems({ http: { url: 'http://127.0.0.1/x', within: 'soon' }, expect: { status: 700, json: { '/a': { gt: 1, more: 2 } } } })).toEqual([
      'x.json:1:79: step 1 (http) › http.within: must be a duration such as 500ms, 30s, 15m or 1h (at most 24h), got "soon"',
      'x.json:1:106: step 1 (http) › expect.status: must be an HTTP status such as 303, a class such as "2xx", or a list of them, got 700',
      'x.json:1:131: step 1 (http) › expect.json./a.more: unknown field; allowed: equals, pattern, gt, gte, lt, lte, exists',
    ])
  })
})

describe('variables: ${env.NAME} and vars, --var', () => {
  const file = (steps: unknown[], vars?: Record<string, unknown>) => JSON.stringify({ version: 1, name: 'vars', ...(vars ? { vars } : {}), steps }, null, 2)

  it('${env.…} that is not set is a mistake in the file, with its place; --var replaces vars, typed as declared', async () => {
    const dir = await tempDir()
    const path = join(dir, 'shop.json')
    await writeFile(path, file([{ merchant: { as: 'shop', key: '${env.PAY_TEST_SHOP_KEY}', name: 'Shop of ${vars.owner}' } }, { create: { merchant: '${shop.key}', amount: '${vars.amount}', callbackUrl: '${vars.callback}' } }], { owner: 'Ann', amount: 12.5, callback: '${env.PAY_TEST_CALLBACK}' }))
    const missing = await pay(['scenario', 'run', path, '--start'], { env: { PAY_TEST_CALLBACK: 'http://127.0.0.1:9/cb' } })
    expect(missing.code).toBe(2)
    expect(missing.stderr).toContain(`${path}:13:16: step 1 (merchant) › merchant.key: \${env.PAY_TEST_SHOP_KEY}: the environment variable PAY_TEST_SHOP_KEY is not set; set it`)
    const missingInVar = await pay(['scenario', 'run', path, '--start'], { env: { PAY_TEST_SHOP_KEY: 'env_shop' } })
    expect(missingInVar.stderr).toContain(`${path}:7:17: vars.callback: \${env.PAY_TEST_CALLBACK}: the environment variable PAY_TEST_CALLBACK is not set; set it, or give the value with --var callback=…`)

    const env = { PAY_TEST_SHOP_KEY: 'env_shop', PAY_TEST_CALLBACK: 'http://127.0.0.1:9/cb' }
    const ran = await pay(['scenario', 'run', path, '--start', '--json', '--var', 'amount=7', '--var', 'owner=Bob'], { env })
    expect(ran.code, ran.stderr).toBe(0)
    // The override of the var that reads the environment needs no environment.
    const overridden = await pay(['scenario', 'run', path, '--start', '--var', 'callback=https://shop.example/cb'], { env: { PAY_TEST_SHOP_KEY: 'env_shop' } })
    expect(overridden.code, overridden.stderr).toBe(0)

    const typed = await pay(['scenario', 'run', path, '--start', '--var', 'amount=lots'], { env })
    expect(typed.code).toBe(2)
    expect(typed.stderr).toContain(`${path}:6:15: vars.amount: --var amount=lots: must be a number, as the file declares it (12.5)`)
    const unknown = await pay(['scenario', 'run', path, '--start', '--var', 'amout=7'], { env })
    expect(unknown.code).toBe(2)
    expect(unknown.stderr).toContain('--var amout: no scenario file declares a var "amout" in its "vars" (did you mean amount?)')
    const malformed = await pay(['scenario', 'run', path, '--start', '--var', 'amount'], { env })
    expect(malformed.code).toBe(2)
    expect(malformed.stderr).toContain('Error: --var must be name=value with a name of letters, digits and _, e.g. --var shop=http://127.0.0.1:3000 (got "amount")')
    const undeclared = parseScenario(file([{ wait: 1 }, { merchant: { as: 'm', name: '${vars.ownr}' } }], { owner: 'Ann' }), 'v.json')
    expect(undeclared).toEqual({ problems: ['v.json:14:17: step 2 (merchant) › merchant.name: ${vars.ownr}: no var "ownr" (did you mean "owner"? declared: owner)'] })
  })

  it('the values reach the steps: a number var stays a number, the env value is read at load', async () => {
    const sb = await sandbox()
    const parsed = parseScenario(file([{ merchant: { as: 'shop', key: '${env.KEY}' } }, { create: { as: 'order', merchant: '${shop.key}', amount: '${vars.amount}', callbackUrl: 'http://127.0.0.1:9/cb' } }, { verify: { payment: 'order' }, expect: { amount: '${vars.amount}' } }], { amount: 12.5 }), 'v.json', { env: { KEY: 'from_env_1' }, vars: { amount: '3.25' } })
    if ('problems' in parsed) throw new Error(parsed.problems.join('\n'))
    expect(parsed.scenario.variables).toEqual({ env: { KEY: 'from_env_1' }, vars: { amount: 3.25 } })
    const report = await runScenario(parsed.scenario, { client: sb.client })
    expect(report.ok).toBe(true)
    expect((await sb.client.listPayments({ merchant: 'from_env_1' }))[0]!.amount).toBe(3.25)
  })

  it('pay scenario run refuses an http step to a host the run does not allow before anything runs; --allowed-hosts and --allow-remote open it', async () => {
    const dir = await tempDir()
    const path = join(dir, 'remote.json')
    await writeFile(path, file([{ merchant: { as: 'shop' } }, { http: { url: '${vars.shop}/orders/${shop.key}', timeout: '300ms' } }], { shop: 'http://192.0.2.1:9' }))
    const refused = await pay(['scenario', 'run', path, '--start'])
    expect(refused.code).toBe(2)
    expect(refused.stderr).toContain(`${path}:15:16: step 2 (http) › http.url: 192.0.2.1 is not a local address; scenario steps call loopback addresses and localhost only, unless pay scenario run --allowed-hosts 192.0.2.1 (or --allow-remote) allows more`)
    expect(refused.stderr).toContain('nothing was run')
    for (const flags of [['--allowed-hosts', '192.0.2.1'], ['--allow-remote']]) {
      const tried = await pay(['scenario', 'run', path, '--start', ...flags])
      expect(tried.code, tried.stderr).toBe(6)
      expect(tried.stdout).toMatch(/✖ 2\. http GET \$\{vars\.shop\}\/orders\/\$\{shop\.key\} \d+ ms\n {6}GET http:\/\/192\.0\.2\.1:9\/orders\/sandbox_[\w-]+: (no complete answer within 300 ms|connection refused|.*UNREACH)/)
    }
    const both = await pay(['scenario', 'run', path, '--start', '--allow-remote', '--allowed-hosts', 'shop'])
    expect(both.code).toBe(2)
  })
})
