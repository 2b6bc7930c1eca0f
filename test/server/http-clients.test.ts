import { execFile } from 'node:child_process'
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { gzipSync } from 'node:zlib'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { type Sandbox, startSandbox } from '../../src/index.js'
import { tempDir } from '../helpers.js'

const valid = { merchant: 'sandbox', amount: 1, callbackUrl: 'http://127.0.0.1:9/cb' }

function run(command: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) =>
    execFile(command, args, { timeout: 20_000 }, (error, stdout, stderr) =>
      resolve({ code: error ? ((error.code as number) ?? 1) : 0, stdout, stderr }),
    ),
  )
}

interface CurlAnswer {
  status: number
  headers: Record<string, string>
  body: { result?: number; statusCode?: number; error?: string; message?: string }
}

/** curl as a developer types it; the answer's status line, headers and JSON body. */
async function curl(url: string, args: string[]): Promise<CurlAnswer> {
  const out = await run('curl', ['-sS', '-i', ...args, url])
  expect(out.code, out.stderr).toBe(0)
  const [head = '', ...rest] = out.stdout.split('\r\n\r\n')
  const [statusLine = '', ...lines] = head.split('\r\n')
  const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]))
  const text = rest.join('\r\n\r\n')
  return { status: Number(statusLine.split(' ')[1]), headers, body: text === '' ? {} : (JSON.parse(text) as CurlAnswer['body']) }
}

