import { cp, mkdir, readdir, readFile, symlink, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import { BIN, pay, ROOT, sandbox, tempDir } from '../helpers.js'

const manifest = JSON.parse(await readFile(join(ROOT, 'oclif.manifest.json'), 'utf8')) as { commands: Record<string, unknown> }

const nowhere = 'http://127.0.0.1:9'
/** A failing invocation of every command; `@url` is a running sandbox, `@port` its port, `@dir` a temporary folder. */
const failing: Record<string, { args: string[]; exit: number }> = {
  audit: { args: ['--track-id', 'nope', '--url', '@url'], exit: 5 },
  'callback:list': { args: ['--state', 'lost', '--url', '@url'], exit: 2 },
  'callback:listen': { args: ['--port', '@port'], exit: 7 },
  chain: { args: ['--url', nowhere], exit: 3 },
  'chain:mine': { args: ['--blocks', '0', '--url', '@url'], exit: 2 },
  'chat:bot:add': { args: ['not-a-token', '--url', '@url'], exit: 2 },
  'chat:bots': { args: ['--url', nowhere], exit: 3 },
  'chat:messages': { args: ['--follow', '--until', '(', '--url', '@url'], exit: 2 },
  'chat:press': { args: ['No such button', '--url', '@url'], exit: 5 },
  'chat:send': { args: ['hello', '--url', '@url'], exit: 5 },
  'callback:replay': { args: ['dlv_missing', '--url', '@url'], exit: 5 },
  'callback:show': { args: ['dlv_missing', '--url', '@url'], exit: 5 },
  clock: { args: ['--url', nowhere], exit: 3 },
  'clock:advance': { args: ['0s', '--url', '@url'], exit: 2 },
  'clock:reset': { args: ['--url', nowhere], exit: 3 },
  'clock:set': { args: ['2000-01-01T00:00:00Z', '--url', '@url'], exit: 2 },
  dashboard: { args: ['--url', nowhere], exit: 3 },
  'fault:add': { args: ['--route', 'verify', '--status', '700', '--url', '@url'], exit: 2 },
  'fault:clear': { args: ['flt_nothere00000', '--url', '@url'], exit: 5 },
  'fault:list': { args: ['--url', nowhere], exit: 3 },
  help: { args: ['nosuch'], exit: 2 },
  'logs:tail': { args: ['--filter', 'stauts=4xx', '--url', '@url'], exit: 2 },
  'merchant:create': { args: ['--key', 'sandbox', '--url', '@url'], exit: 5 },
  'merchant:disable': { args: ['nobody', '--url', '@url'], exit: 5 },
  'merchant:enable': { args: ['nobody', '--url', '@url'], exit: 5 },
  'merchant:list': { args: ['--url', nowhere], exit: 3 },
  open: { args: ['nope', '--url', '@url'], exit: 5 },
  'payment:create': { args: ['--amount', '5', '--callback-url', 'notaurl', '--url', '@url'], exit: 4 },
  'payment:list': { args: ['--status', 'lost', '--url', '@url'], exit: 2 },
  'payment:show': { args: ['nope', '--url', '@url'], exit: 5 },
  'payment:simulate': { args: ['nope', '--outcome', 'paid', '--url', '@url'], exit: 5 },
  'payment:verify': { args: ['nope', '--url', '@url'], exit: 4 },
  'payment:wait': { args: ['nope', '--status', 'paid', '--url', '@url'], exit: 5 },
  'sandbox:exec': { args: ['--port', '@port'], exit: 2 },
  'sandbox:export': { args: ['/nonexistent-dir/x.json', '--url', '@url'], exit: 2 },
  'sandbox:import': { args: ['@dir/missing.json', '--yes', '--url', '@url'], exit: 2 },
  'sandbox:reset': { args: ['--url', '@url'], exit: 2 },
  'sandbox:start': { args: ['--port', '@port', '--data', '@dir/data.json'], exit: 7 },
  'sandbox:status': { args: ['--url', nowhere], exit: 3 },
  'sandbox:stop': { args: ['--url', nowhere], exit: 3 },
  'sandbox:wait': { args: ['--timeout', '200ms', '--url', nowhere], exit: 6 },
  'scenario:run': { args: ['@dir/failing.json', '--url', '@url'], exit: 6 },
  trigger: { args: ['paid', '--callback-url', 'http://127.0.0.1:9/cb', '--url', '@url'], exit: 8 },
  version: { args: ['extra'], exit: 2 },
}

const failingScenario = {
  version: 1,
  name: 'designed to fail',
  steps: [
    { create: { as: 'order', merchant: 'sandbox', amount: 1, callbackUrl: 'http://127.0.0.1:9/cb' } },
    { verify: { payment: 'order' }, expect: { result: 100 } },
  ],
}

describe('failures go to stderr; with --json, stdout holds exactly one JSON document', () => {
  test('every command has a failing case here', () => {
    expect(Object.keys(failing).sort()).toEqual(Object.keys(manifest.commands).sort())
  })

  test.each(Object.entries(failing))('pay %s', async (id, { args, exit }) => {
    const sb = await sandbox()
    const dir = await tempDir()
    await writeFile(join(dir, 'failing.json'), JSON.stringify(failingScenario))
    const port = new URL(sb.url).port
    const filled = args.map((a) => a.replace('@url', sb.url).replace('@port', port).replace('@dir', dir))
    // Without --json the failure is on stderr too, and stdout says nothing of it (both runs at once: each fails alike).
    const [r, human] = await Promise.all([pay([...id.split(':'), ...filled, '--json']), pay([...id.split(':'), ...filled])])
    expect(r.code, r.stderr).toBe(exit)
    const document = JSON.parse(r.stdout) as Record<string, unknown>
    expect(typeof document).toBe('object')
    expect(r.stderr).toMatch(/^Error: \S/)

    expect(human.code).toBe(exit)
    expect(human.stderr).toMatch(/^Error: \S/)
    expect(human.stdout).not.toMatch(/Error|Invalid track ID|Callback URL is missing/)
  })

  test('an unknown command: exit 127, the closest command named, and the error document under --json', async () => {
    const json = await pay(['paymnt', 'list', '--json'])
    expect(json.code).toBe(127)
    expect(JSON.parse(json.stdout)).toEqual({
      error: { code: 'unknown_command', message: 'paymnt list is not a pay command; did you mean pay payment list?', exit: 127 },
    })
    expect(json.stderr).toContain('Error: paymnt list is not a pay command; did you mean pay payment list?')
    const plain = await pay(['nosuch'])
    expect(plain.code).toBe(127)
    expect(plain.stdout).toBe('')
    expect(plain.stderr).toBe('Error: nosuch is not a pay command\n  → pay help lists every command\n')
  })

  test('under NODE_ENV=test or development, in a project without TypeScript, stderr holds only the failure', async () => {
    // The built package beside its dependencies, all but TypeScript (as a plain JavaScript project installs it).
    const copy = await tempDir()
    for (const part of ['bin', 'dist', 'package.json', 'oclif.manifest.json']) await cp(join(ROOT, part), join(copy, part), { recursive: true })
    await mkdir(join(copy, 'node_modules'))
    for (const name of await readdir(join(ROOT, 'node_modules'))) {
      if (name !== 'typescript') await symlink(join(ROOT, 'node_modules', name), join(copy, 'node_modules', name))
    }
    const bin = join(copy, BIN.slice(ROOT.length + 1))
    for (const NODE_ENV of ['test', 'development']) {
      const r = await pay(['payment', 'verify', 'nope', '--url', nowhere], { env: { NODE_ENV }, bin })
      expect(r.code, r.stderr).toBe(3)
      expect(r.stderr).toBe(`Error: no sandbox at ${nowhere} (ECONNREFUSED) — start one with \`pay sandbox start\`\n`)
    }
  })
})
