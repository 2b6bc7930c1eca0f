import { describe, expect, test } from 'vitest'
import { maskStoreUrl, parseStoreUrl } from '../../src/domain/store-url.js'

describe('--store URLs', () => {
  test.each([
    ['postgres://pay:secret@db:5432/pay', 'postgres://pay:***@db:5432/pay'],
    ['postgresql://pay:s%40cret@db/pay?sslmode=require', 'postgresql://pay:***@db/pay?sslmode=require'],
    ['postgres://pay@127.0.0.1:5433/pay', 'postgres://pay@127.0.0.1:5433/pay'],
    ['postgres://db/pay?user=pay&password=secret', 'postgres://db/pay?user=pay&password=***'],
  ])('%s is taken and shown as %s', (text, shown) => {
    expect(parseStoreUrl(text)).toEqual({ url: text, shown })
    expect(maskStoreUrl(text)).toBe(shown)
  })

  test.each([
    ['mysql://root:hunter2@db/pay', /starting postgres:\/\/ or postgresql:\/\//],
    ['db.internal:5432/pay', /must be a PostgreSQL URL/],
    ['not a url at all', /must be a PostgreSQL URL such as/],
    ['postgres:///pay', /names no host/],
  ])('%s is refused, its password never shown', (text, problem) => {
    const parsed = parseStoreUrl(text)
    expect(parsed).toEqual({ problem: expect.stringMatching(problem) })
    expect(JSON.stringify(parsed)).not.toContain('hunter2')
  })

  test('a password in text that is not a URL is masked too', () => {
    expect(maskStoreUrl('postgres://pay:hunter2@[bad')).not.toContain('hunter2')
  })
})
