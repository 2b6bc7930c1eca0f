import { execFileSync } from 'node:child_process'
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { expect, onTestFinished, test } from 'vitest'
import { type RawResponse, SandboxClient } from '../../src/client/index.js'
import { ExitCode } from '../../src/cli/exit-codes.js'
import { startSandbox } from '../../src/index.js'
import { tempDir } from '../helpers.js'
import { killed, startRefused, startRunning } from './proc.js'

const callbackUrl = 'http://127.0.0.1:9/cb'

function create(client: SandboxClient, amount: number): Promise<RawResponse> {
  return client.raw({ method: 'POST', path: '/api/v1/request', body: { merchant: 'sandbox', amount, callbackUrl } })
}

/** A 503 naming the journal; the spec API's answer carries `result` too, as all its bodies do. */
function expectStorageUnavailable(res: RawResponse, journal: string, specApi = true): void {
  expect(res.status, res.text).toBe(503)
  expect(res.json).toEqual({
    ...(specApi ? { result: 503 } : {}),
    statusCode: 503,
    error: 'storage_unavailable',
    message: expect.stringContaining(journal),
  })
  expect(res.text).toMatch(/nothing was stored/)
}

/**
 * `chattr +i` makes a file immutable even for root, and even through a descriptor already open for writing
 * (plain chmod stops neither). It needs root and a file system with the attribute (ext4, xfs, btrfs).
 */
async function canMakeImmutable(): Promise<boolean> {
  if (process.getuid?.() !== 0) return false
  const probe = join(await tempDir(), 'probe')
  await writeFile(probe, '')
  try {
    execFileSync('chattr', ['+i', probe], { stdio: 'ignore' })
    execFileSync('chattr', ['-i', probe], { stdio: 'ignore' })
    return true
  } catch {
    return false
  }
}

function setImmutable(path: string, on: boolean): void {
  execFileSync('chattr', [on ? '+i' : '-i', path])
}

/**
 * A folder on a file system of its own of `kb` KB (tmpfs), unmounted when the test finishes. Undefined where
 * mounting is not allowed (it needs root, and a container may forbid it).
 */
