import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { formatsAjv } from '../../src/domain/export-schema.js'
import { listSchemas, listSchemasDigest } from '../../src/domain/record-schema.js'
import { PRECOMPILED, PRECOMPILED_DIGEST } from '../../src/domain/record-validators.js'
import { startSandbox } from '../../src/index.js'

type Check = (value: unknown) => boolean

/** Every value reachable in `record` with one thing changed: a field removed, added, or given a value of another kind. */
function* mutations(record: unknown): Generator<unknown> {
  const others: unknown[] = [null, true, 0, -1, 1.5, 1e21, '', 'x', ' sandbox', 'x'.repeat(1100), '2026-13-01T00:00:00.000Z', [], [{}], {}]
  for (const other of others) yield other
  if (Array.isArray(record)) {
    for (let i = 0; i < record.length; i++) {
      for (const changed of mutations(record[i])) yield record.map((x, j) => (j === i ? changed : x))
      yield record.filter((_, j) => j !== i)
    }
    yield [...record, ...record, ...record, ...record, ...record, ...record]
  } else if (typeof record === 'object' && record !== null) {
    const o = record as Record<string, unknown>
    yield { ...o, unknownField: 1 }
    for (const key of Object.keys(o)) {
      const { [key]: _removed, ...rest } = o
      yield rest
      for (const changed of mutations(o[key])) yield { ...o, [key]: changed }
    }
  }
}

describe('the record checks compiled at build time', () => {
  test('were compiled from the schemas the sources hold (else `npm run build` makes them again)', () => {
    expect(PRECOMPILED_DIGEST).toBe(listSchemasDigest())
    expect(Object.keys(PRECOMPILED).length).toBeGreaterThan(0)
  })

  describe('pass and refuse what the schemas compiled at run time do', () => {
    let dir: string
    let lists: Record<string, unknown>
    beforeAll(async () => {
      dir = await mkdtemp(join(tmpdir(), 'pay-record-validators-'))
      const dataFile = join(dir, 'data.json')
      const sb = await startSandbox({ dataFile, callbacks: { retries: 0, timeoutMs: 200 } })
      try {
        const created: Array<{ trackId: string }> = []
        for (let i = 0; i < 3; i++) created.push(<{ trackId: string }>await sb.client.createPayment({ merchant: 'sandbox', amount: 10 + i, callbackUrl: 'http://127.0.0.1:9/cb', returnUrl: 'https://shop.example.test/done', description: `order ${i}` }))
        await sb.client.simulate(created[0]!.trackId, { outcome: 'paid' })
        await sb.client.simulate(created[1]!.trackId, { outcome: 'failed' })
        await sb.client.verifyPayment({ merchant: 'sandbox', trackId: created[0]!.trackId })
        await sb.client.addFault({ route: 'verify', status: 500, times: 2 })
        await sb.client.raw({ method: 'POST', path: '/api/v1/verify', body: JSON.stringify({ merchant: 'sandbox', trackId: created[2]!.trackId }) })
        await sb.client.raw({ method: 'POST', path: '/_sandbox/clock/advance', body: JSON.stringify({ ms: 60_000 }) })
        await new Promise((resolve) => setTimeout(resolve, 500))
      } finally {
        await sb.stop()
      }
      lists = JSON.parse(await readFile(dataFile, 'utf8')) as Record<string, unknown>
    })
    afterAll(() => rm(dir, { recursive: true, force: true }))

    test('for every record of a data file, and every record one change away from it', () => {
      const schemas = listSchemas()
      const ajv = formatsAjv({ messages: false })
      let compared = 0
      let refused = 0
      const names = Object.keys(PRECOMPILED)
      for (const name of names) {
        const list = name.replace(/^list /, '')
        const stored = list === 'clock' ? (lists.clock === undefined ? [] : [lists.clock]) : ((lists[list] ?? []) as unknown[])
        const atRunTime = ajv.compile(schemas[name]!) as Check
        const atBuild = PRECOMPILED[name]!
        for (const record of stored) {
          expect(atBuild(record), `${name}: ${JSON.stringify(record)}`).toBe(true)
          for (const changed of mutations(record)) {
            const expected = atRunTime(changed)
            expect(atBuild(changed), `${name}: ${JSON.stringify(changed)}`).toBe(expected)
            compared++
            if (!expected) refused++
          }
        }
      }
      // The file held merchants, payments, deliveries, verify journals, fault rules and hits, and the clock.
      for (const list of ['merchants', 'payments', 'deliveries', 'verifies', 'faults', 'faultHits']) expect((lists[list] as unknown[]).length, list).toBeGreaterThan(0)
      expect(lists.clock).toBeDefined()
      expect(refused).toBeGreaterThan(1000)
      expect(compared - refused).toBeGreaterThan(10)
    })
  })
})
