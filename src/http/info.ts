import type { SandboxSettings } from '../domain/settings.js'

/** What the sandbox says about itself on /_sandbox/health and at start. */
export interface SandboxInfo {
  name: 'pay-sandbox'
  version: string
  url: string
  dataFile: string
  pid: number
  startedAt: string
  /** What it runs with (sandboxes of this version and later). */
  settings?: SandboxSettings
}
