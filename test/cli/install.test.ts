import { execFile } from 'node:child_process'
import { cp, mkdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { expect, onTestFinished, test } from 'vitest'
import { freePort, ROOT, tempDir } from '../helpers.js'

const run = promisify(execFile)
test("docs/ci.md's workflow steps work in a project that installed the package, with its own scenarios folder", { timeout: 120_000 }, async () => {
  const ci = await readFile(join(ROOT, 'docs', 'ci.md'), 'utf8')
  expect(ci).toMatch(/```gitignore\n\.pay-sandbox\/\n```/)
  const yaml = /```yaml\n([\s\S]*?)```/.exec(ci)![1]!
  expect(yaml).not.toContain('fixtures/')
  const steps = [...yaml.matchAll(/- run: (npx pay [^#\n]*?)\s*(?:#.*)?$/gm)].map((m) => m[1]!)
  expect(steps).toEqual([
    'npx pay sandbox start --detach',
    'npx pay scenario run scenarios --reporter junit --output reports/scenarios.xml',
    'npx pay sandbox stop --if-running',
  ])

  const project = await tempDir()
  await writeFile(join(project, 'package.json'), JSON.stringify({ name: 'shop', version: '1.0.0', private: true, type: 'module' }))
  // A path install (a link to this built package), as the README says for a clone; no registry is needed. The
  // package is built already: its prepare script would rebuild dist/ under the other test files running now.
  await run('npm', ['install', '--save-dev', '--offline', '--no-audit', '--no-fund', '--ignore-scripts', ROOT], { cwd: project })
  await mkdir(join(project, 'scenarios'))
  await cp(join(ROOT, 'fixtures', 'scenarios', 'paid.json'), join(project, 'scenarios', 'paid.json'))

  const env = { ...process.env, CI: 'true', NO_COLOR: '1', PAY_SANDBOX_URL: `http://127.0.0.1:${await freePort()}` }
  onTestFinished(() => run('npx', ['pay', 'sandbox', 'stop', '--if-running'], { cwd: project, env }).then(() => undefined))
  for (const step of steps) {
    const [command, ...args] = step.split(' ')
    await run(command!, args, { cwd: project, env })
  }
  const report = await readFile(join(project, 'reports', 'scenarios.xml'), 'utf8')
  expect(report).toMatch(/<testsuite name="paid" [^>]*failures="0"/)
  // Stopped, a second clean-up step still succeeds.
  await run('npx', ['pay', 'sandbox', 'stop', '--if-running'], { cwd: project, env })

  // The library import of docs/test-suite.md.
  const script = "import { startSandbox } from 'pay-sandbox'\nconst s = await startSandbox()\nconst r = await s.client.createPayment({ merchant: 'sandbox', amount: 1, callbackUrl: 'http://127.0.0.1:9/cb' })\nconsole.log(r.result)\nawait s.stop()\n"
  await writeFile(join(project, 'try.mjs'), script)
  expect((await run(process.execPath, ['try.mjs'], { cwd: project })).stdout.trim()).toBe('100')
})
