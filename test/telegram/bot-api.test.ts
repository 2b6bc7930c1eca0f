import { createServer, type IncomingHttpHeaders } from 'node:http'
import QRCode from 'qrcode'
import { afterAll, beforeAll, describe, expect, onTestFinished, test } from 'vitest'
import { type Sandbox, startSandbox } from '../../src/index.js'

let sb: Sandbox
let next = 0
/** A fresh well-formed token per test, so bots never share updates. */
const newToken = () => `${700100 + ++next}:${'Tok3n_secret-0123456789abcdefghijkl'.slice(0, 35)}`

beforeAll(async () => {
  sb = await startSandbox({ telegram: { webhookRetryMs: [50, 100], webhookTimeoutMs: 2000 } })
})
afterAll(async () => {
  await sb?.stop()
})

interface Answer {
  status: number
  body: { ok: boolean; result?: any; error_code?: number; description?: string }
}

async function api(token: string, method: string, params?: Record<string, unknown>, init: { get?: boolean; headers?: Record<string, string> } = {}): Promise<Answer> {
  const query = init.get && params ? `?${new URLSearchParams(Object.entries(params).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)]))}` : ''
  const res = await sb.client.raw({
    method: init.get ? 'GET' : 'POST',
    path: `/telegram/bot${token}/${method}${query}`,
    ...(init.get || params === undefined ? {} : { body: params }),
    ...(init.headers ? { headers: init.headers } : {}),
  })
  return { status: res.status, body: res.json as Answer['body'] }
}

/** A bot with a chat: the simulated customer wrote first, as Telegram requires. */
async function botWithChat(): Promise<{ token: string; chatId: number }> {
  const token = newToken()
  await api(token, 'getMe')
  await sb.client.chatSend({ bot: token.split(':')[0]!, text: 'hello' })
  return { token, chatId: 1000001 }
}

const invalidToken =
  'Unauthorized: invalid token specified; the sandbox takes any token of the form <bot id>:<secret>, the bot id a positive whole number (no leading 0) and the secret 1 to 100 letters, digits, "_" or "-" (e.g. 123456:TEST-token)'
const fail = (status: number, description: string) => ({ status, body: { ok: false, error_code: status, description } })

