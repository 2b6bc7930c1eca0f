import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { existsSync } from 'node:fs'
import { describe, expect, test } from 'vitest'
import { GUIDES, guideFile } from '../../src/guides.js'
import { pay, ROOT } from '../helpers.js'

const manifest = JSON.parse(await readFile(join(ROOT, 'oclif.manifest.json'), 'utf8')) as { commands: Record<string, { flags: Record<string, unknown> }> }
const ids = Object.keys(manifest.commands).sort()

describe('pay help', () => {
  test('lists the topics and commands, which every "run pay help" message points to', async () => {
    const r = await pay(['help'])
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toMatch(/^USAGE\n\s+\$ pay \[COMMAND\]$/m)
    for (const topic of ['sandbox', 'payment', 'merchant', 'callback', 'scenario']) expect(r.stdout).toMatch(new RegExp(`^\\s+${topic}\\s`, 'm'))
    expect(r.stderr).toBe('')
  })

  test('the root help ends with the guides, by title and file, in the package that runs', async () => {
    for (const args of [['help'], ['--help'], []]) {
      const r = await pay(args)
      expect(r.code, r.stderr).toBe(0)
      const guides = r.stdout.split('\nGUIDES\n')[1]
      expect(guides, `pay ${args.join(' ')}`).toBeDefined()
      for (const g of GUIDES) {
        expect(guides).toMatch(new RegExp(`^  ${g.title}\\s+${guideFile(g.name)}$`, 'm'))
        expect(existsSync(join(ROOT, guideFile(g.name))), g.name).toBe(true)
      }
      expect(guides!.replace(/\s+/g, ' ')).toContain(`The files are in ${join(ROOT, 'docs')}.`)
    }
    // A topic's help is the topic's alone.
    expect((await pay(['help', 'payment'])).stdout).not.toContain('GUIDES')
  })

  test('pay help <topic> lists its commands; pay help <topic> <command> shows the flags and examples', async () => {
    const topic = await pay(['help', 'payment'])
    expect(topic.code).toBe(0)
    for (const verb of ['create', 'list', 'show', 'simulate', 'verify', 'wait']) expect(topic.stdout).toContain(`payment ${verb}`)
    const command = await pay(['help', 'payment', 'simulate'])
    expect(command.code).toBe(0)
    expect(command.stdout).toContain('$ pay payment simulate TRACKID')
    expect(command.stdout).toMatch(/--outcome=<option>/)
    expect(command.stdout).toContain('<options: paid|unfinalized|failed|expired>')
    expect(command.stdout).toContain('<options: BTC|ETH|USDT-TRC20|LTC|TRX>')
    expect(command.stdout).toContain('pay payment simulate Xq2w7Zb1Vh0Kc9LmN3pR4s --outcome paid')
  })

  test('an unknown subject is a usage error naming the closest command', async () => {
    const r = await pay(['help', 'paymnt', 'creat', '--json'])
    expect(r.code).toBe(2)
    expect(JSON.parse(r.stdout)).toEqual({
      error: { code: 'usage', message: 'paymnt creat is not a pay command or topic; did you mean pay help payment create?', exit: 2 },
    })
    expect(r.stderr).toContain('paymnt creat is not a pay command or topic')
  })

  test('--json: one command with its flags, allowed values and examples', async () => {
    const r = await pay(['help', 'payment', 'wait', '--json'])
    expect(r.code).toBe(0)
    const help = JSON.parse(r.stdout) as { command: string; flags: Array<{ name: string; options?: string[] }>; examples: string[] }
    expect(help.command).toBe('pay payment wait')
    expect(help.flags).toContainEqual(expect.objectContaining({ name: '--status', options: ['pending', 'unfinalized', 'paid', 'failed', 'expired'] }))
    expect(help.examples[0]).toMatch(/^pay payment wait /)
  })
})

describe('-h and --help on every command', () => {
  test.each(ids)('pay %s -h', async (id) => {
    const words = id.split(':')
    const [short, long] = await Promise.all([pay([...words, '-h']), pay([...words, '--help'])])
    expect(short.code, short.stderr).toBe(0)
    expect(short.stderr).toBe('')
    // oclif reads `pay help -h` as `pay help`: the list of commands.
    expect(short.stdout).toContain(id === 'help' ? '$ pay [COMMAND]' : `$ pay ${words.join(' ')}`)
    if (id !== 'help') expect(short.stdout).toContain('EXAMPLES')
    expect(long.stdout).toBe(short.stdout)
  })
})
