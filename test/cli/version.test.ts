import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { expect, test } from 'vitest'
import { pay, ROOT } from '../helpers.js'

const { version } = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as { version: string }

test('pay version, pay -v and pay --version print the same line and exit 0', async () => {
  const expected = `pay-sandbox/${version} ${process.platform}-${process.arch} node-${process.version}\n`
  for (const args of [['version'], ['-v'], ['--version']]) {
    const r = await pay(args)
    expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(0)
    expect(r.stdout).toBe(expected)
    expect(r.stderr).toBe('')
  }
})

test('pay version --json: the version, the Node.js version and the platform as one object', async () => {
  const r = await pay(['version', '--json'])
  expect(r.code).toBe(0)
  expect(JSON.parse(r.stdout)).toEqual({ version, node: process.versions.node, platform: `${process.platform}-${process.arch}` })
  expect(r.stderr).toBe('')
})

test('words after version are refused as for any command that takes none', async () => {
  const r = await pay(['version', 'extra'])
  expect(r.code).toBe(2)
  expect(r.stderr).toContain('unexpected argument extra: pay version takes none')
})