describe('requests and answers as on api.telegram.org', () => {
  test('getMe by GET and POST, method names in any case; the bot is known by its token', async () => {
    const token = newToken()
    const id = Number(token.split(':')[0])
    const post = await api(token, 'getMe')
    expect(post).toEqual({ status: 200, body: { ok: true, result: expect.objectContaining({ id, is_bot: true, username: `sandbox_${id}_bot` }) } })
    expect((await api(token, 'GETME', {}, { get: true })).body.result.id).toBe(id)
    expect((await api(token, 'getme')).body.ok).toBe(true)
  })

  test.each([
    ['unknown method', (t: string) => `/telegram/bot${t}/sendTelepathy`, fail(404, 'Not Found')],
    ['no bot in the path', () => '/telegram/getMe', fail(404, 'Not Found')],
    ['no colon in the token', () => '/telegram/bot123456/getMe', fail(401, invalidToken)],
    ['token id starting with 0', () => `/telegram/bot0123:${'a'.repeat(35)}/getMe`, fail(401, invalidToken)],
    ['an empty secret', () => '/telegram/bot123456:/getMe', fail(401, invalidToken)],
    ['a secret over 100 characters', () => `/telegram/bot123456:${'a'.repeat(101)}/getMe`, fail(401, invalidToken)],
    ['a secret with other characters', () => '/telegram/bot123456:a.b/getMe', fail(401, invalidToken)],
    ['a bot id past 2^53', () => `/telegram/bot${2 ** 53}:abc/getMe`, fail(401, invalidToken)],
  ])('%s', async (_name, path, expected) => {
    const res = await sb.client.raw({ method: 'POST', path: path(newToken()), body: {} })
    expect({ status: res.status, body: res.json }).toEqual(expected)
  })

  test.each(['700001:TEST-token', '700002:abc', '700003:x', `700004:${'a'.repeat(100)}`, '9007199254740991:A_-9'])(
    'any <bot id>:<secret> token registers its bot: %s',
    async (token) => {
      const me = await api(token, 'getMe')
      expect(me).toEqual({ status: 200, body: { ok: true, result: expect.objectContaining({ id: Number(token.split(':')[0]), is_bot: true }) } })
    },
  )

  test('a known bot id with another secret is Unauthorized (a revoked token), saying why', async () => {
    const token = newToken()
    await api(token, 'getMe')
    const id = token.split(':')[0]
    expect(await api(`${id}:${'Z'.repeat(35)}`, 'getMe')).toEqual(
      fail(401, `Unauthorized: bot ${id} is known to the sandbox by another token (the first one it was used with); use that token, or another bot id`),
    )
  })

  test('a JSON body that is not UTF-8 is a Bad Request, as any unreadable JSON', async () => {
    const res = await fetch(`${sb.url}/telegram/bot${newToken()}/getMe`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: Buffer.from('{"chat_id":"\xff"}', 'latin1'),
    })
    expect({ status: res.status, body: await res.json() }).toEqual(fail(400, "Bad Request: can't parse JSON object"))
  })

  test('telegraf without the trailing slash lands on /bot…: told where the API is', async () => {
    const res = await sb.client.raw({ method: 'POST', path: `/bot${newToken()}/getMe`, body: {} })
    expect(res.status).toBe(404)
    expect((res.json as { description: string }).description).toMatch(/^Not Found: the Bot API is served under \/telegram\//)
  })

  test('form-urlencoded parameters, with reply_markup as a JSON string, as Telegram takes them', async () => {
    const { token, chatId } = await botWithChat()
    const form = new URLSearchParams({
      chat_id: String(chatId),
      text: 'Pick one',
      reply_markup: JSON.stringify({ inline_keyboard: [[{ text: 'Yes', callback_data: 'y' }, { text: 'Docs', url: 'https://example.com/docs' }]] }),
    })
    const res = await sb.client.raw({
      method: 'POST',
      path: `/telegram/bot${token}/sendMessage`,
      body: form.toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    })
    expect(res.status).toBe(200)
    expect((res.json as Answer['body']).result).toMatchObject({
      text: 'Pick one',
      chat: { id: chatId, type: 'private' },
      reply_markup: { inline_keyboard: [[{ text: 'Yes', callback_data: 'y' }, { text: 'Docs', url: 'https://example.com/docs' }]] },
    })
  })

  test('query-string GET sends too; the message is then on the chat', async () => {
    const { token, chatId } = await botWithChat()
    const res = await api(token, 'sendMessage', { chat_id: chatId, text: 'by GET' }, { get: true })
    expect(res.body.result.text).toBe('by GET')
    const { messages } = await sb.client.chatMessages({ bot: token })
    expect(messages.at(-1)).toMatchObject({ from: 'bot', text: 'by GET' })
  })

  test('multipart sendPhoto: an uploaded PNG is kept, served to the chat page and by getFile', async () => {
    const { token, chatId } = await botWithChat()
    const png = await QRCode.toBuffer('https://example.com/pay/abc', { width: 120 })
    const form = new FormData()
    form.set('chat_id', String(chatId))
    form.set('caption', '<b>Scan</b> to pay')
    form.set('parse_mode', 'HTML')
    form.set('reply_markup', JSON.stringify({ inline_keyboard: [[{ text: 'Paid', callback_data: 'paid' }]] }))
    form.set('photo', new Blob([new Uint8Array(png)], { type: 'image/png' }), 'qr.png')
    const res = await fetch(`${sb.url}/telegram/bot${token}/sendPhoto`, { method: 'POST', body: form })
    const body = (await res.json()) as Answer['body']
    expect(res.status).toBe(200)
    const photo = body.result.photo[0]
    expect(photo).toMatchObject({ width: 120, height: 120, file_size: png.length })
    expect(body.result).toMatchObject({ caption: 'Scan to pay', caption_entities: [{ type: 'bold', offset: 0, length: 4 }] })
    const served = await fetch(`${sb.url}/_sandbox/chat/files/${photo.file_id}`)
    expect(served.headers.get('content-type')).toBe('image/png')
    expect(Buffer.from(await served.arrayBuffer()).equals(png)).toBe(true)
    const file = await api(token, 'getFile', { file_id: photo.file_id })
    const download = await fetch(`${sb.url}/telegram/file/bot${token}/${file.body.result.file_path}`)
    expect(Buffer.from(await download.arrayBuffer()).equals(png)).toBe(true)
    // Sending the same file_id again reuses it.
    const again = await api(token, 'sendPhoto', { chat_id: chatId, photo: photo.file_id })
    expect(again.body.result.photo[0].file_id).toBe(photo.file_id)
  })

  test('an upload that is not a picture, or over 10 MB, is refused as Telegram does', async () => {
    const { token, chatId } = await botWithChat()
    const form = new FormData()
    form.set('chat_id', String(chatId))
    form.set('photo', new Blob([new TextEncoder().encode('not an image')]), 'x.jpg')
    const res = await fetch(`${sb.url}/telegram/bot${token}/sendPhoto`, { method: 'POST', body: form })
    expect({ status: res.status, body: await res.json() }).toEqual(fail(400, 'Bad Request: IMAGE_PROCESS_FAILED'))
    const big = new FormData()
    big.set('chat_id', String(chatId))
    big.set('photo', new Blob([new Uint8Array(10 * 1024 * 1024 + 1)]), 'big.jpg')
    const tooBig = await fetch(`${sb.url}/telegram/bot${token}/sendPhoto`, { method: 'POST', body: big })
    expect({ status: tooBig.status, body: await tooBig.json() }).toEqual(fail(413, 'Request Entity Too Large'))
  })
})