async function smallDisk(kb: number): Promise<string | undefined> {
  if (process.getuid?.() !== 0) return undefined
  const dir = await mkdtemp(join(tmpdir(), 'pay-disk-'))
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${kb}k`, 'tmpfs', dir], { stdio: 'ignore' })
  } catch {
    await rm(dir, { recursive: true, force: true })
    return undefined
  }
  onTestFinished(async () => {
    // Lazily: a process of the test may still hold a file there until its own clean-up.
    execFileSync('umount', ['-l', dir])
    await rm(dir, { recursive: true, force: true })
  })
  return dir
}

/** Fills the file system holding `dir` to the last byte. */
async function fill(dir: string): Promise<void> {
  await writeFile(join(dir, 'filler'), Buffer.alloc(16 * 1024 * 1024)).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== 'ENOSPC') throw error
  })
}

test('a full disk (file size limit, EFBIG): create answers 503 storage_unavailable, nothing unsaved is acknowledged, serving goes on', async () => {
  const data = join(await tempDir(), 'data.json')
  // `ulimit -f` caps the size of any file the process writes: the journal fills up after a few dozen records,
  // exactly as on a full disk, as any user and on any POSIX system. Node ignores SIGXFSZ, so writes get EFBIG.
  const server = await startRunning(['--data', data], { shell: 'ulimit -f 24' })
  const client = new SandboxClient(server.url, { keepAlive: true })
  onTestFinished(() => client.close())
  const acked: string[] = []
  let refused: RawResponse | undefined
  for (let i = 0; i < 1000 && !refused; i++) {
    const res = await create(client, 100 + i)
    if (res.status === 200 && (res.json as { result: number }).result === 100) acked.push((res.json as { trackId: string }).trackId)
    else refused = res
  }
  expect(acked.length).toBeGreaterThan(3)
  expectStorageUnavailable(refused!, `${data}.journal`)
  // Still full: every later create is refused too, and the refused ones were not kept in memory either.
  expectStorageUnavailable(await create(client, 5), `${data}.journal`)
  expect((await client.health()).counts.payments).toBe(acked.length)
  expect((await client.listPayments()).map((p) => p.trackId)).toEqual(acked)
  // Reads keep working.
  expect(await client.verifyPayment({ merchant: 'sandbox', trackId: acked[0]! })).toEqual({ result: 202, amount: 100 })

  // After a crash nothing acknowledged is lost: the journal had it all.
  await killed(server.child, 'SIGKILL')
  const again = await startRunning(['--data', data])
  const restarted = new SandboxClient(again.url)
  expect((await restarted.listPayments()).map((p) => p.trackId)).toEqual(acked)
}, 30_000)

test('a disk that fills while the data file is rewritten on stop: the old data file and the journal stay whole', async () => {
  const data = join(await tempDir(), 'data.json')
  // A data file of about 100 KB, written without any limit.
  const seeded = await startSandbox({ dataFile: data })
  const description = 'x'.repeat(600)
  for (let i = 0; i < 150; i++) await seeded.client.createPayment({ merchant: 'sandbox', amount: 1 + i, callbackUrl, description })
  await seeded.stop()
  const before = await readFile(data)

  // Under a 12-24 KB file size limit the journal still takes a few records, but the full rewrite on stop cannot fit.
  const server = await startRunning(['--data', data], { shell: 'ulimit -f 24' })
  const client = new SandboxClient(server.url)
  const added = (await create(client, 999)).json as { result: number; trackId: string }
  expect(added.result).toBe(100)
  expect(await killed(server.child, 'SIGTERM')).toBe(ExitCode.error)
  expect(server.stderr()).toMatch(/Could not save on stop/)
  // The half-written rewrite never replaced the data file, and the journal still holds the new payment.
  expect(await readFile(data)).toEqual(before)

  const again = await startRunning(['--data', data])
  const payments = await new SandboxClient(again.url).listPayments()
  expect(payments).toHaveLength(151)
  expect(payments.at(-1)).toMatchObject({ trackId: added.trackId, amount: 999 })
}, 30_000)

test('a journal made read-only while running (chattr +i): creates and state changes answer 503, recover once writable', async (context) => {
  if (!(await canMakeImmutable())) context.skip('needs root and chattr (immutable files) on the temp file system')
  const dir = await tempDir()
  const data = join(dir, 'data.json')
  const journal = `${data}.journal`
  const server = await startRunning(['--data', data])
  const client = new SandboxClient(server.url, { keepAlive: true })
  onTestFinished(() => client.close())
  const first = (await create(client, 10)).json as { trackId: string }

  setImmutable(journal, true)
  onTestFinished(() => setImmutable(journal, false))
  expectStorageUnavailable(await create(client, 11), journal)
  const move = await client.raw({ method: 'POST', path: `/_sandbox/payments/${first.trackId}/simulate`, body: { outcome: 'paid' } })
  expectStorageUnavailable(move, journal, false)
  expect(await client.verifyPayment({ merchant: 'sandbox', trackId: first.trackId })).toEqual({ result: 202, amount: 10 })
  expect((await client.health()).counts.payments).toBe(1)

  setImmutable(journal, false)
  const second = await create(client, 12)
  expect(second.json).toMatchObject({ result: 100 })
  await killed(server.child, 'SIGKILL')
  const again = await startRunning(['--data', data])
  const amounts = (await new SandboxClient(again.url).listPayments()).map((p) => [p.amount, p.status])
  expect(amounts).toEqual([
    [10, 'pending'],
    [12, 'pending'],
  ])
}, 30_000)

test('a data folder that cannot be written: start refuses with exit 7, naming the file', async () => {
  const dir = join(await tempDir(), 'locked')
  await mkdir(dir)
  // Root ignores permission bits, so there the folder is made immutable instead.
  const immutable = await canMakeImmutable()
  if (immutable) {
    setImmutable(dir, true)
    onTestFinished(() => setImmutable(dir, false))
  } else {
    execFileSync('chmod', ['555', dir])
    onTestFinished(() => {
      execFileSync('chmod', ['755', dir])
    })
  }
  const data = join(dir, 'data.json')
  const outcome = await startRefused(['--data', data])
  expect(outcome.code).toBe(ExitCode.startFailed)
  expect(outcome.stderr).toContain(data)
  expect(outcome.stderr).toMatch(/folder must be writable/)
  expect(outcome.stderr).not.toMatch(/\n\s+at /)
})

test('a start on a disk with no space left says the disk is full (ENOSPC) and what to do: exit 7, nothing left behind', async (context) => {
  const disk = await smallDisk(256)
  if (!disk) {
    context.skip('needs root and a tmpfs mount, to have a real file system run out of space')
    return
  }
  const data = join(disk, 'data.json')
  await fill(disk)
  const outcome = await startRefused(['--data', data])
  expect(outcome.code).toBe(ExitCode.startFailed)
  expect(outcome.stderr).toBe(
    `Error: cannot create lock file ${data}.lock beside data file ${data}: the disk is full (ENOSPC): free some space on it, or start on another disk with --data <file>.\n`,
  )
  // Not even the lock's own temporary file is left behind.
  expect(await readdir(disk)).toEqual(['filler'])
  // Once there is room, the same start works.
  await rm(join(disk, 'filler'))
  const server = await startRunning(['--data', data])
  expect((await new SandboxClient(server.url).health()).counts.payments).toBe(0)
  expect(await killed(server.child, 'SIGTERM')).toBe(0)
})
