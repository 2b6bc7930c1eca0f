import { join } from 'node:path'
import { expect, onTestFinished, test } from 'vitest'
import { SandboxClient } from '../../src/client/index.js'
import { exited, pay, spawnSandbox, tempDir } from '../helpers.js'

/** GET `path` from the sandbox at `url`, sending `Host: host`; resolves with the status and the error code, if any. */
async function getAs(url: string, host: string, path = '/_sandbox/health'): Promise<{ status: number; error?: string }> {
  const client = new SandboxClient(url)
  onTestFinished(() => client.close())
  const res = await client.raw({ method: 'GET', path, headers: { host } })
  const error = (res.json as { error?: string } | undefined)?.error
  return { status: res.status, ...(error !== undefined ? { error } : {}) }
}

test('pay sandbox start --allowed-hosts answers the named hosts (e.g. a docker-compose service) and no others', async () => {
  const dir = await tempDir()
  const sb = await spawnSandbox(['--data', join(dir, 'data.json'), '--allowed-hosts', 'sandbox,.example.test'])
  const port = new URL(sb.url).port
  expect(await getAs(sb.url, `sandbox:${port}`)).toMatchObject({ status: 200 })
  expect(await getAs(sb.url, `api.example.test:${port}`)).toMatchObject({ status: 200 })
  expect(await getAs(sb.url, `attacker.example:${port}`, '/_sandbox/export')).toEqual({ status: 403, error: 'host_not_allowed' })
  sb.child.kill('SIGTERM')
  expect(await exited(sb.child)).toBe(0)
  expect(sb.output()).toMatch(/GET \/_sandbox\/export 403 error=host_not_allowed/)
})

test('PAY_SANDBOX_ALLOWED_HOSTS does the same; without it the name is refused', async () => {
  const dir = await tempDir()
  const refused = await spawnSandbox(['--data', join(dir, 'a.json')])
  expect(await getAs(refused.url, 'sandbox')).toEqual({ status: 403, error: 'host_not_allowed' })
  const allowed = await spawnSandbox(['--data', join(dir, 'b.json')], { env: { PAY_SANDBOX_ALLOWED_HOSTS: 'sandbox' } })
  expect(await getAs(allowed.url, 'sandbox')).toMatchObject({ status: 200 })
})

test('--allowed-hosts all answers any Host and warns loudly at start', async () => {
  const dir = await tempDir()
  const sb = await spawnSandbox(['--data', join(dir, 'data.json'), '--allowed-hosts', 'all'])
  expect(await getAs(sb.url, 'anything.example')).toMatchObject({ status: 200 })
  await expect.poll(() => sb.output()).toMatch(/WARNING: --allowed-hosts all: the sandbox answers any Host name/)
})

test('--detach passes --allowed-hosts on to the background sandbox', async () => {
  const dir = await tempDir()
  const data = join(dir, 'data.json')
  const started = await pay(['sandbox', 'start', '--detach', '--json', '--port', '0', '--data', data, '--allowed-hosts', 'sandbox'])
  expect(started.code, started.stderr).toBe(0)
  const { url } = JSON.parse(started.stdout) as { url: string }
  onTestFinished(async () => {
    await pay(['sandbox', 'stop', '--url', url])
  })
  expect(await getAs(url, 'sandbox')).toMatchObject({ status: 200 })
  expect(await getAs(url, 'other')).toEqual({ status: 403, error: 'host_not_allowed' })
})

test.each([
  ['http://sandbox:8787', /"http:\/\/sandbox:8787" is not a host name/],
  ['*.example.test', /write \.example\.test to allow a domain and its subdomains/],
  ['all,sandbox', /--allowed-hosts all cannot be combined with host names/],
])('--allowed-hosts %s is a usage error (exit 2)', async (value, message) => {
  const r = await pay(['sandbox', 'start', '--port', '0', '--allowed-hosts', value])
  expect(r.code).toBe(2)
  expect(r.stderr).toMatch(message)
})
