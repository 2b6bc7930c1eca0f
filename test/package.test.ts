import { execFile } from 'node:child_process'
import { cp, mkdir, readFile, readdir, symlink } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { expect, test } from 'vitest'
import { ExitCode } from '../src/cli/exit-codes.js'
import { ROOT, tempDir } from './helpers.js'

// semver comes with the tree (through @oclif/core and fastify); no types are installed for it.
const semver = createRequire(import.meta.url)('semver') as {
  subset(range: string, superset: string): boolean
  satisfies(version: string, range: string): boolean
}

interface Manifest {
  engines: { node: string }
  exports: Record<string, unknown>
  overrides?: Record<string, string>
}
interface Lockfile {
  packages: Record<string, { version?: string; engines?: { node?: string } | string[] }>
}

const readJson = async <T>(file: string): Promise<T> => JSON.parse(await readFile(join(ROOT, file), 'utf8')) as T

function run(command: string, args: string[], cwd: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) =>
    execFile(command, args, { cwd, timeout: 30_000 }, (error, stdout, stderr) =>
      resolve({ code: error ? ((error.code as number) ?? 1) : 0, stdout, stderr }),
    ),
  )
}

test('require("pay-sandbox") works from CommonJS: startSandbox() and a create', async () => {
  const dir = await tempDir()
  await mkdir(join(dir, 'node_modules'))
  await symlink(ROOT, join(dir, 'node_modules', 'pay-sandbox'), 'dir')
  const script = `
const { startSandbox, SpecResult } = require('pay-sandbox')
startSandbox().then(async (sandbox) => {
  const created = await sandbox.client.createPayment({ merchant: 'sandbox', amount: 1 + 0.14, callbackUrl: 'http://127.0.0.1:9/cb' })
  const verified = await sandbox.client.verifyPayment({ merchant: 'sandbox', trackId: created.trackId })
  await sandbox.stop()
  console.log(JSON.stringify({ created: created.result === SpecResult.success, verified, version: require('pay-sandbox/package.json').version }))
})
`
  const out = await run(process.execPath, ['-e', script], dir)
  expect(out.code, out.stderr).toBe(0)
  // Not even an ExperimentalWarning: nothing in the graph needs top-level await.
  expect(out.stderr).toBe('')
  expect(JSON.parse(out.stdout)).toEqual({ created: true, verified: { result: 202, amount: 1.1400000000000001 }, version: expect.any(String) })
})

test('every installed package admits every Node version package.json supports: npm ci prints no engine warning', async () => {
  const manifest = await readJson<Manifest>('package.json')
  const lock = await readJson<Lockfile>('package-lock.json')
  const ours = manifest.engines.node
  expect(semver.satisfies(process.version, ours), `this Node (${process.version}) is one we support`).toBe(true)
  const refused = Object.entries(lock.packages)
    .filter(([path, p]) => path !== '' && p.engines !== undefined && !Array.isArray(p.engines) && p.engines.node !== undefined)
    .filter(([, p]) => !semver.subset(ours, (p.engines as { node: string }).node))
    .map(([path, p]) => `${path.replace(/^.*node_modules\//, '')}@${p.version} wants node ${(p.engines as { node: string }).node}`)
  expect(refused, `engines.node ${ours} includes versions these packages refuse`).toEqual([])
  // The installed tree is the lockfile's, overrides included.
  const ls = await run('npm', ['ls', '--all', '--json'], ROOT)
  expect(ls.code, ls.stdout.slice(0, 2000)).toBe(0)
  for (const [name, version] of Object.entries(manifest.overrides ?? {})) {
    const entries = Object.entries(lock.packages).filter(([path]) => path.endsWith(`node_modules/${name}`))
    expect(entries.length, name).toBeGreaterThan(0)
    for (const [, p] of entries) expect(p.version, name).toBe(version)
  }
})

test("a package whose pages' scripts were not built refuses to start, naming the file, before it touches the data file", async () => {
  // The CLI as shipped, without dist/pages.
  const dir = await tempDir()
  for (const part of ['bin', 'dist/bundle', 'package.json', 'oclif.manifest.json']) await cp(join(ROOT, part), join(dir, part), { recursive: true })
  await symlink(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir')
  const data = join(dir, 'data')
  const out = await run(process.execPath, [join(dir, 'bin', 'run.js'), 'sandbox', 'start', '--port', '0', '--data', join(data, 'data.json')], dir)
  expect(out.code, out.stderr).toBe(ExitCode.startFailed)
  expect(out.stderr).toContain(`the checkout page's script cannot be read (ENOENT): ${join(dir, 'dist', 'pages', 'checkout.js')}; build the package first (npm run build)`)
  expect(out.stderr).not.toMatch(/\n\s+at /)
  await expect(readdir(data)).rejects.toMatchObject({ code: 'ENOENT' })
})
