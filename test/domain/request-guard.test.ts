import { describe, expect, test } from 'vitest'
import { type AllowedHosts, type GuardInput, judgeRequest, parseAllowedHosts } from '../../src/domain/request-guard.js'

const base: GuardInput = {
  method: 'GET',
  host: '127.0.0.1:8787',
  origin: undefined,
  secFetchSite: undefined,
  contentType: undefined,
  wantsJson: true,
}

// undefined: answered; otherwise the refusal's kind.
const hostRows: Array<[string | undefined, AllowedHosts, string | undefined]> = [
  ['127.0.0.1:8787', [], undefined],
  ['127.0.0.1', [], undefined],
  ['192.168.1.20:80', [], undefined],
  ['[::1]:8787', [], undefined],
  ['[::1]', [], undefined],
  ['[2001:db8::1]:8787', [], undefined],
  ['localhost:8787', [], undefined],
  ['LocalHost', [], undefined],
  ['app.localhost:3000', [], undefined],
  ['a.b.localhost', [], undefined],
  ['sandbox:8787', ['sandbox'], undefined],
  ['SANDBOX', ['sandbox'], undefined],
  ['example.test', ['.example.test'], undefined],
  ['api.example.test:1', ['.example.test'], undefined],
  ['anything.example', 'all', undefined],
  ['a b', 'all', undefined],
  [undefined, [], 'hostNotAllowed'],
  ['', [], 'hostNotAllowed'],
  [undefined, 'all', 'hostNotAllowed'],
  ['attacker.example:8787', [], 'hostNotAllowed'],
  ['sandbox', [], 'hostNotAllowed'],
  ['sandbox2', ['sandbox'], 'hostNotAllowed'],
  ['sub.sandbox', ['sandbox'], 'hostNotAllowed'],
  ['evilexample.test', ['.example.test'], 'hostNotAllowed'],
  ['example.test.evil', ['.example.test'], 'hostNotAllowed'],
  ['localhost.attacker.example', [], 'hostNotAllowed'],
  ['notlocalhost', [], 'hostNotAllowed'],
  ['localhost.', [], 'hostNotAllowed'],
  ['127.0.0.1.nip.io', [], 'hostNotAllowed'],
  ['127.1', [], 'hostNotAllowed'],
  ['[::z]:80', [], 'hostNotAllowed'],
  ['[::1', [], 'hostNotAllowed'],
  ['[::1]x', [], 'hostNotAllowed'],
  ['::1', [], 'hostNotAllowed'],
  ['localhost:80x', [], 'hostNotAllowed'],
  ['user@localhost', [], 'hostNotAllowed'],
  ['file:///etc/passwd', [], 'hostNotAllowed'],
]

describe('Host', () => {
  test.each(hostRows)('Host %j with %j → %s', (host, allowed, kind) => {
    expect(judgeRequest({ ...base, host }, allowed)?.kind).toBe(kind)
  })
})

const originRows: Array<[string, AllowedHosts, string | undefined]> = [
  ['http://127.0.0.1:8787', [], undefined],
  ['http://localhost:3000', [], undefined],
  ['https://app.localhost', [], undefined],
  ['http://[::1]:5173', [], undefined],
  ['http://sandbox:8787', ['sandbox'], undefined],
  ['https://shop.example.test', ['.example.test'], undefined],
  ['https://shop.example', 'all', undefined],
  ['null', [], 'originNotAllowed'],
  ['null', 'all', 'originNotAllowed'],
  ['http://evil.example', [], 'originNotAllowed'],
  ['http://evil.example:8787', ['sandbox'], 'originNotAllowed'],
  ['file://', [], 'originNotAllowed'],
  ['chrome-extension://abcdef', [], 'originNotAllowed'],
  ['http://localhost@evil.example', [], 'originNotAllowed'],
  ['http://localhost/path', [], 'originNotAllowed'],
  ['localhost', [], 'originNotAllowed'],
  ['', [], 'originNotAllowed'],
]

