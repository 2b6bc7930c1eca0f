/** What the sandbox says about itself on /_sandbox/health and at start. */
export interface SandboxInfo {
  name: 'pay-sandbox'
  version: string
  url: string
  dataFile: string
  pid: number
  startedAt: string
}
