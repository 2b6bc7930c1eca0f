import { Flags } from '@oclif/core'
import { CALLBACK_MODE_RULE, parseCallbackMode, type CallbackMode } from '../domain/fault.js'
import { usage } from './usage.js'

/** `--callback <mode>`: the fault to play on the notification of the change a command makes (`payment simulate`, `trigger`). */
export function callbackModeFlag() {
  return Flags.string({
    description: `what the sandbox does with this change's notification: ${CALLBACK_MODE_RULE} [default: the sandbox's --callback-mode]`,
  })
}

/** The mode `--callback` names (none when not given), or a usage error saying what it allows. */
export function callbackModeOf(text: string | undefined): CallbackMode | undefined {
  if (text === undefined) return undefined
  const parsed = parseCallbackMode(text)
  if ('problem' in parsed) throw usage(`--callback: ${parsed.problem}`)
  return parsed.mode
}