describe('the spec API as curl and Python urllib call it', () => {
  let sb: Sandbox
  beforeAll(async () => {
    sb = await startSandbox()
  })
  afterAll(() => sb.stop())

  test('curl -d (form type by default) and other types: the 415 names the type sent', async () => {
    const create = `${sb.url}/api/v1/request`
    const cases: Array<[string[], string]> = [
      [['-d', JSON.stringify(valid)], 'application/x-www-form-urlencoded'],
      [['-H', 'Content-Type: text/plain', '-d', JSON.stringify(valid)], 'text/plain'],
      [['-H', 'Content-Type: text/json', '-d', JSON.stringify(valid)], 'text/json'],
      [['-H', 'Content-Type:', '--data-binary', JSON.stringify(valid)], 'none'],
    ]
    for (const [args, type] of cases) {
      const res = await curl(create, args)
      expect(res.status, type).toBe(415)
      expect(res.body).toEqual({ result: 415, statusCode: 415, error: 'unsupported_media_type', message: `Content-Type must be application/json (got ${type})` })
    }
    // The guard's own 415 outside the spec API names it too.
    const reset = await curl(`${sb.url}/_sandbox/reset`, ['-X', 'POST', '-H', 'Content-Type: text/json'])
    expect(reset.status).toBe(415)
    expect(reset.body.message).toMatch(/^Content-Type must be application\/json \(got text\/json\)/)
  })

  test('GET, PUT, DELETE, PATCH, OPTIONS and HEAD on create and verify are 405 with Allow: POST', async () => {
    for (const path of ['/api/v1/request', '/api/v1/verify']) {
      for (const method of ['GET', 'PUT', 'DELETE', 'PATCH', 'OPTIONS']) {
        const res = await curl(`${sb.url}${path}`, ['-X', method, ...(method === 'PUT' ? ['-H', 'Content-Type: text/plain', '-d', 'x'] : [])])
        expect(res.status, `${method} ${path}`).toBe(405)
        expect(res.headers.allow).toBe('POST')
        expect(res.body).toEqual({ result: 405, statusCode: 405, error: 'method_not_allowed', message: `${method} ${path}: the spec API takes POST only, with a JSON body` })
      }
      const head = await curl(`${sb.url}${path}`, ['-I'])
      expect(head.status).toBe(405)
      expect(head.headers.allow).toBe('POST')
    }
  })

  test('a gzip body is refused with 415 naming the encoding; a byte order mark with 400 naming it', async () => {
    const dir = await tempDir()
    const gz = join(dir, 'body.json.gz')
    await writeFile(gz, gzipSync(JSON.stringify(valid)))
    const before = (await sb.client.health()).counts.payments
    const zipped = await curl(`${sb.url}/api/v1/request`, ['-H', 'Content-Type: application/json', '-H', 'Content-Encoding: gzip', '--data-binary', `@${gz}`])
    expect(zipped.status).toBe(415)
    expect(zipped.body).toEqual({
      result: 415,
      statusCode: 415,
      error: 'unsupported_media_type',
      message: 'Content-Encoding gzip is not supported; send the JSON body uncompressed',
    })

    const bom = join(dir, 'bom.json')
    await writeFile(bom, Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(JSON.stringify(valid))]))
    const marked = await curl(`${sb.url}/api/v1/request`, ['-H', 'Content-Type: application/json', '--data-binary', `@${bom}`])
    expect(marked.status).toBe(400)
    expect(marked.body).toMatchObject({ result: 400, error: 'invalid_json' })
    expect(marked.body.message).toContain('byte order mark')
    expect((await sb.client.health()).counts.payments).toBe(before)

    const plain = await curl(`${sb.url}/api/v1/request`, ['-H', 'Content-Type: application/json', '-H', 'Content-Encoding: identity', '--data-binary', JSON.stringify(valid)])
    expect(plain.body).toMatchObject({ result: 100 })
  })

  test('Python urllib sending Latin-1 or UTF-16: refused, never stored as U+FFFD; UTF-8 is stored exactly', async () => {
    const script = String.raw`
import json, sys, urllib.request, urllib.error
base = sys.argv[1]
def post(body, content_type):
    req = urllib.request.Request(base + "/api/v1/request", data=body, headers={"Content-Type": content_type})
    try:
        with urllib.request.urlopen(req) as res:
            return res.status, json.loads(res.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read())
order = {"merchant": "sandbox", "amount": 9.5, "callbackUrl": "http://127.0.0.1:9/cb", "description": "Caf\u00e9 cr\u00e8me"}
text = json.dumps(order, ensure_ascii=False)
print(json.dumps({
    "latin1": post(text.encode("latin-1"), "application/json; charset=latin1"),
    "iso": post(text.encode("latin-1"), "application/json; charset=ISO-8859-1"),
    "undeclared": post(text.encode("latin-1"), "application/json"),
    "utf16": post(text.encode("utf-16"), "application/json; charset=utf-16"),
    "utf8": post(text.encode("utf-8"), "application/json; charset=UTF-8"),
}))
`
    const before = (await sb.client.health()).counts.payments
    const out = await run('python3', ['-c', script, sb.url])
    expect(out.code, out.stderr).toBe(0)
    const answers = JSON.parse(out.stdout) as Record<string, [number, { result: number; error?: string; message?: string; trackId?: string }]>
    for (const [name, charset] of [['latin1', 'latin1'], ['iso', 'iso-8859-1'], ['utf16', 'utf-16']] as const) {
      expect(answers[name]![0], name).toBe(415)
      expect(answers[name]![1]).toMatchObject({ result: 415, error: 'unsupported_media_type' })
      expect(answers[name]![1].message).toContain(`charset ${charset} is not supported`)
    }
    expect(answers.undeclared![0]).toBe(400)
    expect(answers.undeclared![1]).toMatchObject({ result: 400, error: 'invalid_json', message: expect.stringContaining('not valid UTF-8') })
    expect(answers.utf8![1]).toMatchObject({ result: 100 })
    expect((await sb.client.health()).counts.payments).toBe(before + 1)
    const { payment } = await sb.client.getPayment(answers.utf8![1].trackId!)
    expect(payment.description).toBe('Café crème')
    for (const p of await sb.client.listPayments()) expect(p.description ?? '').not.toContain('\ufffd')
  })
})