describe('refusals in Telegram wording', () => {
  test.each([
    [{ text: 'x' }, 'Bad Request: chat_id is empty'],
    [{ chat_id: 424242, text: 'x' }, 'Bad Request: chat not found'],
    [{ chat_id: '@someone', text: 'x' }, 'Bad Request: chat not found'],
    [{ chat_id: 1000001 }, 'Bad Request: message text is empty'],
    [{ chat_id: 1000001, text: '   ' }, 'Bad Request: message must be non-empty'],
    [{ chat_id: 1000001, text: 'x'.repeat(4097) }, 'Bad Request: message is too long'],
    [{ chat_id: 1000001, text: 'Total: 25.50', parse_mode: 'MarkdownV2' }, "Bad Request: can't parse entities: Character '.' is reserved and must be escaped with the preceding '\\'"],
    [{ chat_id: 1000001, text: '*bold', parse_mode: 'MarkdownV2' }, "Bad Request: can't parse entities: Can't find end of Bold entity at byte offset 0"],
    [{ chat_id: 1000001, text: 'a<br>b', parse_mode: 'HTML' }, 'Bad Request: can\'t parse entities: Unsupported start tag "br" at byte offset 1'],
    [{ chat_id: 1000001, text: '<b>x</i>', parse_mode: 'HTML' }, 'Bad Request: can\'t parse entities: Unmatched end tag at byte offset 4, expected "</b>", found "</i>"'],
    [{ chat_id: 1000001, text: '<b>x', parse_mode: 'HTML' }, 'Bad Request: can\'t parse entities: Can\'t find end tag corresponding to start tag "b"'],
    [{ chat_id: 1000001, text: 'x', parse_mode: 'Textile' }, 'Bad Request: unsupported parse_mode'],
    [{ chat_id: 1000001, text: 'x', reply_markup: '{nope' }, "Bad Request: can't parse reply keyboard markup JSON object"],
    [{ chat_id: 1000001, text: 'x', reply_markup: { inline_keyboard: [[{ text: 'plain' }]] } }, "Bad Request: can't parse inline keyboard button: Text buttons are unallowed in the inline keyboard"],
    [{ chat_id: 1000001, text: 'x', reply_markup: { inline_keyboard: [[{ url: 'https://a.example' }]] } }, 'Bad Request: can\'t parse inline keyboard button: Can\'t find field "text"'],
    [{ chat_id: 1000001, text: 'x', reply_markup: { inline_keyboard: [{ text: 'a' }] } }, 'Bad Request: field "inline_keyboard" of the InlineKeyboardMarkup must be an Array of Arrays'],
    [{ chat_id: 1000001, text: 'x', reply_markup: { inline_keyboard: [[{ text: 'Pay', url: 'http://127.0.0.1:8787/pay/x' }]] } }, "Bad Request: inline keyboard button URL 'http://127.0.0.1:8787/pay/x' is invalid: Wrong HTTP URL"],
    [{ chat_id: 1000001, text: 'x', reply_markup: { inline_keyboard: [[{ text: 'Pay', url: 'http://localhost:8787/pay/x' }]] } }, "Bad Request: inline keyboard button URL 'http://localhost:8787/pay/x' is invalid: Wrong HTTP URL"],
    [{ chat_id: 1000001, text: 'x', reply_markup: { inline_keyboard: [[{ text: 'Run', url: 'javascript:alert(1)' }]] } }, "Bad Request: inline keyboard button URL 'javascript:alert(1)' is invalid: Unsupported URL protocol"],
    [{ chat_id: 1000001, text: 'x', reply_markup: { inline_keyboard: [[{ text: 'Go', callback_data: 'd'.repeat(65) }]] } }, 'Bad Request: BUTTON_DATA_INVALID'],
  ])('sendMessage %j → %s', async (params, description) => {
    const { token } = await botWithChat()
    expect(await api(token, 'sendMessage', params)).toEqual(fail(400, description))
  })

  test('edits and deletes of what does not exist, and answers to unknown callback queries', async () => {
    const { token, chatId } = await botWithChat()
    const sent = (await api(token, 'sendMessage', { chat_id: chatId, text: 'v1' })).body.result
    expect(await api(token, 'editMessageText', { chat_id: chatId, message_id: 999, text: 'v2' })).toEqual(fail(400, 'Bad Request: message to edit not found'))
    expect(await api(token, 'editMessageText', { chat_id: chatId, message_id: 1, text: 'v2' })).toEqual(fail(400, "Bad Request: message can't be edited"))
    expect(await api(token, 'editMessageText', { chat_id: chatId, message_id: sent.message_id, text: 'v1' })).toEqual(
      fail(400, 'Bad Request: message is not modified: specified new message content and reply markup are exactly the same as a current content and reply markup of the message'),
    )
    const edited = await api(token, 'editMessageText', { chat_id: chatId, message_id: sent.message_id, text: 'v2' })
    expect(edited.body.result).toMatchObject({ message_id: sent.message_id, text: 'v2', edit_date: expect.any(Number) })
    expect((await api(token, 'deleteMessage', { chat_id: chatId, message_id: sent.message_id })).body).toEqual({ ok: true, result: true })
    expect(await api(token, 'deleteMessage', { chat_id: chatId, message_id: sent.message_id })).toEqual(fail(400, 'Bad Request: message to delete not found'))
    expect(await api(token, 'answerCallbackQuery', { callback_query_id: '12345' })).toEqual(
      fail(400, 'Bad Request: query is too old and response timeout expired or query ID is invalid'),
    )
    expect(await api(token, 'sendChatAction', { chat_id: chatId, action: 'dancing' })).toEqual(fail(400, 'Bad Request: wrong parameter action in request'))
  })
})

