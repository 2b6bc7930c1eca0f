import { spawn } from 'node:child_process'
import { copyFile, lstat, readFile, symlink, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { expect, onTestFinished, test } from 'vitest'
import { SandboxClient } from '../../src/client/index.js'
import { ExitCode } from '../../src/cli/exit-codes.js'
import { startServer } from '../../src/server/start.js'
import { ROOT, tempDir } from '../helpers.js'
import { killed, startProcess, startRefused, startRunning } from './proc.js'

const callbackUrl = 'http://127.0.0.1:9/cb'

function client(url: string): SandboxClient {
  const c = new SandboxClient(url)
  onTestFinished(() => c.close())
  return c
}

async function create(url: string, amount: number): Promise<string> {
  const created = await client(url).createPayment({ merchant: 'sandbox', amount, callbackUrl })
  if (created.result !== 100) throw new Error(created.message)
  return created.trackId
}

/**
 * A process that only takes the lock of `file` and says whether it won. It holds on until its stdin is closed,
 * so a winner is still alive while the others try, however slowly they start.
 */
function contender(file: string): { outcome: Promise<string>; release: () => void } {
  const script = `
    const { DataFileLock } = await import(${JSON.stringify(join(ROOT, 'dist/src/store/file/lock.js'))});
    try { DataFileLock.acquire(${JSON.stringify(file)}, new Date().toISOString()); console.log('won') }
    catch (e) { console.log(e.name) }
    process.stdin.resume(); process.stdin.on('end', () => process.exit(0))`
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['pipe', 'pipe', 'inherit'] })
  onTestFinished(() => {
    child.kill('SIGKILL')
  })
  let out = ''
  const outcome = new Promise<string>((resolve) => {
    child.stdout.on('data', (c: Buffer) => {
      out += c.toString()
      if (out.includes('\n')) resolve(out.trim())
    })
    child.once('exit', (code) => resolve(out.trim() || `exit ${code}`))
  })
  return { outcome, release: () => child.stdin.end() }
}

test('of several starts racing for a stale lock, exactly one wins, every time', async () => {
  const file = join(await tempDir(), 'data.json')
  for (let round = 0; round < 12; round++) {
    // What a sandbox killed with -9 leaves behind: a lock naming a process that is gone.
    await writeFile(`${file}.lock`, JSON.stringify({ pid: 2 ** 22 + round, startedAt: new Date().toISOString() }))
    const contenders = Array.from({ length: 4 }, () => contender(file))
    const outcomes = await Promise.all(contenders.map((c) => c.outcome))
    for (const c of contenders) c.release()
    expect(outcomes.filter((o) => o === 'won'), `round ${round}: ${outcomes.join(', ')}`).toHaveLength(1)
    expect(outcomes.filter((o) => o !== 'won').every((o) => o === 'DataFileInUseError')).toBe(true)
  }
}, 120_000)

test('a data file reached through a symlink shares its lock with the real file, and stays a symlink', async () => {
  const dir = await tempDir()
  const real = join(dir, 'real.json')
  const link = join(dir, 'data.json')
  await symlink('real.json', link)
  const first = await startRunning(['--data', link])
  const second = await startRefused(['--data', real])
  expect(second.code).toBe(ExitCode.startFailed)
  expect(second.stderr).toContain(`pid ${first.pid}`)
  const trackId = await create(first.url, 12)
  expect(await killed(first.child, 'SIGTERM')).toBe(0)
  expect((await lstat(link)).isSymbolicLink()).toBe(true)
  expect(await readFile(real, 'utf8')).toContain(trackId)
  const again = await startRunning(['--data', real])
  expect((await client(again.url).getPayment(trackId)).payment.amount).toBe(12)
}, 30_000)

test('a data file replaced by another under a running sandbox: the next start refuses, naming both files', async () => {
  const dir = await tempDir()
  const data = join(dir, 'data.json')
  const other = await startRunning(['--data', join(dir, 'other.json')])
  await create(other.url, 1)
  expect(await killed(other.child, 'SIGTERM')).toBe(0)

  const server = await startRunning(['--data', data])
  await create(server.url, 2)
  await copyFile(join(dir, 'other.json'), data)
  await killed(server.child, 'SIGKILL')
  const journal = await readFile(`${data}.journal`, 'utf8')
  const refused = await startRefused(['--data', data])
  expect(refused.code).toBe(ExitCode.startFailed)
  expect(refused.stderr).toContain(`${data}.journal`)
  expect(refused.stderr).toContain(`data file ${data}`)
  expect(refused.stderr).toMatch(/does not belong with data file/)
  expect(await readFile(`${data}.journal`, 'utf8')).toBe(journal)
}, 30_000)

test('a data file put back from an older copy: the journal that continues a newer one is not silently skipped', async () => {
  const dir = await tempDir()
  const data = join(dir, 'data.json')
  const a = await startRunning(['--data', data])
  await create(a.url, 1)
  expect(await killed(a.child, 'SIGTERM')).toBe(0)
  await copyFile(data, join(dir, 'backup.json'))
  const b = await startRunning(['--data', data])
  await create(b.url, 2)
  expect(await killed(b.child, 'SIGTERM')).toBe(0)
  const c = await startRunning(['--data', data])
  await create(c.url, 3)
  await killed(c.child, 'SIGKILL')
  await copyFile(join(dir, 'backup.json'), data)
  const refused = await startRefused(['--data', data])
  expect(refused.code).toBe(ExitCode.startFailed)
  expect(refused.stderr).toMatch(/older copy/)
}, 30_000)

test('a start on a full disk exits 7 naming the data file', async () => {
  const data = join(await tempDir(), 'data.json')
  const seeded = await startRunning(['--data', data])
  for (let i = 0; i < 10; i++) await create(seeded.url, 1 + i)
  // Killed: the next start folds the journal into a new data file of about 3 KB.
  await killed(seeded.child, 'SIGKILL')
  const before = await readFile(data, 'utf8')
  // Files may grow to 1 KB: the lock fits, the new data file does not.
  const started = await startProcess(['--data', data], { shell: 'ulimit -f 2' })
  expect('exited' in started).toBe(true)
  if (!('exited' in started)) return
  expect(started.exited.code).toBe(ExitCode.startFailed)
  expect(started.exited.stderr).toContain(`data file ${data}`)
  expect(started.exited.stderr).not.toMatch(/\n\s+at /)
  expect(await readFile(data, 'utf8')).toBe(before)
}, 30_000)

test('a start that fails once the data file is open lets go of it: no lock is left, the next start is not refused', async () => {
  const data = join(await tempDir(), 'data.json')
  // Node refuses the server's timeout only once the data file is open and the app is being built.
  await expect(startServer({ port: 0, dataFile: data, timeouts: { requestMs: -5 } })).rejects.toThrow(/requestTimeout/)
  await expect(lstat(`${data}.lock`)).rejects.toMatchObject({ code: 'ENOENT' })
  const next = await startRunning(['--data', data])
  expect((await client(next.url).health()).counts.merchants).toBe(1)
})
