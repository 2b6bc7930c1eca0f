import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import {
  ACTION_KEYS,
  API_FAULTS,
  compactFault,
  faultOf,
  type FaultRule,
  type FaultRuleInput,
  faultRuleProblem,
  inputOf,
  newFaultRule,
  parseCompactFault,
  plays,
  roll,
  ruleMatches,
} from '../../src/domain/api-fault.js'
import { describeHit, type FaultHit, hitFailed, orderDigest } from '../../src/domain/api-fault-hit.js'
import { journalRecordProblem, storedRecordProblem } from '../../src/domain/record-schema.js'

const made = { id: 'flt_AAAAAAAAAAAA', at: '2030-01-01T00:00:00.000Z', source: 'api' as const, randomSeed: () => 77 }
const rule = (input: FaultRuleInput, counts: Partial<FaultRule> = {}): FaultRule => ({ ...newFaultRule(input, made), ...counts })

describe('the API fault table', () => {
  test.each(API_FAULTS.rows.map((r) => [r.name, r] as const))('%s: its example parses, matches the pattern and writes back to itself', (_, row) => {
    const parsed = API_FAULTS.parse(row.example)
    if ('problem' in parsed) throw new Error(parsed.problem)
    expect(parsed.mode.mode).toBe(row.name)
    expect(row.example).toMatch(new RegExp(API_FAULTS.pattern))
    expect(API_FAULTS.show(parsed.mode)).toBe(row.example)
    expect(API_FAULTS.parse(API_FAULTS.write(parsed.mode))).toEqual(parsed)
  })

  test('a rule field per fault, named as its flag', () => {
    expect(ACTION_KEYS).toEqual(['status', 'html', 'delay', 'timeout', 'reset', 'retryAfter'])
    expect(API_FAULTS.rule).toBe('status=<code> (400 to 599), html=<code> (502, 503 or 504), delay=<duration> (e.g. delay=1.5s, at most 5m), timeout, reset or retry-after=<code> (429 or 503)')
  })
})

