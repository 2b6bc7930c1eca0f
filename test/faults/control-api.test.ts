import { describe, expect, test } from 'vitest'
import { MAX_FAULT_RULES } from '../../src/faults/service.js'
import { sandbox } from '../helpers.js'
import { send } from './http.js'

/** The control API of the fault rules, sent what a script or a page gets wrong. */
describe('/_sandbox/faults refuses what is not a rule, saying why', () => {
  test.each([
    [{ route: 'verify', status: '503' }, 400, 'invalid_body', /status must be integer/],
    [{ route: 'verify', status: 600 }, 400, 'invalid_body', /status must be <= 599/],
    [{ route: 'verify', html: 500 }, 400, 'invalid_body', /html must be equal to one of the allowed values/],
    [{ route: 'verify', delay: 1500 }, 400, 'invalid_body', /delay must be string/],
    [{ route: 'verify', delay: '10m' }, 400, 'invalid_field', /delay must be <duration> \(e\.g\. delay=1\.5s, at most 5m\) \(got "10m"\)/],
    [{ route: 'verify', timeout: 1 }, 400, 'invalid_body', /timeout must be equal to constant/],
    [{ route: 'refund', status: 503 }, 400, 'invalid_body', /route must be equal to one of the allowed values/],
    [{ status: 503 }, 400, 'invalid_body', /must have required property 'route'/],
    [{ route: 'verify' }, 400, 'invalid_field', /^give one fault: status=<code>/],
    [{ route: 'verify', status: 503, reset: true }, 400, 'invalid_field', /give one fault, not 2: status and reset/],
    [{ route: 'verify', status: 503, after: true }, 400, 'invalid_field', /it needs route create/],
    [{ route: 'verify', status: 503, seed: 3 }, 400, 'invalid_field', /seed seeds rate/],
    [{ route: 'verify', status: 503, times: 0 }, 400, 'invalid_body', /times must be >= 1/],
    [{ route: 'verify', status: 503, rate: 2 }, 400, 'invalid_body', /rate must be <= 1/],
    [{ route: 'verify', status: 503, merchant: 'x'.repeat(100_000) }, 400, 'invalid_body', /merchant must match pattern/],
    [{ route: 'verify', status: 503, colour: 'red' }, 400, 'invalid_body', /must NOT have additional properties/],
    [[{ route: 'verify', status: 503 }], 400, 'invalid_body', /must be object/],
    ['verify:status=503', 400, 'invalid_body', /must be object/],
  ])('%j → %i %s', async (body, status, error, message) => {
    const sb = await sandbox()
    const seen = await send(sb.url, 'POST', '/_sandbox/faults', body)
    expect(seen.status).toBe(status)
    expect(seen.json).toMatchObject({ statusCode: status, error })
    expect(String(seen.json!.message)).toMatch(message)
    expect(String(seen.json!.message).length).toBeLessThan(800)
    expect(await sb.client.listFaults()).toEqual([])
  })

  test('a body over 1 MB is 413; one that is not JSON is 400; one without the JSON type is 415', async () => {
    const sb = await sandbox()
    expect((await send(sb.url, 'POST', '/_sandbox/faults', { route: 'verify', status: 503, merchant: 'x'.repeat(1_100_000) })).status).toBe(413)
    const notJson = await sb.client.raw({ method: 'POST', path: '/_sandbox/faults', body: '{route: verify}' })
    expect(notJson).toMatchObject({ status: 400, json: { error: 'invalid_json' } })
    const text = await sb.client.raw({ method: 'POST', path: '/_sandbox/faults', body: '{}', headers: { 'content-type': 'text/plain' } })
    expect(text.status).toBe(415)
  })

  test('removing: an unknown id is 404 naming it; an id too long is 414; a body is refused; clearing none is fine', async () => {
    const sb = await sandbox()
    const rule = await sb.addFault({ route: 'verify', status: 503 })
    const unknown = await send(sb.url, 'DELETE', '/_sandbox/faults/flt_nothere', {})
    expect(unknown).toMatchObject({ status: 404, json: { error: 'not_found', message: `no fault rule flt_nothere (rules: ${rule.id})` } })
    expect((await send(sb.url, 'DELETE', `/_sandbox/faults/${'x'.repeat(500)}`, {})).json).toMatchObject({ statusCode: 414, error: 'bad_request' })
    expect((await send(sb.url, 'DELETE', '/_sandbox/faults', { id: rule.id })).json).toMatchObject({ statusCode: 400, error: 'invalid_body' })
    const noType = await sb.client.raw({ method: 'DELETE', path: `/_sandbox/faults/${rule.id}` })
    expect(noType.status).toBe(415)
    expect(await sb.client.listFaults()).toHaveLength(1)
    const removed = await send(sb.url, 'DELETE', `/_sandbox/faults/${rule.id}`, {})
    expect(removed).toMatchObject({ status: 200, json: { fault: { id: rule.id } } })
    expect(await sb.client.clearFaults()).toEqual([])
  })

  test(`at most ${MAX_FAULT_RULES} rules: the next is refused, naming the way out`, async () => {
    const sb = await sandbox()
    for (let i = 0; i < MAX_FAULT_RULES; i++) await sb.addFault({ route: 'verify', status: 503, merchant: `m${i}` })
    const refused = await send(sb.url, 'POST', '/_sandbox/faults', { route: 'verify', status: 503 })
    expect(refused.json).toMatchObject({ statusCode: 400, error: 'invalid_field', message: `the sandbox keeps at most ${MAX_FAULT_RULES} fault rules; remove some first (pay fault clear)` })
    expect(await sb.client.clearFaults()).toHaveLength(MAX_FAULT_RULES)
  })

  test('a page of another site can neither add nor remove a rule', async () => {
    const sb = await sandbox()
    const rule = await sb.addFault({ route: 'verify', status: 503 })
    for (const [method, path] of [['POST', '/_sandbox/faults'], ['DELETE', '/_sandbox/faults'], ['DELETE', `/_sandbox/faults/${rule.id}`]] as const) {
      const seen = await sb.client.raw({ method, path, body: method === 'POST' ? { route: 'verify', reset: true } : {}, headers: { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' } })
      expect(seen.status, `${method} ${path}`).toBe(403)
    }
    expect(await sb.client.listFaults()).toEqual([expect.objectContaining({ id: rule.id })])
  })
})
