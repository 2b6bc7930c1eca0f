import { describe, expect, test } from 'vitest'
import { formatText } from '../../src/telegram/entities.js'
import { parseHtml } from '../../src/telegram/entities-html.js'
import { parseMarkdownV2 } from '../../src/telegram/entities-markdown.js'
import { renderFormatted } from '../../src/telegram/render.js'

describe('MarkdownV2, as Telegram parses it', () => {
  test.each([
    ['*bold* _italic_ __under__ ~strike~ ||spoiler||', 'bold italic under strike spoiler', [
      { type: 'bold', offset: 0, length: 4 }, { type: 'italic', offset: 5, length: 6 }, { type: 'underline', offset: 12, length: 5 },
      { type: 'strikethrough', offset: 18, length: 6 }, { type: 'spoiler', offset: 25, length: 7 }]],
    ['[site](https://example.com/a\\)b)', 'site', [{ type: 'text_link', offset: 0, length: 4, url: 'https://example.com/a)b' }]],
    ['`code` ```js\nlet x\n```', 'code let x\n', [{ type: 'code', offset: 0, length: 4 }, { type: 'pre', offset: 5, length: 6, language: 'js' }]],
    ['Price 25\\.50 \\- done\\!', 'Price 25.50 - done!', []],
    ['🎉 *x*', '🎉 x', [{ type: 'bold', offset: 3, length: 1 }]],
    ['>quote\n>more\nafter', 'quote\nmore\nafter', [{ type: 'blockquote', offset: 0, length: 10 }]],
  ])('%j', (input, text, entities) => {
    expect(parseMarkdownV2(input)).toEqual({ text, entities })
  })

  test.each([
    ['a.b', "Character '.' is reserved and must be escaped with the preceding '\\'"],
    ['x *y', "Can't find end of Bold entity at byte offset 2"],
    ['é _y', "Can't find end of Italic entity at byte offset 3"],
    ['[a](http://x', "Can't find end of a URL at byte offset 4"],
    ['a|b', "Character '|' is reserved and must be escaped with the preceding '\\'"],
  ])('%j is refused: %s', (input, message) => {
    expect(() => parseMarkdownV2(input)).toThrow(message)
  })
})

describe('HTML, as Telegram parses it', () => {
  test.each([
    ['<b>b</b> <strong>s</strong> <i>i</i> <u>u</u> <s>x</s> <tg-spoiler>p</tg-spoiler>', 'b s i u x p', ['bold', 'bold', 'italic', 'underline', 'strikethrough', 'spoiler']],
    ['&lt;tag&gt; &amp; &quot; &#128512; &#x41; &unknown;', '<tag> & " 😀 A &unknown;', []],
    ['<a href="https://e.com/?a=1&amp;b=2">go</a>', 'go', ['text_link']],
    ['<pre><code class="language-ts">let x</code></pre>', 'let x', ['pre']],
    ['<a href="javascript:alert(1)">x</a>', 'x', []],
  ])('%j', (input, text, types) => {
    const parsed = parseHtml(input)
    expect(parsed.text).toBe(text)
    expect(parsed.entities.map((e) => e.type)).toEqual(types)
  })

  test.each([
    ['<span>x</span>', 'Tag "span" must have class "tg-spoiler" at byte offset 0'],
    ['x</b>', 'Unexpected end tag at byte offset 1'],
    ['<b', 'Unclosed start tag at byte offset 0'],
    ['é<p>', 'Unsupported start tag "p" at byte offset 2'],
  ])('%j is refused: %s', (input, message) => {
    expect(() => parseHtml(input)).toThrow(message)
  })
})

describe('plain text', () => {
  test('commands, mentions, hashtags, URLs and e-mail are found; the text is trimmed', () => {
    const f = formatText('  /buy@shop_bot now, see https://ex.com/a?b=1. #deal @someone_here mail me@ex.com\n')
    expect(f.text.startsWith('/buy@shop_bot')).toBe(true)
    expect(f.entities.map((e) => [e.type, f.text.slice(e.offset, e.offset + e.length)])).toEqual([
      ['bot_command', '/buy@shop_bot'],
      ['url', 'https://ex.com/a?b=1'],
      ['hashtag', '#deal'],
      ['mention', '@someone_here'],
      ['email', 'me@ex.com'],
    ])
  })
})

describe('drawing entities on the page', () => {
  test('crossing entities nest well; text is escaped; unsafe links are not links', () => {
    const out = renderFormatted('<b>hi</b> there', [
      { type: 'bold', offset: 0, length: 11 },
      { type: 'italic', offset: 5, length: 10 },
      { type: 'text_link', offset: 0, length: 3, url: 'javascript:alert(1)' },
      { type: 'code', offset: 99, length: 2 },
    ]).value
    expect(out).toBe('<strong>&lt;b&gt;</strong><strong>hi</strong><strong><em>&lt;/b&gt; t</em></strong><em>here</em>')
  })
})
