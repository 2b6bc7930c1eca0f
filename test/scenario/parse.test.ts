import { describe, expect, it } from 'vitest'
import { parseScenario, parseScenarioOrThrow, ScenarioFileError } from '../../src/scenario/parse.js'
import { parseTemplate, resolveValue } from '../../src/scenario/template.js'

const FILE = 'bad.json'

/** The problems of a file, pretty-printed as people write them; `positions: false` leaves out line and column. */
function problemsOf(doc: unknown, { positions = true } = {}): string[] {
  const parsed = parseScenario(typeof doc === 'string' ? doc : JSON.stringify(doc, null, 2), FILE)
  if ('scenario' in parsed) throw new Error('expected problems, the file was accepted')
  return positions ? parsed.problems : parsed.problems.map((p) => p.replace(/^bad\.json:\d+:\d+: /, 'bad.json: '))
}

const base = (steps: unknown[]) => ({ version: 1, name: 'x', steps })
const merchant = { merchant: { as: 'shop' } }
const create = { create: { as: 'order', merchant: '${shop.key}', amount: 10, callbackUrl: 'https://m.example/cb' } }

describe('scenario validator', () => {
  const rows: Array<[string, unknown, string]> = [
    ['not JSON, with line and column', '{\n  "version": 1,\n  oops\n}', 'bad.json: not valid JSON'],
    ['not an object', [1, 2], 'bad.json: must be an object {"version": 1, "name": …, "steps": […]}, got a list of 2'],
    ['missing version', { name: 'x', steps: [{ wait: 1 }] }, 'bad.json: version: missing; e.g. "version": 1'],
    ['future version', { version: 2, name: 'x', steps: [{ wait: 1 }] }, 'version: must be 1 (the only format version), got 2'],
    ['blank name', { version: 1, name: '  ', steps: [{ wait: 1 }] }, 'name: must be a non-empty string of at most 200 characters, got "  "'],
    ['missing name', { version: 1, steps: [{ wait: 1 }] }, 'bad.json: name: missing'],
    ['unknown top-level field', { ...base([{ wait: 1 }]), stpes: [] }, 'bad.json: stpes: unknown field'],
    ['no steps', base([]), 'steps: must be a list of 1 to 500 steps, got an empty list'],
    ['too many steps', base(Array(501).fill({ wait: 1 })), 'steps: must be a list of 1 to 500 steps, got a list of 501'],
    ['steps not an array', { version: 1, name: 'x', steps: {} }, 'steps: must be a list of 1 to 500 steps, got {}'],
    ['a step that is not an object', base([5]), 'bad.json: step 1: must be an object with one of receiver, merchant, disable, enable, create, simulate, verify, callback, wait, clock, mine, verifies, audit, fault, chat, http, got 5'],
    ['unknown action', base([{ pay: {} }]), 'bad.json: step 1: needs one of receiver, merchant, disable, enable, create, simulate, verify, callback, wait, clock, mine, verifies, audit, fault, chat, http (unknown: pay)'],
    ['two actions', base([{ wait: 1, create: {} }]), 'step 1: has wait and create; use only one'],
    ['wait out of range', base([{ wait: 600000 }]), 'step 1 (wait) › wait: must be a whole number of milliseconds from 0 to 60000, got 600000'],
    ['typo in a create field', base([merchant, { create: { as: 'o', merchant: 'k', amout: 10, callbackUrl: 'x' } }]), 'step 2 (create) › create.amout: unknown field (did you mean "amount"?); allowed: as, merchant, amount'],
    ['case typo gets a suggestion', base([merchant, { create: { as: 'o', merchant: 'k', amount: 1, callbackURL: 'x' } }]), 'create.callbackURL: unknown field (did you mean "callbackUrl"?)'],
    ['expect result not an integer', base([merchant, { ...create, expect: { result: '100' } }]), 'step 2 (create) › expect.result: must be a whole number from 0 to 999, got "100"'],
    ['expect on a wait', base([{ wait: 1, expect: { result: 100 } }]), 'step 1 (wait) › expect: unknown field; allowed: wait, title'],
    ['a step body of the wrong type', base([{ receiver: 5 }]), 'step 1 (receiver) › receiver: must be an object like {"as":"receiver"}, got 5'],
    ['receiver without a name', base([{ receiver: {} }]), 'step 1 (receiver) › receiver.as: missing; e.g. "as": "receiver"'],
    ['a name with a space', base([{ merchant: { as: 'my shop' } }]), 'merchant.as: must be a name of letters, digits, _ or - starting with a letter or _, got "my shop"'],
    ['receiver failStatus 200', base([{ receiver: { as: 'r', failStatus: 200 } }]), 'receiver.failStatus: must be a whole number from 400 to 599, got 200'],
    ['duplicate name', base([merchant, { merchant: { as: 'shop' } }]), 'step 2 (merchant) › merchant.as: "shop" is already the name of step 1'],
    ['reserved name', base([{ merchant: { as: 'sandbox' } }]), 'merchant.as: "sandbox" is reserved'],
    ['simulate an unknown payment', base([{ simulate: { payment: 'order', outcome: 'paid' } }]), 'step 1 (simulate) › simulate.payment: no earlier create step is named "order"'],
    ['simulate a bad outcome', base([merchant, create, { simulate: { payment: 'order', outcome: 'refunded' } }]), 'step 3 (simulate) › simulate.outcome: must be one of paid, unfinalized, failed, expired, got "refunded"'],
    ['simulate expect status unknown', base([merchant, create, { simulate: { payment: 'order', outcome: 'paid' }, expect: { status: 'done' } }]), 'expect.status: must be one of pending, unfinalized, paid, failed'],
    ['verify with neither payment nor trackId', base([{ verify: {} }]), 'step 1 (verify) › verify.trackId: missing; give "payment" (a create step of this file) or "trackId"'],
    ['verify by trackId without merchant', base([{ verify: { trackId: 't' } }]), 'step 1 (verify) › verify.merchant: missing; with "trackId", verify needs "merchant" (the key to send) too'],
    ['verify with both payment and trackId', base([merchant, create, { verify: { payment: 'order', trackId: 't', merchant: 'k' } }]), 'step 3 (verify) › verify: give "payment" or "trackId", not both'],
    ['simulate with both payment and trackId', base([merchant, create, { simulate: { payment: 'order', trackId: '${order.trackId}', outcome: 'paid' } }]), 'step 3 (simulate) › simulate: give "payment" or "trackId", not both'],
    ['simulate with neither payment nor trackId', base([{ simulate: { outcome: 'paid' } }]), 'step 1 (simulate) › simulate.trackId: missing; give "payment" (a create step of this file) or "trackId"'],
    ['simulate by a trackId bound by no step', base([{ simulate: { trackId: '${link.trackId}', outcome: 'paid' } }]), 'step 1 (simulate) › simulate.trackId: ${link.trackId} refers to "link", which no earlier step defines'],
    ['callback with both payment and trackId', base([merchant, create, { callback: { payment: 'order', trackId: 'x' } }]), 'step 3 (callback) › callback: give "payment" or "trackId", not both'],
    ['verifies with both payment and trackId', base([merchant, create, { verifies: { payment: 'order', trackId: 'x' } }]), 'step 3 (verifies) › verifies: give "payment" or "trackId", not both'],
    ['chat with two actions', base([{ chat: { send: '/buy', expect: 'x' } }]), 'step 1 (chat) › chat: has send and expect; use only one'],
    ['chat with no action', base([{ chat: { sned: '/buy' } }]), 'step 1 (chat) › chat: needs one of send, expect, press (unknown: sned)'],
    ['chat expect with an invalid pattern', base([{ chat: { expect: 'Pay (here' } }]), 'step 1 (chat) › chat.expect: is not a valid regular expression: /Pay (here/: Unterminated group'],
    ['chat expect with a flag it cannot take', base([{ chat: { expect: '/paid/g' } }]), 'step 1 (chat) › chat.expect: the flags after the closing / may be i, m, s and u, each once (got "g")'],
    ['chat expect within too long', base([{ chat: { expect: 'paid', within: '5m' } }]), 'step 1 (chat) › chat.within: must be a duration from 1ms to 2m'],
    ['chat expect within not a duration', base([{ chat: { expect: 'paid', within: 'soon' } }]), 'step 1 (chat) › chat.within: must be a duration such as 500ms, 30s, 15m or 1h (at most 24h), got "soon"'],
    ['chat with an unknown field', base([{ chat: { send: '/buy', wait: 5 } }]), 'step 1 (chat) › chat.wait: unknown field; allowed: send, bot, chat, as'],
    ['chat press of a message that is no id', base([{ chat: { press: 'Pay', message: 'newest' } }]), 'step 1 (chat) › chat.message: must be a message id or a ${…} reference such as "${link.messageId}", got "newest"'],
    ['chat expect binding a field it has not', base([{ chat: { expect: 'Pay', as: 'link' } }, { chat: { send: '${link.amount}' } }]), 'step 2 (chat) › chat.send: ${link.amount}: "link" (step 1) has text, messageId, url, trackId, not amount'],
    ['amountMatchesOrder without payment', base([{ verify: { trackId: 't', merchant: 'k' }, expect: { amountMatchesOrder: true } }]), 'step 1 (verify) › verify.payment: missing; "expect.amountMatchesOrder" compares the answer with the order amount, so verify needs "payment"'],
    ['create expect with neither result nor error', base([merchant, { ...create, expect: {} }]), 'step 2 (create) › expect: needs one of result, error'],
    ['create expect with both result and error', base([merchant, { ...create, expect: { result: 105, error: 'invalid_field' } }]), 'step 2 (create) › expect: has result and error; use only one'],
    ['an error expectation with a typo', base([merchant, { ...create, expect: { error: 'invalid_field', mesage: 'x' } }]), 'step 2 (create) › expect.mesage: unknown field (did you mean "message"?); allowed: error, message'],
    ['refNumber presence not boolean', base([merchant, create, { verify: { payment: 'order' }, expect: { refNumber: 1 } }]), 'expect.refNumber: must be true (present), false (absent) or the exact text, got 1'],
    ['disable a name that is not a merchant', base([{ receiver: { as: 'r' } }, { disable: 'r' }]), 'step 2 (disable) › disable: "r" is step 1, a receiver step, not a merchant step'],
    ['disable an unknown merchant', base([{ disable: 'shop' }]), 'disable: no earlier merchant step is named "shop"'],
    ['callback at an unknown receiver', base([merchant, create, { callback: { receiver: 'hook', payment: 'order' } }]), 'step 3 (callback) › callback.receiver: no earlier receiver step is named "hook"'],
    ['callback with nothing to match', base([{ receiver: { as: 'r' } }, { callback: { receiver: 'r' } }]), 'step 2 (callback) › callback.match: missing; give "payment" or "match"'],
    ['callback with an empty match', base([{ receiver: { as: 'r' } }, { callback: { receiver: 'r', match: {} } }]), 'step 2 (callback) › callback.match: give "payment" or "match": something to tell this callback from others, got {}'],
    ['callback in the log needs a payment', base([{ callback: { match: { status: 'paid' } } }]), 'callback.payment: missing; without "receiver", the callback is looked up in the sandbox’s delivery log, by payment'],
    ['callback within too long', base([merchant, create, { callback: { payment: 'order', within: 999999 } }]), 'callback.within: must be a whole number from 1 to 120000'],
    ['simulate with a callback mode that is not one', base([merchant, create, { simulate: { payment: 'order', outcome: 'paid', callback: 'lose' } }]), 'step 3 (simulate) › simulate.callback: must be send, drop, delay=<duration>'],
    ['a fault rule with no fault', base([{ fault: { route: 'verify' } }]), 'step 1 (fault) › fault: give one fault: status=<code> (400 to 599), html=<code> (502, 503 or 504)'],
    ['a fault rule on no route', base([{ fault: { route: 'refund', status: 503 } }]), 'step 1 (fault) › fault.route: must be one of create, verify, checkout, all, got "refund"'],
    ['a fault on a create, scoped to a payment', base([merchant, create, { fault: { route: 'create', status: 503, payment: 'order' } }]), 'step 3 (fault) › fault: a create has no trackId yet: payment needs route verify, checkout or all'],
    ['a fault with both payment and trackId', base([merchant, create, { fault: { route: 'verify', status: 503, payment: 'order', trackId: 'x' } }]), 'step 3 (fault) › fault: give "payment" or "trackId", not both'],
    ['a fault on an unknown payment', base([{ fault: { route: 'verify', status: 503, payment: 'order' } }]), 'step 1 (fault) › fault.payment: no earlier create step is named "order"'],
    ['a fault for a merchant no step defines', base([{ fault: { route: 'verify', status: 503, merchant: '${shop.key}' } }]), 'step 1 (fault) › fault.merchant: ${shop.key} refers to "shop", which no earlier step defines'],
    ['a fault status as a string', base([{ fault: { route: 'verify', status: '503' } }]), 'step 1 (fault) › fault.status: must be a whole number from 400 to 599, got "503"'],
    ['a fault delay over the bound', base([{ fault: { route: 'verify', delay: '10m' } }]), 'step 1 (fault) › fault: delay must be <duration> (e.g. delay=1.5s, at most 5m) (got "10m")'],
    ['a fault field that is not one', base([{ fault: { route: 'verify', timeout: true, colour: 'red' } }]), 'step 1 (fault) › fault.colour: unknown field; allowed: route, status, html, delay, timeout, reset, retryAfter, times, rate, seed, merchant, trackId, after, seconds, payment'],
    ['a clear that is not true', base([{ fault: { clear: false } }]), 'step 1 (fault) › fault.clear: must be true, got false'],
    ['an audit of both payment and trackId', base([merchant, create, { audit: { payment: 'order', trackId: 'x' } }]), 'step 3 (audit) › audit: give "payment" or "trackId", not both'],
    ['clock with two moves', base([{ clock: { advance: '1s', reset: true } }]), 'step 1 (clock) › clock'],
    ['clock advance beyond 24h', base([{ clock: { advance: '25h' } }]), 'step 1 (clock) › clock.advance: must be a duration from 1ms to 24h'],
    ['clock set to no time', base([{ clock: { set: 'next tuesday' } }]), 'step 1 (clock) › clock.set: must be an ISO 8601 time, e.g. 2030-01-31T12:00:00Z (got "next tuesday")'],
    ['clock set past the range', base([{ clock: { set: '9999-12-31T23:59:59Z' } }]), 'step 1 (clock) › clock.set: must be no later than 9999-01-01T00:00:00.000Z, the latest time the sandbox clock goes to (got "9999-12-31T23:59:59Z")'],
    ['mine until a merchant', base([merchant, { mine: { until: 'shop' } }]), 'step 2 (mine) › mine.until: "shop" is step 1, a merchant step, not a create step'],
    ['verifies of an unknown payment', base([{ verifies: { payment: 'order' } }]), 'step 1 (verifies) › verifies.payment: no earlier create step is named "order"'],
    ['audit expecting an unknown check', base([{ audit: {}, expect: { found: ['trust-the-callback'] } }]), 'step 1 (audit) › expect.found[0]: must be a check id: unverified-notification,'],
    ['receiver verifying with an unknown merchant', base([{ receiver: { as: 'r', verifyWith: '${shop.key}' } }]), 'step 1 (receiver) › receiver.verifyWith: ${shop.key} refers to "shop", which no earlier step defines'],
    ['payment of a failing create has no trackId', base([merchant, { ...create, expect: { result: 105 } }, { simulate: { payment: 'order', outcome: 'paid' } }]), 'simulate.payment: "order" (step 2) expects a failure, so it has no trackId'],
  ]
  it.each(rows)('%s', (_label, doc, message) => {
    const problems = problemsOf(doc, { positions: false })
    expect(problems.join('\n')).toContain(message)
  })

  it('reports the line and column of a JSON syntax error', () => {
    expect(problemsOf('{\n  "version": 1,\n  oops\n}')).toEqual(['bad.json:3:3: not valid JSON: Expected double-quoted property name'])
  })

  it('names the line and column of the offending field in a JSON file', () => {
    const text = ['{', '  "version": 1,', '  "name": "x",', '  "steps": [', '    { "merchant": { "as": "shop" } },', '    { "create": { "merchant": "${shop.key}", "amout": 1 } },', '    { "wait": "soon" }', '  ]', '}'].join('\n')
    expect(problemsOf(text)).toEqual([
      'bad.json:6:46: step 2 (create) › create.amout: unknown field (did you mean "amount"?); allowed: as, merchant, amount, callbackUrl, returnUrl, description, mobile',
      'bad.json:7:15: step 3 (wait) › wait: must be a whole number of milliseconds from 0 to 60000, got "soon"',
    ])
  })

  it('lists at most 50 problems of a file and counts the rest, and cuts a huge field name', () => {
    const problems = problemsOf(base(Array(80).fill({ wait: -1 })))
    expect(problems).toHaveLength(51)
    expect(problems[50]).toBe('bad.json: … and 30 more problems')
    const [long] = problemsOf({ ...base([{ wait: 1 }]), ['x'.repeat(100_000)]: 1 })
    expect(long).toMatch(/^bad\.json:9:3: x+…$/)
    expect(long).toHaveLength(1000)
  })

  it('reports every problem of a file at once, in step order', () => {
    const problems = problemsOf(base([{ wait: -1 }, { pay: 1 }, { create: { amout: 1 } }]), { positions: false })
    expect(problems).toHaveLength(3)
    expect(problems[0]).toContain('step 1 (wait)')
    expect(problems[1]).toContain('step 2:')
    expect(problems[2]).toContain('step 3 (create) › create.amout')
  })

  it('throws a ScenarioFileError listing the problems', () => {
    expect(() => parseScenarioOrThrow(JSON.stringify(base([{ wait: 'soon' }])), FILE)).toThrow(ScenarioFileError)
    expect(() => parseScenarioOrThrow(JSON.stringify(base([{ wait: 'soon' }])), FILE)).toThrow(/bad\.json is not a valid scenario:\n {2}bad\.json:1:\d+: step 1 \(wait\)/)
  })

  it('accepts a complete file and fills in defaults', () => {
    const parsed = parseScenarioOrThrow(
      JSON.stringify(base([
        { receiver: { as: 'hook', failFirst: 1 } },
        merchant,
        { ...create, title: 'make the order' },
        { simulate: { payment: 'order', outcome: 'unfinalized' } },
        { callback: { receiver: 'hook', payment: 'order', match: { status: 'unfinalized' } } },
        { verify: { payment: 'order' }, expect: { result: 203, message: false } },
        { wait: 10 },
      ])),
      FILE,
    )
    expect(parsed.steps.map((s) => s.kind)).toEqual(['receiver', 'merchant', 'create', 'simulate', 'callback', 'verify', 'wait'])
    expect(parsed.steps[0]).toMatchObject({ failFirst: 1, failStatus: 500 })
    expect(parsed.steps[2]).toMatchObject({ title: 'make the order', expect: { result: 100 } })
    expect(parsed.steps[3]).toMatchObject({ expect: { status: 'unfinalized' } })
    expect(parsed.steps[4]).toMatchObject({ within: 5000 })
  })
})