describe('Origin', () => {
  test.each(originRows)('Origin %j with %j → %s', (origin, allowed, kind) => {
    expect(judgeRequest({ ...base, origin }, allowed)?.kind).toBe(kind)
    // A change is refused too; from an allowed page of another origin, as cross-site (the next table).
    expect(judgeRequest({ ...base, method: 'POST', contentType: 'application/json', origin }, allowed)?.kind).toBe(kind ?? (origin === 'http://127.0.0.1:8787' ? undefined : 'crossSiteRequest'))
  })
})

// A page may change the sandbox only when its Origin is the one the request was sent to: same host, same port.
const sameOriginRows: Array<[string, string, AllowedHosts, string | undefined]> = [
  ['http://127.0.0.1:8787', '127.0.0.1:8787', [], undefined],
  ['https://127.0.0.1:8787', '127.0.0.1:8787', [], undefined],
  ['http://127.0.0.1:3000', '127.0.0.1:8787', [], 'crossSiteRequest'],
  ['http://127.0.0.1', '127.0.0.1:8787', [], 'crossSiteRequest'],
  ['http://127.0.0.1:8787', '127.0.0.1', [], 'crossSiteRequest'],
  ['http://203.0.113.9', '127.0.0.1:8787', [], 'crossSiteRequest'],
  ['http://203.0.113.9:8787', '127.0.0.1:8787', [], 'crossSiteRequest'],
  ['http://203.0.113.9', '203.0.113.9', [], undefined],
  ['http://203.0.113.9', '203.0.113.9:80', [], undefined],
  ['https://203.0.113.9', '203.0.113.9', [], undefined],
  ['https://203.0.113.9', '203.0.113.9:443', [], undefined],
  ['http://203.0.113.9', '203.0.113.9:443', [], 'crossSiteRequest'],
  ['http://localhost:8787', '127.0.0.1:8787', [], 'crossSiteRequest'],
  ['http://127.0.0.1:8787', 'localhost:8787', [], 'crossSiteRequest'],
  ['http://LOCALHOST:8787', 'localhost:8787', [], undefined],
  ['http://localhost:8787', 'LocalHost:8787', [], undefined],
  ['http://app.localhost:8787', 'localhost:8787', [], 'crossSiteRequest'],
  ['http://[::1]:8787', '[::1]:8787', [], undefined],
  ['http://[0:0::1]:8787', '[::1]:8787', [], undefined],
  ['http://[::1]:3000', '[::1]:8787', [], 'crossSiteRequest'],
  ['http://[::1]:8787', '127.0.0.1:8787', [], 'crossSiteRequest'],
  ['http://[::ffff:127.0.0.1]:8787', '127.0.0.1:8787', [], 'crossSiteRequest'],
  ['http://sandbox:8787', 'sandbox:8787', ['sandbox'], undefined],
  ['http://sandbox:8787', '127.0.0.1:8787', ['sandbox'], 'crossSiteRequest'],
  ['http://anything.example', 'other.example', 'all', 'crossSiteRequest'],
  ['null', '127.0.0.1:8787', [], 'originNotAllowed'],
]

describe('Origin of a change: the host and port the request was sent to, nothing else', () => {
  test.each(sameOriginRows)('Origin %j to Host %j (%j) → %s', (origin, host, allowed, kind) => {
    const change = { ...base, host, origin, method: 'POST', contentType: 'application/json' }
    expect(judgeRequest(change, allowed)?.kind).toBe(kind)
    // The Bot API emulator: every method may change something, GET included.
    expect(judgeRequest({ ...change, method: 'GET', contentType: undefined, wantsJson: false, getChanges: true }, allowed)?.kind).toBe(kind)
    // Reading from a page of another allowed origin is not changing (it cannot read the answer: no CORS).
    if (kind !== 'originNotAllowed') expect(judgeRequest({ ...base, host, origin }, allowed)).toBeUndefined()
  })

  test('the refusal names both headers', () => {
    const refusal = judgeRequest({ ...base, method: 'POST', contentType: 'application/json', origin: 'http://203.0.113.9' }, [])
    expect(refusal?.message).toBe(
      'Origin "http://203.0.113.9" is not the origin this request was sent to (Host "127.0.0.1:8787"): a page of another origin may not change the sandbox; use the pay CLI, SandboxClient or the sandbox\'s own pages',
    )
  })
})

