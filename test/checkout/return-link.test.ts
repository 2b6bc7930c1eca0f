import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { type Sandbox, startSandbox } from '../../src/index.js'

/** The merchant's returnUrl, and what the customer is sent to; `<id>` is the trackId. */
const rows: Array<[string, string]> = [
  ['https://shop.example/back?status=mine&trackId=abc', 'https://shop.example/back?status=paid&trackId=<id>'],
  ['https://shop.example/back?order=7&trackId=abc#done', 'https://shop.example/back?order=7&trackId=<id>&status=paid#done'],
  ['https://shop.example/back?trackId=a&x=%20&trackId=b&status=s&status=t', 'https://shop.example/back?trackId=<id>&x=%20&status=paid'],
  ['https://shop.example/back?status&q="a"&name=café', 'https://shop.example/back?status=paid&q="a"&name=café&trackId=<id>'],
  ['https://shop.example/back?track%49d=1&Status=kept&trackId2=kept', 'https://shop.example/back?trackId=<id>&Status=kept&trackId2=kept&status=paid'],
  ['https://shop.example/back?trackId=x&', 'https://shop.example/back?trackId=<id>&status=paid'],
  ['https://shop.example/back?a=1&&b=2', 'https://shop.example/back?a=1&&b=2&trackId=<id>&status=paid'],
]

describe('the return link never carries trackId or status twice', () => {
  let sb: Sandbox
  beforeAll(async () => {
    sb = await startSandbox()
  })
  afterAll(() => sb.stop())

  test.each(rows)('%s → %s', async (given, expected) => {
    const created = await sb.client.createPayment({ merchant: 'sandbox', amount: 3, callbackUrl: 'http://127.0.0.1:9/cb', returnUrl: given })
    if (created.result !== 100) throw new Error(JSON.stringify(created))
    await sb.client.simulate(created.trackId, { outcome: 'paid' })
    const status = await sb.client.raw({ method: 'GET', path: `/pay/${created.trackId}/status` })
    const link = (status.json as { returnUrl: string }).returnUrl
    expect(link).toBe(expected.replace('<id>', created.trackId))
    // As a merchant's server reads the query: one value for each name the sandbox sets.
    const query = new URL(link).searchParams
    expect(query.getAll('trackId')).toEqual([created.trackId])
    expect(query.getAll('status')).toEqual(['paid'])
    // The checkout page links to the same URL.
    const page = await sb.client.raw({ method: 'GET', path: `/pay/${created.trackId}`, headers: { accept: 'text/html' } })
    expect(page.text).toContain(`href="${link.replaceAll('&', '&amp;').replaceAll('"', '&quot;')}"`)
  })
})
