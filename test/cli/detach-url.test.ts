import { execFile } from 'node:child_process'
import { cp, mkdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, onTestFinished, test } from 'vitest'
import { BIN, isAlive, pay, ROOT, tempDir } from '../helpers.js'

// The recipes of docs/ci.md.
const ci = await readFile(join(ROOT, 'docs', 'ci.md'), 'utf8')
const recipe = (lang: string, marker: string) => [...ci.matchAll(new RegExp(`\`\`\`${lang}\\n([\\s\\S]*?)\`\`\``, 'g'))].map((m) => m[1]!).find((b) => b.includes(marker))!

/** A shell running `script`, with `npx pay` as the built CLI (the folder is not a project that installed it). */
function shell(shellArgs: string[], script: string, cwd: string, env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  const text = script.replaceAll('npx pay ', `'${process.execPath}' '${BIN}' `)
  return new Promise((done) => {
    execFile(shellArgs[0]!, [...shellArgs.slice(1), text], { cwd, env: { ...process.env, NO_COLOR: '1', CI: '1', ...env }, timeout: 60_000 }, (error, stdout, stderr) => {
      done({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr })
    })
  })
}

/** Kills what a detached start left running, found by its data file's start record in the log. */
function reap(log: string): void {
  onTestFinished(async () => {
    const text = await readFile(log, 'utf8').catch(() => '')
    for (const match of text.matchAll(/"pid":(\d+)/g)) if (isAlive(Number(match[1]))) process.kill(Number(match[1]), 'SIGKILL')
  })
}

describe('a detached sandbox on a picked port tells scripts its URL', () => {
  test('the human output ends with a shell-ready export line; --json gives url, pid, data file and log', async () => {
    const dir = await tempDir()
    const data = join(dir, 'a.json')
    reap(`${data}.log`)
    const human = await pay(['sandbox', 'start', '--detach', '--port', '0', '--data', data])
    expect(human.code, human.stderr).toBe(0)
    const lines = human.stdout.trimEnd().split('\n')
    const url = /URL\s+(http:\/\/127\.0\.0\.1:\d+)/.exec(human.stdout)![1]!
    expect(lines.at(-1)).toBe(`export PAY_SANDBOX_URL=${url}`)
    expect((await pay(['sandbox', 'stop', '--url', url])).code).toBe(0)

    const json = await pay(['sandbox', 'start', '--detach', '--port', '0', '--data', data, '--json'])
    expect(json.code, json.stderr).toBe(0)
    const started = JSON.parse(json.stdout) as Record<string, unknown>
    expect(started).toEqual({ url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/), pid: expect.any(Number), dataFile: data, log: `${data}.log`, merchantKey: 'sandbox' })
    expect((await pay(['sandbox', 'stop', '--url', started.url as string])).code).toBe(0)
  })

  test("the README's shell recipe: every next command talks to the sandbox on the picked port, which it then stops", async () => {
    const dir = await tempDir()
    await mkdir(join(dir, 'scenarios'))
    await cp(join(ROOT, 'fixtures', 'scenarios', 'paid.json'), join(dir, 'scenarios', 'paid.json'))
    reap(join(dir, 'pay', 'data.json.log'))
    const script = recipe('sh', 'started=$(')
    // The default address answers nothing: only the exported URL can reach the sandbox.
    const r = await shell(['sh', '-ec'], script, dir, { RUNNER_TEMP: dir, PAY_SANDBOX_URL: 'http://127.0.0.1:9' })
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toMatch(/✔ 1 scenario passed/)
    expect(r.stdout).toMatch(/Stopped the sandbox at http:\/\/127\.0\.0\.1:\d+/)
    expect(await readFile(join(dir, 'pay', 'data.json'), 'utf8')).toContain('"payments"')
  })

  test('in the recipe, a start that fails (exit 7) stops the script before anything else runs', async () => {
    const dir = await tempDir()
    const data = join(dir, 'pay', 'data.json')
    reap(`${data}.log`)
    const first = await pay(['sandbox', 'start', '--detach', '--port', '0', '--data', data, '--json'])
    expect(first.code, first.stderr).toBe(0)
    onTestFinished(async () => void (await pay(['sandbox', 'stop', '--url', (JSON.parse(first.stdout) as { url: string }).url])))
    const r = await shell(['sh', '-ec'], recipe('sh', 'started=$('), dir, { RUNNER_TEMP: dir })
    expect(r.code).toBe(7)
    expect(r.stderr).toContain('is in use by the sandbox at')
    expect(r.stdout).not.toContain('scenario')
  })

  test("the README's GitHub Actions step writes PAY_SANDBOX_URL to $GITHUB_ENV", async () => {
    const dir = await tempDir()
    const step = /- run: (.+)\n\s+shell: bash/.exec(recipe('yaml', 'GITHUB_ENV'))![1]!
    reap(join(dir, '.pay-sandbox', 'data.json.log'))
    const env = join(dir, 'github_env')
    const r = await shell(['bash', '--noprofile', '--norc', '-eo', 'pipefail', '-c'], step, dir, { GITHUB_ENV: env })
    expect(r.code, r.stderr).toBe(0)
    const written = await readFile(env, 'utf8')
    expect(written).toMatch(/^PAY_SANDBOX_URL=http:\/\/127\.0\.0\.1:\d+\n$/)
    const url = written.trim().split('=')[1]!
    expect((await pay(['sandbox', 'status', '--url', url])).code).toBe(0)
    expect((await pay(['sandbox', 'stop', '--url', url])).code).toBe(0)
  })
})