const methodRows: Array<[Partial<GuardInput>, string | undefined]> = [
  [{ method: 'GET' }, undefined],
  [{ method: 'HEAD' }, undefined],
  [{ method: 'OPTIONS' }, undefined],
  [{ method: 'GET', secFetchSite: 'cross-site' }, undefined],
  [{ method: 'POST' }, 'unsupportedMediaType'],
  [{ method: 'POST', contentType: '' }, 'unsupportedMediaType'],
  [{ method: 'POST', contentType: 'text/plain' }, 'unsupportedMediaType'],
  [{ method: 'POST', contentType: 'text/plain;charset=UTF-8' }, 'unsupportedMediaType'],
  [{ method: 'POST', contentType: 'application/x-www-form-urlencoded' }, 'unsupportedMediaType'],
  [{ method: 'POST', contentType: 'multipart/form-data; boundary=x' }, 'unsupportedMediaType'],
  [{ method: 'POST', contentType: 'application/jsonx' }, 'unsupportedMediaType'],
  [{ method: 'POST', contentType: 'text/plain; application/json' }, 'unsupportedMediaType'],
  [{ method: 'DELETE' }, 'unsupportedMediaType'],
  [{ method: 'PUT', contentType: 'text/plain' }, 'unsupportedMediaType'],
  [{ method: 'POST', contentType: 'application/json' }, undefined],
  [{ method: 'POST', contentType: 'Application/JSON; charset=utf-8' }, undefined],
  [{ method: 'POST', contentType: 'application/json', secFetchSite: 'same-origin' }, undefined],
  [{ method: 'POST', contentType: 'application/json', secFetchSite: 'none' }, undefined],
  [{ method: 'POST', contentType: 'application/json', secFetchSite: 'cross-site' }, 'crossSiteRequest'],
  [{ method: 'POST', contentType: 'application/json', secFetchSite: 'same-site' }, 'crossSiteRequest'],
  [{ method: 'POST', secFetchSite: 'cross-site' }, 'crossSiteRequest'],
  // The spec API and unknown routes answer the content type themselves (415, 404).
  [{ method: 'POST', wantsJson: false }, undefined],
  [{ method: 'POST', wantsJson: false, secFetchSite: 'cross-site' }, 'crossSiteRequest'],
]

describe('state-changing requests', () => {
  test.each(methodRows)('%j → %s', (input, kind) => {
    expect(judgeRequest({ ...base, ...input }, [])?.kind).toBe(kind)
  })
})

describe('--allowed-hosts', () => {
  test.each([
    [['sandbox'], ['sandbox']],
    [[' Sandbox ', '', 'api.Example.test'], ['sandbox', 'api.example.test']],
    [['.example.test', 'sandbox', 'sandbox'], ['.example.test', 'sandbox']],
    [['my_service-1'], ['my_service-1']],
    [['127.0.0.1', '[::1]', '::1', 'sandbox'], ['sandbox']],
    [[], []],
    [['all'], 'all'],
    [['ALL'], 'all'],
    [['true'], 'all'],
  ] as Array<[string[], AllowedHosts]>)('%j → %j', (entries, hosts) => {
    expect(parseAllowedHosts(entries)).toEqual({ hosts })
  })

  test.each([
    ['http://sandbox', /"http:\/\/sandbox" is not a host name; give a host name without scheme, port or path/],
    ['sandbox:8787', /"sandbox:8787" is not a host name/],
    ['*.example.test', /"\*\.example\.test" is not a host name; write \.example\.test to allow a domain and its subdomains/],
    ['*', /"\*" is not a host name/],
    ['a b', /"a b" is not a host name/],
    ['..example', /"\.\.example" is not a host name/],
  ])('%j is refused', (entry, message) => {
    const parsed = parseAllowedHosts([entry])
    expect('error' in parsed && parsed.error).toMatch(message)
  })

  test('all cannot be combined with names', () => {
    expect(parseAllowedHosts(['all', 'sandbox'])).toEqual({ error: '--allowed-hosts all cannot be combined with host names' })
  })
})
