import { PayCommand } from '../src/cli/base.js'

export interface VersionResult {
  version: string
  /** The Node.js version running pay. */
  node: string
  /** `linux-x64`, `darwin-arm64`, `win32-x64`. */
  platform: string
}

export default class Version extends PayCommand {
  static override summary = 'Print the version of pay (the same as pay --version and pay -v)'
  static override description = 'With --json: the version, the Node.js version and the platform, as an object.'
  static override examples = ['<%= config.bin %> <%= command.id %>', '<%= config.bin %> <%= command.id %> --json']

  async run(): Promise<VersionResult> {
    await this.parse(Version)
    this.log(this.config.userAgent)
    return { version: this.config.version, node: process.versions.node, platform: `${this.config.platform}-${this.config.arch}` }
  }
}