describe('a rule as given', () => {
  test.each([
    [{ route: 'verify', status: 503 }, undefined],
    [{ route: 'all', timeout: true, merchant: 'shop_1' }, undefined],
    [{ route: 'create', reset: true, after: true, times: 1 }, undefined],
    [{ route: 'verify', retryAfter: 503, seconds: 3600, rate: 1, seed: 0 }, undefined],
    [{ route: 'checkout', html: 504, trackId: 'Xq2w7Zb1Vh0Kc9LmN3pR4s' }, undefined],
    [null, 'a fault rule must be an object (got null)'],
    [[], 'a fault rule must be an object (got an array)'],
    [{ status: 503 }, 'route must be one of create, verify, checkout, all (got nothing)'],
    [{ route: 'refund', status: 503 }, 'route must be one of create, verify, checkout, all (got "refund")'],
    [{ route: 'verify' }, `give one fault: ${API_FAULTS.rule}`],
    [{ route: 'verify', status: 503, reset: true }, 'give one fault, not 2: status and reset'],
    [{ route: 'verify', status: 600 }, 'status must be <code> (400 to 599) (got 600)'],
    [{ route: 'verify', status: 399 }, 'status must be <code> (400 to 599) (got 399)'],
    [{ route: 'verify', status: '503' }, 'status must be <code> (400 to 599) (got "503")'],
    [{ route: 'verify', status: 503.5 }, 'status must be <code> (400 to 599) (got 503.5)'],
    [{ route: 'verify', html: 500 }, 'html must be <code> (502, 503 or 504) (got 500)'],
    [{ route: 'verify', retryAfter: 500 }, 'retry-after must be <code> (429 or 503) (got 500)'],
    [{ route: 'verify', delay: 1500 }, 'delay must be <duration> (e.g. delay=1.5s, at most 5m) (got 1500)'],
    [{ route: 'verify', delay: '6m' }, 'delay must be <duration> (e.g. delay=1.5s, at most 5m) (got "6m")'],
    [{ route: 'verify', delay: 'soon' }, 'delay must be <duration> (e.g. delay=1.5s, at most 5m) (got "soon")'],
    [{ route: 'verify', timeout: false }, 'timeout must be true (got false)'],
    [{ route: 'verify', timeout: 'yes' }, 'timeout must be true (got "yes")'],
    [{ route: 'verify', reset: true, times: 0 }, 'times must be a whole number from 1 to 1000000 (got 0)'],
    [{ route: 'verify', reset: true, times: 1e7 }, 'times must be a whole number from 1 to 1000000 (got 10000000)'],
    [{ route: 'verify', reset: true, rate: 0 }, 'rate must be a share above 0 and at most 1, e.g. 0.3 (got 0)'],
    [{ route: 'verify', reset: true, rate: 1.5 }, 'rate must be a share above 0 and at most 1, e.g. 0.3 (got 1.5)'],
    [{ route: 'verify', reset: true, rate: 0.5, seed: -1 }, 'seed must be a whole number from 0 to 2147483647 (got -1)'],
    [{ route: 'verify', reset: true, seed: 4 }, 'seed seeds rate: give rate too'],
    [{ route: 'verify', reset: true, merchant: 'a b' }, 'merchant must be a merchant key: 1 to 128 letters, digits or . _ ~ - (got "a b")'],
    [{ route: 'verify', reset: true, merchant: 'k'.repeat(129) }, expect.stringMatching(/^merchant must be a merchant key/)],
    [{ route: 'verify', reset: true, trackId: '../x' }, 'track-id must be 1 to 64 letters, digits, _ or - (got "../x")'],
    [{ route: 'create', reset: true, trackId: 'abc' }, 'a create has no trackId yet: trackId needs route verify, checkout or all'],
    [{ route: 'verify', status: 503, after: true }, 'after makes the payment and then loses its answer: it needs route create (got verify)'],
    [{ route: 'all', status: 503, after: true }, 'after makes the payment and then loses its answer: it needs route create (got all)'],
    [{ route: 'create', delay: '1s', after: true }, 'after with delay is an answer that comes late, not one that is lost: leave after out'],
    [{ route: 'verify', status: 503, seconds: 5 }, 'seconds is the Retry-After of a retry-after fault: give retry-after=<code> with it'],
    [{ route: 'verify', status: 503, colour: 'red' }, expect.stringMatching(/^unknown field "colour"; a rule has route, one fault/)],
    [{ route: 'verify', status: 503, __proto__: { times: 5 } }, undefined],
  ])('%j → %s', (input, problem) => {
    expect(faultRuleProblem(input)).toEqual(problem)
  })

  test('kept normalized: the fault as written back, after only when set, a seed for a rate', () => {
    expect(newFaultRule({ route: 'verify', delay: '1.5s', after: false }, made)).toEqual({
      id: made.id,
      route: 'verify',
      delay: '1500ms',
      matched: 0,
      played: 0,
      createdAt: made.at,
      source: 'api',
    })
    expect(newFaultRule({ route: 'create', status: 503, rate: 0.5 }, made)).toMatchObject({ rate: 0.5, seed: 77 })
    expect(newFaultRule({ route: 'create', status: 503, rate: 0.5, seed: 3 }, made)).toMatchObject({ seed: 3 })
    expect(faultOf(rule({ route: 'verify', retryAfter: 429 }))).toEqual({ mode: 'retry-after', status: 429 })
  })

  test('every rule kept is one the data file takes back, and its changes are journal records', () => {
    const kept = rule({ route: 'all', retryAfter: 503, seconds: 9, rate: 0.2, seed: 5, merchant: 'm', trackId: 't' }, { matched: 4, played: 1 })
    expect(storedRecordProblem('faults', kept)).toBeUndefined()
    expect(storedRecordProblem('faults', { ...kept, status: 999 })).toMatch(/status/)
    expect(storedRecordProblem('faults', { ...kept, id: 'nope' })).toMatch(/id/)
    expect(storedRecordProblem('faults', { ...kept, extra: 1 })).toMatch(/extra/)
    expect(journalRecordProblem({ s: 1, k: 'fault', v: { t: 'rule', v: kept } })).toBeUndefined()
    expect(journalRecordProblem({ s: 1, k: 'fault', v: { t: 'count', id: kept.id, matched: 2, played: 1 } })).toBeUndefined()
    expect(journalRecordProblem({ s: 1, k: 'fault', v: { t: 'count', id: kept.id, matched: -2, played: 1 } })).toMatch(/matched/)
    expect(journalRecordProblem({ s: 1, k: 'fault', v: { t: 'off', id: kept.id } })).toBeUndefined()
    expect(journalRecordProblem({ s: 1, k: 'fault', v: { t: 'clear' } })).toBeUndefined()
    expect(journalRecordProblem({ s: 1, k: 'fault', v: { t: 'burn' } })).toMatch(/v\.t of a fault record must be one of rule, count, off, clear, hit/)
    const hit: FaultHit = { rule: kept.id, route: 'verify', fault: 'timeout', at: made.at, ms: 30_200.5, end: 'client-closed', merchant: 'm', trackId: 't', owner: true, status: 'paid' }
    expect(journalRecordProblem({ s: 1, k: 'fault', v: { t: 'hit', v: hit } })).toBeUndefined()
    expect(storedRecordProblem('faultHits', hit)).toBeUndefined()
    expect(storedRecordProblem('faultHits', { ...hit, fault: 'explode' })).toMatch(/fault/)
    expect(storedRecordProblem('faultHits', { ...hit, end: 'never' })).toMatch(/end/)
  })
})

