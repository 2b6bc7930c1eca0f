import { describe, expect, test } from 'vitest'
import { pay } from '../helpers.js'
import { terminal } from './tty.js'

describe('a mistyped topic is answered with the closest topic, as a mistyped command is', () => {
  test.each([
    [['paymnt'], 'paymnt is not a pay command; did you mean pay payment?'],
    [['sandbx'], 'sandbx is not a pay command; did you mean pay sandbox?'],
    [['calback'], 'calback is not a pay command; did you mean pay callback?'],
    [['paymnt', 'creat'], 'paymnt creat is not a pay command; did you mean pay payment create?'],
    [['sandbx', 'start'], 'sandbx start is not a pay command; did you mean pay sandbox start?'],
    [['triger'], 'triger is not a pay command; did you mean pay trigger?'],
  ])('not at a terminal: pay %j exits 127 naming it', async (args, message) => {
    const r = await pay(args)
    expect(r.code).toBe(127)
    expect(r.stderr).toContain(`Error: ${message}`)
    expect(r.stdout).toBe('')
    const json = await pay([...args, '--json'])
    expect(JSON.parse(json.stdout)).toEqual({ error: { code: 'unknown_command', message, exit: 127 } })
  })

  test('a name close to nothing suggests nothing', async () => {
    const r = await pay(['nosuch'])
    expect(r.code).toBe(127)
    expect(r.stderr).toContain('Error: nosuch is not a pay command\n')
  })

  test('at a terminal, pay paymnt offers pay payment; yes lists the topic\'s commands', async () => {
    const tty = await terminal(['paymnt'])
    await tty.waitFor(/Did you mean payment\?/)
    await tty.type('y')
    await tty.enter()
    const done = await tty.waitFor(/\[exit \d+\]/)
    expect(done).toContain('[exit 0]')
    expect(done).toMatch(/payment create\s+Create a payment/)
  })

  test('at a terminal, no leaves it at exit 127', async () => {
    const tty = await terminal(['paymnt'])
    await tty.waitFor(/Did you mean payment\?/)
    await tty.type('n')
    await tty.enter()
    const done = await tty.waitFor(/\[exit \d+\]/)
    expect(done).toContain('[exit 127]')
    expect(done).toContain('pay help lists every command')
  })
})
