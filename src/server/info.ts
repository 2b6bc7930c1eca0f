/** What the sandbox says about itself on /_sandbox/health and at start. */
export interface SandboxInfo {
  name: 'pay-sandbox'
  version: string
  url: string
  /** Where customers and bots reach it (`--public-url`): checkout URLs start with it. Absent: `url`. */
  publicUrl?: string
  /** The Bot API emulator takes URL buttons to local addresses (`--telegram-allow-local-urls`). */
  telegramAllowLocalUrls?: true
  dataFile: string
  pid: number
  startedAt: string
}
