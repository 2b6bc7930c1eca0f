import { execFile } from 'node:child_process'
import { mkdir, readFile, realpath, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { expect, onTestFinished, test } from 'vitest'
import { SandboxClient } from '../../src/client/index.js'
import { receiver } from '../callbacks/receiver.js'
import { ROOT, startSandboxProcess, tempDir } from '../helpers.js'
import { launchChromium, OUTPUT, watch } from './chromium.js'

const run = promisify(execFile)
const quiet = ['--no-audit', '--no-fund', '--ignore-scripts']

interface Lockfile {
  packages: Record<string, { dev?: boolean; devOptional?: boolean; link?: boolean }>
}

/**
 * Packs this package (as built) and installs the tarball into a fresh project, as a user would (the install steps
 * of docs/ci.md: npm pack, then npm install of the tarball). Offline: the
 * project's lockfile pins the dependencies at this package's own locked versions, which `npm ci` put in npm's
 * cache. Should the cache not have them, npm resolves them itself (as `npm install <tgz>` does for a user).
 */
async function installPacked(dir: string): Promise<{ project: string; how: string }> {
  // Without scripts: `prepare` would rebuild dist/ under the other test files running now.
  const packed = JSON.parse((await run('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', dir], { cwd: ROOT })).stdout) as Array<{
    filename: string
    integrity: string
  }>
  const tarball = packed[0]!
  const project = join(dir, 'shop')
  await mkdir(project)
  const spec = `file:../${tarball.filename}`
  const manifest = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as Record<string, unknown>
  const lock = JSON.parse(await readFile(join(ROOT, 'package-lock.json'), 'utf8')) as Lockfile
  const packages: Record<string, unknown> = {
    '': { name: 'shop', version: '1.0.0', dependencies: { 'pay-sandbox': spec } },
    'node_modules/pay-sandbox': {
      version: manifest.version,
      resolved: spec,
      integrity: tarball.integrity,
      license: manifest.license,
      dependencies: manifest.dependencies,
      bin: manifest.bin,
      engines: manifest.engines,
    },
  }
  for (const [path, entry] of Object.entries(lock.packages)) {
    if (path.startsWith('node_modules/') && !entry.dev && !entry.devOptional && !entry.link) packages[path] = entry
  }
  const pkg = { name: 'shop', version: '1.0.0', private: true, dependencies: { 'pay-sandbox': spec } }
  await writeFile(join(project, 'package.json'), JSON.stringify(pkg))
  await writeFile(join(project, 'package-lock.json'), JSON.stringify({ name: 'shop', version: '1.0.0', lockfileVersion: 3, requires: true, packages }))
  try {
    await run('npm', ['ci', '--offline', ...quiet], { cwd: project })
    return { project, how: 'offline, from the lockfile' }
  } catch (offline) {
    await writeFile(join(project, 'package.json'), JSON.stringify({ name: 'shop', version: '1.0.0', private: true }))
    await rm(join(project, 'package-lock.json'), { force: true })
    try {
      await run('npm', ['install', '--prefer-offline', ...quiet, join(dir, tarball.filename)], { cwd: project })
    } catch (online) {
      throw new Error(`npm could not install the tarball.\noffline: ${(offline as Error).message}\nresolving: ${(online as Error).message}`)
    }
    return { project, how: 'resolved by npm (the offline install failed)' }
  }
}

test(
  'from a packed and installed tarball, `npx pay sandbox start`: the checkout page pays and the callback arrives, the inspector shows it live, the chat page reaches a bot',
  { timeout: 180_000 },
  async () => {
    const dir = await tempDir()
    const { project, how } = await installPacked(dir)
    // `npx pay` runs the installed copy, not a link to this folder.
    expect(await realpath(join(project, 'node_modules', '.bin', 'pay')), how).toBe(join(await realpath(project), 'node_modules', 'pay-sandbox', 'bin', 'run.js'))

    const sb = await startSandboxProcess(['--data', join(dir, 'data', 'data.json'), '--callback-retries', '0'], { command: ['npx', 'pay'], cwd: project })
    onTestFinished(() => sb.stop())
    const client = new SandboxClient(sb.url)
    const browser = await launchChromium()
    onTestFinished(() => browser.close())
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } })
    watch(context)

    // The inspector's payments list, open before the payment exists.
    const list = await context.newPage()
    await list.goto(`${sb.url}/inspect/payments`)
    await expect.poll(() => list.textContent('#live-state')).toBe('Live')
    await list.evaluate(() => ((window as unknown as { marker: number }).marker = 42))

    const shop = await receiver()
    const created = await client.createPayment({ merchant: 'sandbox', amount: 12.5, callbackUrl: shop.url, description: 'From the tarball' })
    if (created.result !== 100) throw new Error(JSON.stringify(created))
    const row = list.locator(`tr[data-track-id="${created.trackId}"]`)
    // Live: it appears without a reload (in ~0.1 s on an idle machine).
    await expect.poll(() => row.count(), { timeout: 2000, interval: 25 }).toBe(1)

    const checkout = await context.newPage()
    expect((await checkout.goto(client.checkoutUrl(created.trackId)))?.status()).toBe(200)
    await checkout.getByRole('button', { name: 'Simulate payment', exact: true }).click()
    await expect.poll(() => checkout.textContent('#status-heading')).toBe('Paid')
    const [callback] = await shop.waitFor(1)
    expect(callback!.json).toMatchObject({ trackId: created.trackId, status: 'paid', amount: 12.5 })
    await expect.poll(() => row.locator('.status').textContent(), { timeout: 2000, interval: 25 }).toBe('paid')
    expect(await list.evaluate(() => (window as unknown as { marker?: number }).marker)).toBe(42)
    await checkout.screenshot({ path: join(OUTPUT, 'installed-checkout-paid.png'), fullPage: true })

    // The chat page: the customer's message reaches the bot.
    const token = '7001:Inst4lled_package_bot-abcdefghijklm'
    const bot = (method: string, body: Record<string, unknown> = {}) =>
      client.raw({ method: 'POST', path: `/telegram/bot${token}/${method}`, body }).then((r) => r.json as { ok: boolean; result: Array<{ message?: { text?: string } }> })
    expect((await bot('getMe')).ok).toBe(true)
    const chat = await context.newPage()
    await chat.goto(`${sb.url}/chat?bot=7001&chat=1001`)
    await chat.getByRole('textbox', { name: 'Message' }).fill('hello from the page')
    await chat.getByRole('button', { name: 'Send' }).click()
    await chat.locator('.from-user .bubble', { hasText: 'hello from the page' }).waitFor()
    expect((await bot('getUpdates')).result.map((u) => u.message?.text)).toEqual(['hello from the page'])
  },
)