describe('the compact form of --api-fault', () => {
  test.each([
    ['verify:status=503:times=2', { route: 'verify', status: 503, times: 2 }],
    ['create:status=503:after', { route: 'create', status: 503, after: true }],
    ['all:timeout:merchant=shop_1', { route: 'all', timeout: true, merchant: 'shop_1' }],
    ['verify:retry-after=429:seconds=2:rate=0.5:seed=7', { route: 'verify', retryAfter: 429, seconds: 2, rate: 0.5, seed: 7 }],
    ['checkout:html=502:track-id=abc', { route: 'checkout', html: 502, trackId: 'abc' }],
    ['verify:delay=1.5s', { route: 'verify', delay: '1.5s' }],
  ])('%s', (text, input) => {
    expect(parseCompactFault(text)).toEqual({ input })
  })

  test.each([
    ['', /starts with its route/],
    ['verify', /give one fault/],
    ['refund:status=503', /starts with its route, create, verify, checkout, all/],
    ['verify:status', /status needs a value: status=<code>/],
    ['verify:timeout=5', /timeout takes no value/],
    ['verify:status=503:status=502', /status is given twice/],
    ['verify:status=abc', /status must be <code> \(400 to 599\) \(got "abc"\)/],
    ['verify:status=503:times=two', /times must be a whole number/],
    ['verify:status=503:after=maybe', /after is true or false/],
    ['verify:status=503:colour=red', /"colour" is neither a fault/],
    [`verify:status=503:merchant=${'x'.repeat(5000)}`, /merchant must be a merchant key/],
  ])('%j is refused, saying why and how to write it', (text, why) => {
    const parsed = parseCompactFault(text)
    expect(parsed).toHaveProperty('problem')
    const problem = (parsed as { problem: string }).problem
    expect(problem).toMatch(why)
    expect(problem).toMatch(/write <route>:<fault>/)
    expect(problem.length).toBeLessThan(600)
  })

  test('any rule written in it reads back as the same rule', () => {
    const input = fc.record(
      {
        route: fc.constantFrom('create', 'verify', 'checkout', 'all' as const),
        fault: fc.oneof(
          fc.integer({ min: 400, max: 599 }).map((status) => ({ status })),
          fc.constantFrom(502, 503, 504).map((html) => ({ html })),
          fc.integer({ min: 1, max: 300_000 }).map((ms) => ({ delay: `${ms}ms` })),
          fc.constant({ timeout: true as const }),
          fc.constant({ reset: true as const }),
          fc.constantFrom(429, 503).map((retryAfter) => ({ retryAfter })),
        ),
        times: fc.option(fc.integer({ min: 1, max: 1_000_000 }), { nil: undefined }),
        rate: fc.option(fc.double({ min: 0.001, max: 1, noNaN: true }), { nil: undefined }),
        merchant: fc.option(fc.stringMatching(/^[A-Za-z0-9._~-]{1,20}$/), { nil: undefined }),
      },
      { requiredKeys: ['route', 'fault'] },
    )
    fc.assert(
      fc.property(input, ({ route, fault, ...scope }) => {
        const given = Object.fromEntries(Object.entries({ route, ...fault, ...scope }).filter(([, v]) => v !== undefined)) as unknown as FaultRuleInput
        if (faultRuleProblem(given) !== undefined) return
        const kept = rule(given)
        expect(parseCompactFault(compactFault(kept))).toEqual({ input: inputOf(kept) })
      }),
    )
  })
})

