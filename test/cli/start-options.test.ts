import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, expect, onTestFinished, test } from 'vitest'
import { START_OPTIONS, type StartOption, type StartOptionName } from '../../src/cli/sandbox-config.js'
import { type Health, SandboxClient } from '../../src/client/index.js'
import { startSandbox } from '../../src/index.js'
import { freePort, isAlive, pay, tempDir } from '../helpers.js'

/**
 * Every start option, set to a value that is not its default, reaches the sandbox whichever way it is started:
 * `start --detach` (flags written back for a background process) and `exec` (flags and environment variables),
 * read back from the sandbox's own /_sandbox/health. The options come from the definition, so a new one is
 * covered as soon as it has a value below.
 */
// --store needs a PostgreSQL server and excludes --data: test/team/start.test.ts takes it through the same ways.
type Tested = Exclude<StartOptionName, 'store'>
const rows = (Object.entries(START_OPTIONS) as Array<[StartOptionName, StartOption]>).filter((row): row is [Tested, StartOption] => row[0] !== 'store')

let seedDir: string
let seedFile: string
let seedPayments: number

beforeAll(async () => {
  seedDir = await mkdtemp(join(tmpdir(), 'pay-test-seed-'))
  const sb = await startSandbox()
  try {
    const created = await sb.client.createPayment({ merchant: 'sandbox', amount: 7, callbackUrl: 'https://shop.example/cb' })
    if (created.result !== 100) throw new Error(JSON.stringify(created))
    const file = await sb.client.exportState()
    seedPayments = file.payments.length
    seedFile = join(seedDir, 'seed.json')
    await writeFile(seedFile, JSON.stringify(file))
  } finally {
    await sb.stop()
  }
})

afterAll(() => rm(seedDir, { recursive: true, force: true }))

/** A value as typed: a repeated flag's values as a list. */
type Typed = string | number | boolean | string[]

/** A value of each option that is not its default, as typed. */
async function samples(): Promise<Record<Tested, Typed>> {
  const dir = await tempDir()
  return {
    port: await freePort(),
    host: 'localhost',
    data: join(dir, 'data.json'),
    quiet: true,
    'allowed-hosts': 'sandbox,.example.test',
    'callback-retries': 5,
    'callback-timeout': '750ms',
    'callback-schedule': '2s,1.5m',
    durability: 'os',
    'callback-concurrency': 7,
    import: seedFile,
    'export-on-exit': join(dir, 'out.json'),
    'callback-mode': 'delay=1.5m',
    'callback-chaos': '0.25',
    seed: 9,
    'payment-ttl': '90s',
    confirmations: 4,
    'block-time': '2m',
    'public-url': 'https://pay-dev.example.test',
    'telegram-allow-local-urls': true,
    'api-fault': ['verify:status=503:times=2', 'create:retry-after=429:seconds=3:merchant=shop_1', 'all:delay=1.5s:rate=0.25:seed=7'],
  }
}

function flagsOf(values: Partial<Record<StartOptionName, Typed>>): string[] {
  return Object.entries(values).flatMap(([name, value]) =>
    value === true ? [`--${name}`] : Array.isArray(value) ? value.flatMap((v) => [`--${name}`, v]) : [`--${name}`, String(value)],
  )
}

/** Each option as the sandbox reads it back, next to the value it was given, read as the flag reads it. */
function readBack(health: Health, given: Partial<Record<StartOptionName, Typed>>) {
  expect(health.settings, 'the sandbox reports its settings').toBeDefined()
  const seen: Record<string, unknown> = {}
  const asked: Record<string, unknown> = {}
  for (const [name, row] of rows) {
    if (!(name in given)) continue
    seen[name] = row.read(health.settings!)
    asked[name] = row.parse(given[name] as never)
  }
  return { seen, asked }
}

const healthScript = `fetch(process.env.PAY_SANDBOX_URL + '/_sandbox/health').then((r) => r.text()).then((t) => process.stdout.write(t))`

test('every start option has a value to test with', async () => {
  expect(Object.keys(await samples()).sort()).toEqual(rows.map(([name]) => name).sort())
})

test('start --detach: every option reaches the background sandbox', async () => {
  const given = await samples()
  const r = await pay(['sandbox', 'start', '--detach', '--json', ...flagsOf(given)], { timeoutMs: 40_000 })
  expect(r.code, r.stderr).toBe(0)
  const started = JSON.parse(r.stdout) as { url: string; pid: number }
  onTestFinished(() => {
    if (isAlive(started.pid)) process.kill(started.pid, 'SIGKILL')
  })
  const client = new SandboxClient(started.url)
  onTestFinished(() => client.close())
  const health = await client.health()
  const { seen, asked } = readBack(health, given)
  expect(seen).toEqual(asked)
  expect(health.counts.payments).toBe(seedPayments)

  const stop = await pay(['sandbox', 'stop', '--url', started.url])
  expect(stop.code, stop.stderr).toBe(0)
  expect((await stat(given['export-on-exit'] as string)).size).toBeGreaterThan(0)
})

test('exec: every option it takes reaches its sandbox, as flags', async () => {
  const given = await samples()
  const taken = Object.fromEntries(rows.filter(([, row]) => row.exec !== false).map(([name]) => [name, given[name]]))
  const r = await pay(['sandbox', 'exec', ...flagsOf(taken), '--', process.execPath, '-e', healthScript], { timeoutMs: 40_000 })
  expect(r.code, r.stderr).toBe(0)
  const health = JSON.parse(r.stdout) as Health
  const { seen, asked } = readBack(health, taken)
  expect(seen).toEqual(asked)
  expect(Object.keys(seen).sort()).toEqual(rows.filter(([, row]) => row.exec !== false).map(([name]) => name).sort())
  expect(health.counts.payments).toBe(seedPayments)
  expect(JSON.parse(await readFile(given['export-on-exit'] as string, 'utf8'))).toMatchObject({ payments: expect.any(Array) })
})

test('exec: every option it reads from an environment variable reaches its sandbox that way', async () => {
  const given = await samples()
  // exec's own port and data file are not read from the environment: those name the developer's own sandbox.
  const fromEnv = rows.filter(([, row]) => row.env !== undefined && row.exec === undefined)
  expect(fromEnv.length).toBeGreaterThan(10)
  const env = Object.fromEntries(fromEnv.map(([name, row]) => [row.env!, String(given[name])]))
  // A data file of the test's own: exec's temporary folder would be another test's business.
  const r = await pay(['sandbox', 'exec', '--data', given.data as string, '--', process.execPath, '-e', healthScript], { env, timeoutMs: 40_000 })
  expect(r.code, r.stderr).toBe(0)
  const { seen, asked } = readBack(JSON.parse(r.stdout) as Health, Object.fromEntries(fromEnv.map(([name]) => [name, given[name]])))
  expect(seen).toEqual(asked)
})
