import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { onTestFinished } from 'vitest'
import { BIN, ROOT } from '../helpers.js'

const run = promisify(execFile)

/**
 * `pay` in a real pseudo-terminal: a tmux session on its own server, so the pane's environment is ours and
 * CI is unset. Returns helpers to type and to read the screen; the session is killed when the test ends.
 */
export async function terminal(args: string[], env: Record<string, string> = {}, size: { columns: number; rows: number } = { columns: 160, rows: 40 }) {
  const socket = `pay-test-${process.pid}-${Math.random().toString(36).slice(2, 8)}`
  const tmux = (...a: string[]) => run('tmux', ['-L', socket, ...a], { cwd: ROOT })
  const quoted = [process.execPath, BIN, ...args].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ')
  const vars = Object.entries({ NO_COLOR: '1', ...env }).map(([k, v]) => `${k}='${v}'`).join(' ')
  // The pane stays after the command exits so its last screen and exit code can be read.
  await tmux('new-session', '-d', '-x', String(size.columns), '-y', String(size.rows), '-s', 'pay', `env -u CI ${vars} ${quoted}; echo "[exit $?]"; sleep 30`)
  onTestFinished(async () => {
    await tmux('kill-server').catch(() => {})
  })
  const screen = async () => (await tmux('capture-pane', '-p', '-t', 'pay')).stdout
  return {
    screen,
    type: async (keys: string) => void (await tmux('send-keys', '-t', 'pay', keys)),
    enter: async () => void (await tmux('send-keys', '-t', 'pay', 'Enter')),
    /** Waits until the screen matches. */
    waitFor: async (pattern: RegExp, timeoutMs = 15_000): Promise<string> => {
      const deadline = Date.now() + timeoutMs
      for (;;) {
        const text = await screen()
        if (pattern.test(text)) return text
        if (Date.now() > deadline) throw new Error(`screen never matched ${pattern}:\n${text}`)
        await new Promise((r) => setTimeout(r, 100))
      }
    },
  }
}

