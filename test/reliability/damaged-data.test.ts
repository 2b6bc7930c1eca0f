import { appendFile, readFile, stat, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { expect, test } from 'vitest'
import { SandboxClient } from '../../src/client/index.js'
import { ExitCode } from '../../src/cli/exit-codes.js'
import { tempDir } from '../helpers.js'
import { killed, startRefused, startRunning } from './proc.js'

interface Files {
  data: string
  journal: string
  /** trackIds acknowledged before the crash. */
  trackIds: string[]
}

/** A data file and a journal holding 5 acknowledged payments, as a crash (kill -9) leaves them. */
async function crashedFiles(): Promise<Files> {
  const data = join(await tempDir(), 'data.json')
  const server = await startRunning(['--data', data])
  const client = new SandboxClient(server.url)
  const trackIds: string[] = []
  for (let i = 0; i < 5; i++) {
    const created = await client.createPayment({ merchant: 'sandbox', amount: 10 + i, callbackUrl: 'http://127.0.0.1:9/cb' })
    if (created.result !== 100) throw new Error(JSON.stringify(created))
    trackIds.push(created.trackId)
  }
  await killed(server.child, 'SIGKILL')
  const files = { data, journal: `${data}.journal`, trackIds }
  expect((await stat(files.journal)).size).toBeGreaterThan(0)
  return files
}

const refusals: Array<{ name: string; damage: (f: Files) => Promise<void>; file: (f: Files) => string; message: RegExp }> = [
  {
    name: 'a data file cut in half',
    damage: async (f) => writeFile(f.data, (await readFile(f.data)).subarray(0, Math.floor((await stat(f.data)).size / 2))),
    file: (f) => f.data,
    message: /is not valid JSON.*left untouched/s,
  },
  { name: 'an empty data file', damage: (f) => writeFile(f.data, ''), file: (f) => f.data, message: /is not valid JSON/ },
  {
    name: 'a data file of another program',
    damage: (f) => writeFile(f.data, '{"users": []}\n'),
    file: (f) => f.data,
    message: /is not a pay sandbox data file \(format is undefined/,
  },
  {
    name: 'a damaged line in the middle of the journal',
    damage: async (f) => {
      const lines = (await readFile(f.journal, 'utf8')).split('\n')
      lines[2] = lines[2]!.slice(0, 20)
      await writeFile(f.journal, lines.join('\n'))
    },
    file: (f) => f.journal,
    message: /is damaged at line 3 \(not valid JSON\).*left untouched/s,
  },
  {
    name: 'a journal line that is JSON but not a record',
    damage: (f) => appendFile(f.journal, '{"s": 99, "k": "rm -rf"}\n{"s": 100, "k": "reset"}\n'),
    file: (f) => f.journal,
    message: /is damaged at line 7 \(not a journal record: k must be one of merchant, payment, .* \(got "rm -rf"\)\)/,
  },
  {
    name: 'a journal clock record past what dates can print',
    damage: (f) => appendFile(f.journal, '{"s":99,"k":"clock","v":{"offsetMs":1e308}}\n'),
    file: (f) => f.journal,
    message: /is damaged at line 7 \(clock\.offsetMs must be an offset from 0 to 253370764800000 ms: the sandbox clock goes no later than 9999-01-01T00:00:00\.000Z \(got 1e\+308\)\)\. It was left untouched/,
  },
  {
    name: 'a payment record edited by hand in the journal',
    damage: async (f) => {
      const lines = (await readFile(f.journal, 'utf8')).split('\n')
      lines[2] = lines[2]!.replace(/"amount":\d+/, '"amount":"ten"')
      await writeFile(f.journal, lines.join('\n'))
    },
    file: (f) => f.journal,
    message: /is damaged at line 3 \(payment\.amount must be a number \(got "ten"\)\)/,
  },
  {
    name: 'a record edited by hand in the data file',
    damage: async (f) => writeFile(f.data, (await readFile(f.data, 'utf8')).replace('"enabled":true', '"enabled":"yes"')),
    file: (f) => f.data,
    message: /has a record the sandbox cannot use at line 6: merchants\[0\]\.enabled must be true or false \(got "yes"\)\. It was left untouched/,
  },
  {
    name: 'a data file whose clock is past what dates can print',
    damage: async (f) => writeFile(f.data, (await readFile(f.data, 'utf8')).replace('"seq": 0,\n', '"seq": 0,\n"clock": {"offsetMs": 8.64e15},\n')),
    file: (f) => f.data,
    message: /has a record the sandbox cannot use at line 4: clock\.offsetMs must be an offset from 0 to 253370764800000 ms/,
  },
  {
    name: 'a hand-written data file (not one record per line) with a payment that cannot be read',
    damage: async (f) => {
      const data = JSON.parse(await readFile(f.data, 'utf8')) as { payments: unknown[] }
      data.payments.push({ trackId: 'x' })
      await writeFile(f.data, JSON.stringify(data, null, 2))
    },
    file: (f) => f.data,
    message: /has a record the sandbox cannot use: payments\[0\]\.merchant is missing\. It was left untouched/,
  },
]

for (const row of refusals) {
  test(`start refuses ${row.name}: exit 7, names the file, overwrites nothing`, async () => {
    const files = await crashedFiles()
    await row.damage(files)
    const before = { data: await readFile(files.data), journal: await readFile(files.journal) }
    const outcome = await startRefused(['--data', files.data])
    expect(outcome.code).toBe(ExitCode.startFailed)
    expect(outcome.stderr).toContain(row.file(files))
    expect(outcome.stderr).toMatch(row.message)
    expect(outcome.stderr).not.toMatch(/\n\s+at /)
    expect(await readFile(files.data)).toEqual(before.data)
    expect(await readFile(files.journal)).toEqual(before.journal)
    // The refused start let go of the file: a start after repair is not told it is in use.
    await stat(`${files.data}.lock`).then(
      () => expect.fail('lock file left behind'),
      (error: NodeJS.ErrnoException) => expect(error.code).toBe('ENOENT'),
    )
  })
}

test('a torn final journal record is dropped and reported; every acknowledged payment is kept', async () => {
  const files = await crashedFiles()
  const torn = '{"s":999,"k":"payment","v":{"trackId":"torn","amo'
  await appendFile(files.journal, torn)
  const server = await startRunning(['--data', files.data])
  const client = new SandboxClient(server.url)
  const stored = (await client.listPayments()).map((p) => p.trackId)
  expect(stored.sort()).toEqual([...files.trackIds].sort())
  expect(server.stderr()).toMatch(new RegExp(`Recovered: dropped a torn final journal record \\(${Buffer.byteLength(torn)} bytes, never acknowledged\\)`))
  // The recovery folded the journal into the data file, so the torn bytes are gone for good.
  expect(await killed(server.child, 'SIGTERM')).toBe(0)
  const saved = JSON.parse(await readFile(files.data, 'utf8')) as { payments: Array<{ trackId: string }> }
  expect(saved.payments.map((p) => p.trackId).sort()).toEqual([...files.trackIds].sort())
  expect(await readFile(files.journal, 'utf8')).toBe('')
})