describe('references', () => {
  const refRows: Array<[string, unknown[], string]> = [
    ['to a name no step defines', [{ verify: { trackId: '${order.trackId}', merchant: 'k' } }], 'verify.trackId: ${order.trackId} refers to "order", which no earlier step defines (defined so far: sandbox)'],
    ['to a later step', [{ verify: { trackId: '${order.trackId}', merchant: '${shop.key}' } }, merchant, create], 'step 1 (verify) › verify.merchant: ${shop.key} refers to "shop", which no earlier step defines'],
    ['to a field the step does not bind', [{ receiver: { as: 'hook' } }, merchant, { create: { merchant: '${shop.key}', amount: 1, callbackUrl: '${hook.address}' } }], 'create.callbackUrl: ${hook.address}: "hook" (step 1) has url, not address'],
    ['to the trackId of a create expected to fail', [merchant, { ...create, expect: { result: 105 } }, { verify: { trackId: '${order.trackId}', merchant: '${shop.key}' } }], '"order" (step 2) has result, message, not trackId'],
    ['malformed', [merchant, { create: { merchant: '${shop}', amount: 1, callbackUrl: 'x' } }], 'create.merchant: ${shop}: a reference is ${name.field}'],
    ['unclosed', [merchant, { create: { merchant: '${shop.key', amount: 1, callbackUrl: 'x' } }], 'create.merchant: unclosed "${" at character 1'],
    ['bad repeat', [merchant, { create: { merchant: 'k', amount: 1, callbackUrl: '${repeat:a}' } }], 'create.callbackUrl: ${repeat:a}: write ${repeat:TEXT:COUNT}'],
    ['repeat too long', [merchant, { create: { merchant: 'k', amount: 1, description: '${repeat:ab:60000}' } }], 'produces more than 100000 characters'],
    ['inside a callback match', [{ receiver: { as: 'hook' } }, { callback: { receiver: 'hook', match: { trackId: '${nope.trackId}' } } }], 'callback.match.trackId: ${nope.trackId} refers to "nope"'],
  ]
  it.each(refRows)('an error when %s, before anything runs', (_label, steps, message) => {
    expect(problemsOf(base(steps), { positions: false }).join('\n')).toContain(message)
  })

  it('parses text, references, repeats and the $${ escape', () => {
    expect(parseTemplate('a ${x.y} $${lit} ${repeat:ab:2}')).toEqual({
      pieces: [
        { kind: 'text', text: 'a ' },
        { kind: 'ref', name: 'x', field: 'y', source: '${x.y}' },
        { kind: 'text', text: ' ${lit} ' },
        { kind: 'repeat', text: 'ab', count: 2, source: '${repeat:ab:2}' },
      ],
    })
  })

  it('resolves a lone reference to the value itself and mixed text to a string', () => {
    const lookup = (name: string, field: string) => ({ order: { amount: 10, trackId: 'T1' } })[name]![field as 'amount']
    expect(resolveValue('${order.amount}', lookup)).toBe(10)
    expect(resolveValue({ a: ['id=${order.trackId}', '${repeat:☕:3}', '${repeat:a:b:2}'] }, lookup)).toEqual({ a: ['id=T1', '☕☕☕', 'a:ba:b'] })
  })
})
