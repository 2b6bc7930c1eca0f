import chalk from 'chalk'
import { Flags } from '@oclif/core'
import type { ChatMessage } from '../client/index.js'
import { inert } from '../domain/display.js'
import { lines, paint, Styled } from './format.js'

/** `--bot` and `--chat` of the chat commands. */
export const chatFlags = {
  bot: Flags.string({ description: 'the bot: its token, @username or id (default: the only bot)', env: 'PAY_CHAT_BOT' }),
  chat: Flags.integer({ description: 'the chat: the simulated customer\'s id', env: 'PAY_CHAT_ID', min: 1, default: 1000001 }),
}

/** The buttons under a bot message, one row per line: `[Pay ↗ https://…] [Cancel]`. */
function buttons(m: ChatMessage): Styled[] {
  const markup = m.replyMarkup
  if (!markup) return []
  if ('inline_keyboard' in markup) {
    return markup.inline_keyboard.map(
      (row) =>
        new Styled(
          `      ${row
            .map((b) => {
              const url = 'url' in b && b.url ? ` ↗ ${inert(b.url)}` : ''
              return chalk.cyan(`[${inert(b.text)}${url}]`)
            })
            .join(' ')}`,
        ),
    )
  }
  if ('keyboard' in markup) {
    return markup.keyboard.map((row) => new Styled(`      ${row.map((b) => chalk.yellow(`‹${inert(typeof b === 'string' ? b : b.text)}›`)).join(' ')}`))
  }
  return []
}

/** One message as the terminal shows it: a header line, its text (lines kept, controls written out), its buttons. */
export function messageLines(m: ChatMessage): Styled {
  const who = m.from === 'bot' ? paint(chalk.green, 'bot ') : paint(chalk.blue, 'you ')
  const time = new Date(m.date * 1000).toISOString().slice(11, 19)
  const photo = m.photo?.at(-1)
  const body = m.text ?? m.caption ?? ''
  const text = inert(body, { multiline: true })
    .split('\n')
    .map((l) => `      ${l}`)
    .join('\n')
  const head = new Styled(
    `${chalk.dim(`#${m.messageId}`.padEnd(5))} ${who.text} ${chalk.dim(time)}${m.editDate !== undefined ? chalk.dim(' (edited)') : ''}${
      photo ? chalk.magenta(` [photo ${photo.width}×${photo.height}]`) : ''
    }`,
  )
  return lines([head, ...(body !== '' ? [new Styled(text)] : []), ...buttons(m)])
}
