import { describe, expect, test } from 'vitest'
import { forTerminal, inert, inertJson, maskCredentials } from '../../src/domain/display.js'
import { cpuMs } from '../cpu.js'

/** Anything a terminal could act on: C0 but newline, DEL, C1, bidi and line-separator controls. */
const ACTIVE = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/

describe('inert: control characters written out visibly', () => {
  test.each([
    ['plain text', 'Order #1042 — café ☕ 👩‍💻', 'Order #1042 — café ☕ 👩‍💻'],
    ['empty', '', ''],
    ['clear screen (CSI)', 'a\x1b[2Jb', 'a\\x1b[2Jb'],
    ['colour (SGR)', '\x1b[31mred\x1b[0m', '\\x1b[31mred\\x1b[0m'],
    ['clipboard (OSC 52, BEL)', '\x1b]52;c;aGk=\x07', '\\x1b]52;c;aGk=\\x07'],
    ['window title (OSC, ST)', '\x1b]0;pwned\x1b\\', '\\x1b]0;pwned\\x1b\\'],
    ['fake line (CR + erase line)', 'x\r\x1b[2K✔ all payments verified', 'x\\r\\x1b[2K✔ all payments verified'],
    ['C1 CSI and NEL', 'a\u009b2Jb\u0085c', 'a\\x9b2Jb\\x85c'],
    ['DEL and NUL', 'a\x7fb\x00c', 'a\\x7fb\\x00c'],
    ['backspace', 'paid\b\b\b\bfail', 'paid\\x08\\x08\\x08\\x08fail'],
    ['bidi override', 'invoice\u202Efdp.exe', 'invoice\\u202efdp.exe'],
    ['bidi isolates and marks', '\u2066a\u2069\u200e\u200f\u061c', '\\u2066a\\u2069\\u200e\\u200f\\u061c'],
    ['line separators', 'a\u2028b\u2029c', 'a\\u2028b\\u2029c'],
    ['newline and tab on one line', 'a\nb\tc', 'a\\nb\\tc'],
    ['CRLF on one line', 'a\r\nb', 'a\\r\\nb'],
  ])('%s', (_name, input, shown) => {
    expect(inert(input)).toBe(shown)
    expect(inert(input)).not.toMatch(ACTIVE)
  })

  test.each([
    ['keeps newlines and tabs', 'line 1\n\tline 2', 'line 1\n\tline 2'],
    ['CRLF becomes a newline', 'a\r\nb\r\n', 'a\nb\n'],
    ['a lone CR is written out', 'a\rb', 'a\\rb'],
    ['escapes are written out between lines', '<h1>\x1b[2J</h1>\n\u009b', '<h1>\\x1b[2J</h1>\n\\x9b'],
  ])('multiline %s', (_name, input, shown) => {
    expect(inert(input, { multiline: true })).toBe(shown)
  })
})

describe('maskCredentials: the secret of a URL userinfo hidden', () => {
  test.each([
    ['user and password', 'http://user:pass@host/cb', 'http://user:***@host/cb'],
    ['token only', 'https://tok_3cosjY6@host/cb', 'https://***@host/cb'],
    ['empty user', 'http://:pass@host', 'http://:***@host'],
    ['empty password', 'http://user:@host', 'http://user:***@host'],
    ['@ in the password: the last @ of the authority ends the userinfo', 'http://u:p@ss@host/x@y', 'http://u:***@host/x@y'],
    ['@ in the path only', 'http://host/a@b?c=d@e#f@g', 'http://host/a@b?c=d@e#f@g'],
    ['no userinfo', 'http://127.0.0.1:3000/cb', 'http://127.0.0.1:3000/cb'],
    ['inside a console line', 'CALLBACK POST http://u:s3cret@h:1/cb 503 retry', 'CALLBACK POST http://u:***@h:1/cb 503 retry'],
    ['two URLs', 'a http://a:1@x/ b https://t@y c', 'a http://a:***@x/ b https://***@y c'],
    ['quoted in a message', 'got "http://u:p@h/"', 'got "http://u:***@h/"'],
    ['no URL at all', 'mail me at a@b.c', 'mail me at a@b.c'],
  ])('%s', (_name, input, shown) => {
    expect(maskCredentials(input)).toBe(shown)
  })

  test('stays linear on text made to make a regex backtrack', () => {
    const text = `${'a://'.repeat(50_000)}@${'b@'.repeat(50_000)}`
    const started = process.cpuUsage()
    maskCredentials(text)
    expect(cpuMs(started)).toBeLessThan(500)
  })
})

test('forTerminal masks first, then writes controls out', () => {
  expect(forTerminal('http://u:p\x1b@h/\x1b[2J')).toBe('http://u:***@h/\\x1b[2J')
})

test('inertJson escapes what JSON.stringify leaves raw, and the data stays the same', () => {
  const value = { s: 'a\u009bb\u202ec\u2028d\x7f', esc: '\x1b[2J' }
  const text = inertJson(JSON.stringify(value, null, 2))
  expect(text).not.toMatch(ACTIVE)
  expect(JSON.parse(text)).toEqual(value)
})
