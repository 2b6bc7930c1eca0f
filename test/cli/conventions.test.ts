import { cp, readdir, readFile, symlink, writeFile } from 'node:fs/promises'
import { join, relative } from 'node:path'
import { pathToFileURL } from 'node:url'
import { describe, expect, test } from 'vitest'
import { pay, ROOT, sandbox, tempDir } from '../helpers.js'

interface ManifestCommand {
  id: string
  summary?: string
  examples?: string[]
  flags: Record<string, unknown>
}

async function commandFiles(dir = join(ROOT, 'commands')): Promise<string[]> {
  const out: string[] = []
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) out.push(...(await commandFiles(path)))
    else if (entry.name.endsWith('.ts')) out.push(relative(join(ROOT, 'commands'), path).replace(/\.ts$/, '').split('/').join(':').replace(/:index$/, ''))
  }
  return out.sort()
}

const ESC = '\u001b['

describe('every command', () => {
  test('the build wrote an oclif manifest listing exactly the commands in commands/', async () => {
    const manifest = JSON.parse(await readFile(join(ROOT, 'oclif.manifest.json'), 'utf8')) as { commands: Record<string, unknown> }
    expect(Object.keys(manifest.commands).sort()).toEqual(await commandFiles())
  })

  test('has a summary, --json, and examples that use the bin name', async () => {
    const manifest = JSON.parse(await readFile(join(ROOT, 'oclif.manifest.json'), 'utf8')) as { commands: Record<string, ManifestCommand> }
    const problems: string[] = []
    for (const [id, c] of Object.entries(manifest.commands)) {
      if (!c.summary) problems.push(`${id}: no summary`)
      if (!('json' in c.flags)) problems.push(`${id}: no --json`)
      if (!c.examples?.length) problems.push(`${id}: no examples`)
      for (const e of c.examples ?? []) if (!e.includes('<%= config.bin %>')) problems.push(`${id}: example without the bin: ${e}`)
    }
    expect(problems).toEqual([])
  })

  test('a command that talks to a sandbox starts without loading the server or the schema validator', async () => {
    const dir = await tempDir()
    const loaded = join(dir, 'loaded.json')
    const hook = join(dir, 'hook.cjs')
    await writeFile(hook, `process.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(loaded)}, JSON.stringify(Object.keys(require('node:module')._cache))))\n`)
    const r = await pay(['payment', 'verify', 'nope', '--url', 'http://127.0.0.1:9', '--json'], { env: { NODE_OPTIONS: `--require ${hook}` } })
    expect(r.code, r.stderr).toBe(3)
    const modules = JSON.parse(await readFile(loaded, 'utf8')) as string[]
    expect(modules.filter((m) => /[/\\]node_modules[/\\](ajv|fastify|@fastify)[/\\]/.test(m))).toEqual([])
  })

  test("a command loads its own file of the bundle and no other command's", async () => {
    const dir = await tempDir()
    const loaded = join(dir, 'loaded.txt')
    await writeFile(
      join(dir, 'hooks.mjs'),
      `import { appendFileSync } from 'node:fs'\nexport async function load(url, context, next) {\n  appendFileSync(${JSON.stringify(loaded)}, url + '\\n')\n  return next(url, context)\n}\n`,
    )
    await writeFile(join(dir, 'register.mjs'), "import { register } from 'node:module'\nregister('./hooks.mjs', import.meta.url)\n")
    const r = await pay(['payment', 'verify', 'nope', '--url', 'http://127.0.0.1:9', '--json'], {
      env: { NODE_OPTIONS: `--import ${pathToFileURL(join(dir, 'register.mjs')).href}` },
    })
    expect(r.code, r.stderr).toBe(3)
    const commands = (await readFile(loaded, 'utf8')).split('\n').filter((url) => url.includes('/dist/bundle/commands/'))
    expect(commands.map((url) => url.replace(/^.*\/dist\/bundle\/commands\//, ''))).toEqual(['payment/verify.js'])
  })

  test('without its manifest (bin/run.js drops one older than the build), pay finds its commands in the bundle', async () => {
    const copy = await tempDir()
    for (const part of ['bin', 'dist', 'package.json']) await cp(join(ROOT, part), join(copy, part), { recursive: true })
    await symlink(join(ROOT, 'node_modules'), join(copy, 'node_modules'))
    const bin = join(copy, 'bin', 'run.js')
    const verify = await pay(['payment', 'verify', 'nope', '--url', 'http://127.0.0.1:9', '--json'], { bin })
    expect(verify.code, verify.stderr).toBe(3)
    const help = await pay(['help', 'chain'], { bin })
    expect(help.code, help.stderr).toBe(0)
    expect(help.stdout).toContain('chain mine  Mine blocks')
  })
})

describe('--json prints only JSON on stdout, for results and for errors', () => {
  test.each([
    [['sandbox', 'status'], 0],
    [['sandbox', 'wait', '--timeout', '2s'], 0],
    [['merchant', 'list'], 0],
    [['payment', 'list'], 0],
    [['payment', 'show', 'nope'], 5],
    [['payment', 'wait', 'nope', '--status', 'paid'], 5],
    [['payment', 'create', '--amount', '5'], 2],
    [['payment', 'create', '--amount', 'ten', '--callback-url', 'http://x.test/cb'], 2],
    [['payment', 'simulate', 'nope', '--outcome', 'paid'], 5],
    [['payment', 'simulate', 'nope'], 2],
    [['sandbox', 'reset'], 2],
    [['sandbox', 'import', 'missing.json', '--yes'], 2],
    [['sandbox', 'export', '/nonexistent-dir/x.json'], 2],
    [['open', 'nope'], 5],
    [['payment', 'list', '--bogus'], 2],
  ])('pay %j → exit %i', async (args, exit) => {
    const sb = await sandbox()
    const r = await pay([...args, '--url', sb.url, '--json'])
    expect(r.code).toBe(exit)
    const parsed = JSON.parse(r.stdout) as Record<string, unknown>
    if (exit === 0) expect(parsed).not.toHaveProperty('error')
    else expect(parsed).toEqual({ error: { code: expect.any(String), message: expect.any(String), exit } })
  })

  test('a spec failure answer is the result on stdout (exit 4)', async () => {
    const sb = await sandbox()
    const r = await pay(['payment', 'verify', 'nope', '--url', sb.url, '--json'])
    expect(r.code).toBe(4)
    expect(JSON.parse(r.stdout)).toEqual({ result: 203, message: 'Invalid track ID' })
  })

  test('an unreachable sandbox is exit 3 with error JSON', async () => {
    const r = await pay(['payment', 'list', '--url', 'http://127.0.0.1:9', '--json'])
    expect(r.code).toBe(3)
    expect(JSON.parse(r.stdout)).toEqual({ error: expect.objectContaining({ code: 'unreachable', exit: 3 }) })
  })
})

describe('colour', () => {
  test('on only when forced and not turned off by NO_COLOR or --no-color', async () => {
    const sb = await sandbox()
    const forced = { FORCE_COLOR: '1', NO_COLOR: '' }
    expect((await pay(['merchant', 'list', '--url', sb.url], { env: forced })).stdout).toContain(ESC)
    expect((await pay(['merchant', 'list', '--url', sb.url, '--no-color'], { env: forced })).stdout).not.toContain(ESC)
    expect((await pay(['merchant', 'list', '--url', sb.url], { env: { FORCE_COLOR: '1', NO_COLOR: '1' } })).stdout).not.toContain(ESC)
    // No TTY and nothing forced: plain.
    expect((await pay(['merchant', 'list', '--url', sb.url], { env: { NO_COLOR: '' } })).stdout).not.toContain(ESC)
  })
})

describe('browser commands on a machine without a browser', () => {
  const headless = { DISPLAY: '', WAYLAND_DISPLAY: '', BROWSER: '' }

  test('pay open prints the checkout URL and says it could not open a browser', async () => {
    const sb = await sandbox()
    const body = await sb.client.createPayment({ merchant: 'sandbox', amount: 3, callbackUrl: 'http://127.0.0.1:9/cb' })
    if (body.result !== 100) throw new Error(JSON.stringify(body))
    const r = await pay(['open', body.trackId, '--url', sb.url], { env: headless })
    expect(r.code).toBe(0)
    expect(r.stdout.trim()).toBe(`${sb.url}/pay/${body.trackId}`)
    expect(r.stderr).toContain(`Could not open a browser; open this URL yourself: ${sb.url}/pay/${body.trackId}`)
    const json = await pay(['open', body.trackId, '--url', sb.url, '--json'], { env: headless })
    expect(JSON.parse(json.stdout)).toEqual({ url: `${sb.url}/pay/${body.trackId}`, opened: false })
  })

  test('pay dashboard prints the inspector URL', async () => {
    const sb = await sandbox()
    const r = await pay(['dashboard', '--url', sb.url, '--json'], { env: headless })
    expect(r.code).toBe(0)
    expect(JSON.parse(r.stdout)).toEqual({ url: `${sb.url}/`, opened: false })
  })
})

describe('oclif plugins', () => {
  test('a mistyped command is refused with exit 127 and a pointer to help', async () => {
    const r = await pay(['paymnt', 'list'])
    expect(r.code).toBe(127)
    expect(r.stderr).toContain('paymnt list is not a pay command')
    expect(r.stdout).toBe('')
  })

  test('pay autocomplete builds a bash completion that knows the commands and their flags', async () => {
    const home = await tempDir()
    const env = { HOME: home, XDG_CACHE_HOME: join(home, 'cache'), XDG_DATA_HOME: join(home, 'data') }
    const script = await pay(['autocomplete', 'script', 'bash'], { env })
    expect(script.code).toBe(0)
    expect(script.stdout).toContain('PAY_AC_BASH_SETUP_PATH')
    const setup = await pay(['autocomplete', 'bash'], { env })
    expect(setup.code).toBe(0)
    const completion = await readFile(join(home, 'cache', 'pay-sandbox', 'autocomplete', 'functions', 'bash', 'pay.bash'), 'utf8')
    expect(completion).toMatch(/payment:verify/)
    expect(completion).toMatch(/--expect/)
  })
})
