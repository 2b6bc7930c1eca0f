import { execFile } from 'node:child_process'
import { existsSync, readFileSync, statSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { promisify } from 'node:util'
import { expect, test } from 'vitest'
import { GUIDES, guideFile } from '../../src/guides.js'
import { ROOT } from '../helpers.js'
import { documents } from './examples.js'

const run = promisify(execFile)
const readme = readFileSync(join(ROOT, 'README.md'), 'utf8')

test('the README is short: at most 25 KB', () => {
  expect(Buffer.byteLength(readme)).toBeLessThanOrEqual(25 * 1024)
})

test('the README links every guide, each a file whose title is the one pay help and the inspector show', () => {
  for (const g of GUIDES) {
    const file = guideFile(g.name)
    expect(readme, file).toContain(`[${g.title}](${file})`)
    expect(readFileSync(join(ROOT, file), 'utf8').split('\n')[0]).toBe(`# ${g.title}`)
  }
})

test("the README's picture is committed: the checkout page and the inspector, as the screenshot test takes it", () => {
  const picture = readFileSync(join(ROOT, 'docs', 'images', 'checkout-and-inspector.png'))
  expect(readme).toContain('](docs/images/checkout-and-inspector.png)')
  expect(picture.subarray(1, 4).toString()).toBe('PNG')
  expect([picture.readUInt32BE(16), picture.readUInt32BE(20)]).toEqual([1440, 900])
})

/** GitHub's anchor of a heading. */
const slug = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}_\- ]/gu, '')
    .replaceAll(' ', '-')

function anchors(markdown: string): Set<string> {
  const out = new Set<string>()
  let fence = false
  for (const line of markdown.split('\n')) {
    if (line.startsWith('```')) fence = !fence
    const heading = fence ? null : /^#{1,6} (.+)$/.exec(line)
    if (heading) out.add(slug(heading[1]!))
  }
  return out
}

test('every link between the README and the docs leads to a file, and to a heading of it', () => {
  const broken: string[] = []
  for (const file of documents()) {
    const text = readFileSync(join(ROOT, file), 'utf8')
    for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^[a-z]+:/.test(target!)) continue
      const [path, anchor] = target!.split('#') as [string, string | undefined]
      const resolved = path === '' ? join(ROOT, file) : join(ROOT, dirname(file), path)
      if (!existsSync(resolved)) {
        broken.push(`${file}: ${target} (no such file)`)
        continue
      }
      if (anchor !== undefined && statSync(resolved).isFile() && resolved.endsWith('.md') && !anchors(readFileSync(resolved, 'utf8')).has(anchor)) {
        broken.push(`${file}: ${target} (no such heading)`)
      }
    }
  }
  expect(broken).toEqual([])
})

test('the package ships the README and the docs: guides, reference pages and the picture', { timeout: 60_000 }, async () => {
  const { stdout } = await run('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: ROOT })
  const files = new Set((JSON.parse(stdout) as Array<{ files: Array<{ path: string }> }>)[0]!.files.map((f) => f.path))
  const expected = [...documents(), 'docs/images/checkout-and-inspector.png']
  expect(expected.filter((f) => !files.has(f))).toEqual([])
})
