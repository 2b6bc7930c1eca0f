/**
 * The team sandbox guide's walkthrough (docs/team-sandbox.md), run as written against a database of its own in the
 * throwaway cluster: two instances on one database, a payment created on one and verified on the other.
 */
import { execFile } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { delimiter, join } from 'node:path'
import { expect, onTestFinished, test } from 'vitest'
import { shellBlocks } from '../docs/examples.js'
import { freePort, tempDir } from '../helpers.js'
import { freshDatabase } from './postgres.js'

const ROOT = join(import.meta.dirname, '..', '..')
const GUIDE = join(ROOT, 'docs', 'team-sandbox.md')

test('docs/team-sandbox.md: two instances on one database answer as one sandbox', async () => {
  const blocks = shellBlocks(readFileSync(GUIDE, 'utf8')).filter((b) => b.testedBy.includes('test/team/guide.test.ts'))
  expect(blocks).toHaveLength(1)
  const url = await freshDatabase()
  const [a, b] = [await freePort(), await freePort()]
  const script = blocks[0]!.text
    .replace(/^export PAY_SANDBOX_STORE=\S+/m, `export PAY_SANDBOX_STORE='${url}'`)
    .replaceAll('8801', String(a))
    .replaceAll('8802', String(b))
  expect(script).toContain(url)
  const cwd = await tempDir()
  onTestFinished(async () => {
    for (const port of [a, b]) await fetch(`http://127.0.0.1:${port}/_sandbox/shutdown`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' }).catch(() => {})
  })
  const out = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile('bash', ['-e', '-c', script], { cwd, env: { ...process.env, PATH: `${join(ROOT, 'node_modules', '.bin')}${delimiter}${process.env.PATH ?? ''}`, PAY_SANDBOX_URL: '', NO_COLOR: '1' } }, (error, stdout, stderr) =>
      resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    )
  })
  expect(out.code, out.stderr + out.stdout).toBe(0)
  expect(out.stdout).toMatch(/202/)
  expect(out.stdout).toMatch(/100/)
  expect(out.stdout).toContain(`postgres://${new URL(url).username}`)
  expect(out.stdout).toMatch(/2 sandboxes live on it/)
}, 60_000)
