import { describe, expect, test } from 'vitest'
import { KEPT_BYTES } from '../../src/inspector/request-entry.js'
import { type AnsweredRequest, cutText, describeRequest, RequestLog } from '../../src/inspector/request-log.js'

const answered = (url: string, extra: { body?: string; trackId?: string } = {}) =>
  describeRequest({
    method: 'POST',
    url,
    status: 200,
    ms: 1,
    at: new Date('2030-01-01T00:00:00Z'),
    ...(extra.trackId !== undefined ? { outcome: { trackId: extra.trackId } } : {}),
    ...(extra.body !== undefined ? { body: Buffer.from(extra.body) } : {}),
  })!

describe('what the request log keeps of a request', () => {
  test.each([
    ['fits', 'abc', 3, 'abc', undefined],
    ['ASCII cut', 'abcdef', 4, 'abcd', 6],
    ['never half of a 3-byte character', '€€€', 7, '€€', 9],
    ['never half of a surrogate pair', `a${'😀'.repeat(3)}`, 4, 'a', 13],
    ['nor a pair cut at its middle code unit', `a${'😀'.repeat(3)}`, 6, 'a😀', 13],
    ['a pair that fits whole', `a${'😀'.repeat(3)}`, 9, 'a😀😀', 13],
  ])('cutText: %s', (_name, text, max, kept, bytes) => {
    const cut = cutText(text, max)
    expect(cut.text).toBe(kept)
    expect(cut.bytes).toBe(bytes)
    expect(Buffer.byteLength(cut.text)).toBeLessThanOrEqual(max)
  })

  test('path, query and trackId are cut and marked with their whole size; short ones are not marked', () => {
    const long = answered(`/api/v1/${'p'.repeat(5000)}?${'q'.repeat(5000)}`, { trackId: 't'.repeat(5000) })
    expect(long.path).toHaveLength(KEPT_BYTES.path)
    expect(long.query).toHaveLength(KEPT_BYTES.query)
    expect(long.trackId).toHaveLength(KEPT_BYTES.trackId)
    expect(long.truncated).toEqual({ path: 5008, query: 5000, trackId: 5000 })
    const short = answered('/api/v1/verify?x=1', { trackId: 'Xq2w7Zb1Vh0Kc9LmN3pR4s' })
    expect(short.truncated).toBeUndefined()
  })

  test('secrets are masked before a text is cut: a bot token across the cut is never half shown', () => {
    const token = '123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw1'
    for (const at of [KEPT_BYTES.body - 20, KEPT_BYTES.body - 5]) {
      const body = `{"a":"${'x'.repeat(at - 15)}","t":"${token}","b":"${'y'.repeat(3000)}"}`
      const entry = answered('/api/v1/verify', { body })
      expect(entry.bodyTruncated).toBe(true)
      expect(entry.body).not.toContain('AAHdq')
    }
    const path = answered(`/_sandbox/chat/messages?${'b'.repeat(KEPT_BYTES.query - 20)}&bot=${token}`)
    expect(path.query).not.toContain('AAHdq')
  })
})

describe('RequestLog', () => {
  const entry = (bytes: number): AnsweredRequest => ({ method: 'GET', url: `/log/${'x'.repeat(bytes)}`, status: 200, ms: 0, at: new Date('2030-01-01T00:00:00.000Z') })
  const size = (n: number) => Buffer.byteLength(JSON.stringify({ seq: n, ...describeRequest(entry(100)) }))

  test('bounded in count and in bytes, the oldest let go first', () => {
    const log = new RequestLog({ capacity: 10, maxBytes: 5 * size(1) })
    for (let i = 0; i < 4; i++) log.add(entry(100))
    expect([log.oldestSeq, log.latestSeq]).toEqual([1, 4])
    // Two more do not fit in the bytes: the oldest go.
    for (let i = 0; i < 2; i++) log.add(entry(100))
    expect([log.oldestSeq, log.latestSeq]).toEqual([2, 6])
    expect(log.bytes).toBeLessThanOrEqual(log.maxBytes)
    // One as big as the whole budget is kept alone.
    log.add(entry(5 * size(1)))
    expect([log.oldestSeq, log.latestSeq]).toEqual([7, 7])
    expect(log.get(6)).toBeUndefined()
    expect(log.get(7)?.seq).toBe(7)
    // Small ones again: the count bound holds too.
    for (let i = 0; i < 30; i++) log.add(entry(0))
    expect(log.list()).toHaveLength(10)
    expect([log.oldestSeq, log.latestSeq]).toEqual([28, 37])
  })

  test('requests described only when read keep exactly the entries a log of described entries would', () => {
    // Texts of every kind: short and long, escaped in JSON, multi-byte, a credential, a bot token, a cut body.
    const texts = ['', 'a', '"\\\u0001', 'é€😀', 'http://u:p@h/x', '123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw1']
    let n = 0
    const next = (): AnsweredRequest => {
      n++
      const text = texts[n % texts.length]!.repeat(1 + ((n * 7) % 400))
      const body = n % 3 === 0 ? Buffer.from(text) : n % 3 === 1 ? { text, bytes: Buffer.byteLength(text) } : undefined
      return {
        method: 'POST',
        url: `/api/v1/${text.slice(0, (n * 13) % 1500)}${n % 4 === 0 ? `?q=${text.slice(0, 50)}` : ''}`,
        status: 200,
        ms: n / 3,
        at: new Date(1_900_000_000_000 + n),
        outcome: { result: 100, ...(n % 5 === 0 ? { trackId: text.slice(0, (n * 11) % 600) } : {}), ...(n % 7 === 0 ? { error: 'not_found' } : {}) },
        ...(body ? { body } : {}),
        ...(n % 2 ? { operator: true } : {}),
      }
    }
    for (const maxBytes of [3_000, 40_000, 400_000]) {
      const log = new RequestLog({ capacity: 50, maxBytes })
      // The same policy over entries described as they come.
      const kept: Array<{ seq: number; bytes: number }> = []
      let keptBytes = 0
      const described = new Map<number, object>()
      for (let seq = 1; seq <= 400; seq++) {
        const request = next()
        log.add(request)
        described.set(seq, { seq, ...describeRequest(request) })
        const bytes = Buffer.byteLength(JSON.stringify({ seq, ...describeRequest(request) }))
        while (kept.length > 0 && (kept.length >= 50 || keptBytes + bytes > maxBytes)) keptBytes -= kept.shift()!.bytes
        kept.push({ seq, bytes })
        keptBytes += bytes
        expect(log.oldestSeq).toBe(kept[0]!.seq)
        if (seq % 97 === 0) expect(log.list()).toEqual(kept.map((k) => described.get(k.seq)))
      }
      expect(log.bytes).toBeGreaterThanOrEqual(keptBytes)
      expect(log.bytes).toBeLessThanOrEqual(maxBytes)
      expect(log.get(400)).toEqual(described.get(400))
    }
  })

  test('refuses limits that are not whole numbers above 0', () => {
    expect(() => new RequestLog({ capacity: 0 })).toThrow(RangeError)
    expect(() => new RequestLog({ maxBytes: 1.5 })).toThrow(RangeError)
  })
})