describe('updates', () => {
  test('a second long poll ends the waiting one with 409, and gets the update itself', async () => {
    const token = newToken()
    const first = api(token, 'getUpdates', { timeout: 5 })
    await new Promise((r) => setTimeout(r, 100))
    const second = api(token, 'getUpdates', { timeout: 5 })
    expect(await first).toEqual(fail(409, 'Conflict: terminated by other getUpdates request; make sure that only one bot instance is running'))
    await sb.client.chatSend({ bot: token, text: '/start' })
    const got = await second
    expect(got.body.result).toEqual([
      { update_id: expect.any(Number), message: expect.objectContaining({ text: '/start', entities: [{ type: 'bot_command', offset: 0, length: 6 }] }) },
    ])
    // Confirmed by the next offset: not handed out again.
    const offset = got.body.result[0].update_id + 1
    expect((await api(token, 'getUpdates', { offset })).body.result).toEqual([])
  })

  test('allowed_updates leaves out the types a bot did not ask for', async () => {
    const token = newToken()
    await api(token, 'getUpdates', { allowed_updates: ['callback_query'] })
    await sb.client.chatSend({ bot: token, text: 'not for you' })
    expect((await api(token, 'getUpdates')).body.result).toEqual([])
  })

  test('webhook: getUpdates is a conflict; updates are POSTed with the secret, retried, and reported in getWebhookInfo', async () => {
    const token = newToken()
    const received: Array<{ headers: IncomingHttpHeaders; body: any }> = []
    let failuresLeft = 1
    const receiver = createServer((req, res) => {
      let text = ''
      req.on('data', (c: Buffer) => (text += c))
      req.on('end', () => {
        received.push({ headers: req.headers, body: JSON.parse(text) })
        if (failuresLeft-- > 0) return void res.writeHead(500, 'Internal Server Error').end()
        res.writeHead(200).end()
      })
    })
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r))
    onTestFinished(() => new Promise<void>((r) => receiver.close(() => r())))
    const url = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/hook`

    expect((await api(token, 'setWebhook', { url, secret_token: 'S3cret_-x' })).body).toEqual({ ok: true, result: true, description: 'Webhook was set' })
    expect(await api(token, 'getUpdates')).toEqual(
      fail(409, "Conflict: can't use getUpdates method while webhook is active; use deleteWebhook to delete the webhook first"),
    )
    await sb.client.chatSend({ bot: token, text: 'hi' })
    await expect.poll(() => received.length, { timeout: 5000 }).toBe(2)
    expect(received[0]!.headers['x-telegram-bot-api-secret-token']).toBe('S3cret_-x')
    expect(received[1]!.body).toEqual(received[0]!.body)
    expect(received[0]!.body.message.text).toBe('hi')
    await expect.poll(async () => (await api(token, 'getWebhookInfo')).body.result.pending_update_count).toBe(0)
    const info = (await api(token, 'getWebhookInfo')).body.result
    expect(info).toMatchObject({ url, max_connections: 40, last_error_message: 'Wrong response from the webhook: 500 Internal Server Error', last_error_date: expect.any(Number) })

    // A webhook nobody answers: the update waits, counted, until it is dropped.
    await new Promise<void>((r) => receiver.close(() => r()))
    await sb.client.chatSend({ bot: token, text: 'anyone?' })
    await expect.poll(async () => (await api(token, 'getWebhookInfo')).body.result.last_error_message, { timeout: 5000 }).toBe('Connection refused')
    expect((await api(token, 'getWebhookInfo')).body.result.pending_update_count).toBe(1)
    expect((await api(token, 'deleteWebhook', { drop_pending_updates: true })).body).toEqual({ ok: true, result: true, description: 'Webhook was deleted' })
    expect((await api(token, 'getWebhookInfo')).body.result).toEqual({ url: '', has_custom_certificate: false, pending_update_count: 0 })
  })

  test('setWebhook refuses a bad secret token or URL in Telegram wording', async () => {
    const token = newToken()
    expect(await api(token, 'setWebhook', { url: 'http://127.0.0.1:1/x', secret_token: 'has space' })).toEqual(fail(400, 'Bad Request: secret token contains unallowed characters'))
    expect(await api(token, 'setWebhook', { url: 'ftp://example.com' })).toEqual(fail(400, 'Bad Request: invalid webhook URL specified'))
  })
})

describe('who may call /telegram', () => {
  test('a web page cannot post a form to it, or reach it with an <img>; a bot server (no Origin) can', async () => {
    const token = newToken()
    const form = { 'content-type': 'application/x-www-form-urlencoded' }
    const fromPage = await sb.client.raw({ method: 'POST', path: `/telegram/bot${token}/getMe`, body: 'a=1', headers: { ...form, origin: 'http://evil.example' } })
    expect(fromPage.status).toBe(403)
    const image = await sb.client.raw({ method: 'GET', path: `/telegram/bot${token}/getMe`, headers: { 'sec-fetch-site': 'cross-site' } })
    expect(image.status).toBe(403)
    expect((await sb.client.raw({ method: 'POST', path: `/telegram/bot${token}/getMe`, body: 'a=1', headers: form })).status).toBe(200)
  })
})

describe('durable', () => {
  test('chats, messages and pending updates survive a restart; update ids keep growing', async () => {
    const { tempDir } = await import('../helpers.js')
    const dataFile = `${await tempDir()}/data.json`
    const token = newToken()
    let one = await startSandbox({ dataFile })
    try {
      await one.client.raw({ method: 'POST', path: `/telegram/bot${token}/getMe`, body: {} })
      await one.client.chatSend({ bot: token, text: 'first' })
      await one.client.chatSend({ bot: token, text: 'second' })
      const updates = ((await one.client.raw({ method: 'POST', path: `/telegram/bot${token}/getUpdates`, body: {} })).json as Answer['body']).result
      const last = updates.at(-1).update_id
      await one.client.raw({ method: 'POST', path: `/telegram/bot${token}/getUpdates`, body: { offset: last + 1 } })
    } finally {
      await one.stop()
    }
    one = await startSandbox({ dataFile })
    try {
      expect((await one.client.chatMessages({ bot: token })).messages.map((m) => m.text)).toEqual(['first', 'second'])
      await one.client.chatSend({ bot: token, text: 'third' })
      const after = ((await one.client.raw({ method: 'POST', path: `/telegram/bot${token}/getUpdates`, body: {} })).json as Answer['body']).result
      expect(after).toHaveLength(1)
      expect(after[0].update_id).toBe(3)
      expect(after[0].message.message_id).toBe(3)
    } finally {
      await one.stop()
    }
  })
})