describe('which requests a rule faults', () => {
  test('route, merchant and trackId narrow it; a spent rule matches nothing', () => {
    const r = rule({ route: 'verify', status: 503, merchant: 'shop', trackId: 'T1', times: 2 })
    expect(ruleMatches(r, { route: 'verify', merchant: 'shop', trackId: 'T1' })).toBe(true)
    expect(ruleMatches(r, { route: 'create', merchant: 'shop' })).toBe(false)
    expect(ruleMatches(r, { route: 'verify', merchant: 'other', trackId: 'T1' })).toBe(false)
    expect(ruleMatches(r, { route: 'verify', merchant: 'shop', trackId: 'T2' })).toBe(false)
    expect(ruleMatches(r, { route: 'verify', trackId: 'T1' })).toBe(false)
    expect(ruleMatches({ ...r, played: 2 }, { route: 'verify', merchant: 'shop', trackId: 'T1' })).toBe(false)
    expect(ruleMatches(rule({ route: 'all', reset: true }), { route: 'checkout', trackId: 'x' })).toBe(true)
  })

  test('a seeded rate decides each request from its place in the sequence: the same on every run, about the share asked', () => {
    const seeded = rule({ route: 'verify', status: 503, rate: 0.3, seed: 42 })
    const sequence = (r: FaultRule) => Array.from({ length: 40 }, (_, i) => (plays(r, i + 1) ? 'x' : '.')).join('')
    expect(sequence(seeded)).toBe(sequence({ ...seeded }))
    expect(sequence(seeded)).not.toBe(sequence({ ...seeded, seed: 43 }))
    // No state: the 30th request is decided alike whether or not the 29 before were asked about.
    expect(plays(seeded, 30)).toBe(sequence(seeded)[29] === 'x')
    let hits = 0
    for (let n = 1; n <= 20_000; n++) if (plays(seeded, n)) hits++
    expect(hits / 20_000).toBeGreaterThan(0.28)
    expect(hits / 20_000).toBeLessThan(0.32)
    for (let n = 1; n <= 1000; n++) {
      const x = roll(7, n)
      expect(x >= 0 && x < 1).toBe(true)
    }
    expect(plays(rule({ route: 'verify', status: 503, rate: 1 }), 5)).toBe(true)
    expect(plays(rule({ route: 'verify', status: 503 }), 5)).toBe(true)
  })
})

describe('what a fault played says it did', () => {
  const hit = (fields: Partial<FaultHit>): FaultHit => ({ rule: made.id, route: 'verify', fault: 'status=503', at: made.at, ms: 1, end: 'answered', ...fields })
  test.each([
    [hit({}), 'status 503'],
    [hit({ fault: 'html=502' }), 'html 502'],
    [hit({ fault: 'retry-after=429', retryAfter: 5 }), 'retry-after 429 (Retry-After: 5)'],
    [hit({ fault: 'delay=1500ms', ms: 1502 }), 'delay 1.5s'],
    [hit({ fault: 'delay=1500ms', ms: 800, end: 'client-closed' }), 'delay 1.5s, client gave up after 0.8 s'],
    [hit({ fault: 'timeout', ms: 30_210, end: 'client-closed' }), 'timeout, client gave up after 30.2 s'],
    [hit({ fault: 'timeout', ms: 300_000, end: 'sandbox-closed' }), 'timeout, closed by the sandbox after 300.0 s (the client had not given up)'],
    [hit({ fault: 'reset', end: 'sandbox-closed' }), 'reset'],
    [hit({ route: 'create', fault: 'status=503', after: true, trackId: 'T' }), 'status 503; answer lost, the payment was made (trackId T)'],
  ])('%j → %s', (h, text) => {
    expect(describeHit(h)).toBe(text)
  })

  test('a late real answer is no failure of the call; a delay the client gave up on is', () => {
    expect(hitFailed(hit({}))).toBe(true)
    expect(hitFailed(hit({ fault: 'delay=1500ms' }))).toBe(false)
    expect(hitFailed(hit({ fault: 'delay=1500ms', end: 'client-closed' }))).toBe(true)
  })

  test('the same order sent again has the same digest; absent and null fields alike', () => {
    const order = { amount: 10, callbackUrl: 'https://shop.example/cb' }
    expect(orderDigest(order)).toBe(orderDigest({ ...order, returnUrl: null }))
    expect(orderDigest(order)).not.toBe(orderDigest({ ...order, amount: 11 }))
    expect(orderDigest(order)).toMatch(/^[A-Za-z0-9_-]{16}$/)
  })
})
