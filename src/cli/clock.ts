import chalk from 'chalk'
import type { ClockView } from '../clock/sandbox-clock.js'
import { formatDuration } from '../domain/duration.js'
import { fields, paint, type Styled } from './format.js'

/** The sandbox clock as `pay clock` and its moves print it. */
export function clockFields(clock: ClockView, fired?: number): Styled {
  const state = clock.real
    ? paint(chalk.green, 'real time')
    : clock.holdingUntil !== undefined
      ? paint(chalk.yellow, `standing still until real time reaches ${clock.holdingUntil}`)
      : paint(chalk.yellow, `${formatDuration(clock.aheadMs)} ahead of real time`)
  return fields([
    ['sandbox time', clock.now],
    ['real time', clock.realNow],
    ['clock', state],
    ['fired', fired === undefined ? undefined : `${fired} timer${fired === 1 ? '' : 's'} (retries, expiries, blocks) that became due`],
  ])
}
