import { join } from 'node:path'
import { Help } from '@oclif/core'
import { GUIDES, guideFile } from '../guides.js'
import { PACKAGE_ROOT } from '../version.js'

/** oclif's help, with the guides after the root help's list of commands. */
export default class PayHelp extends Help {
  protected override async showRootHelp(): Promise<void> {
    await super.showRootHelp()
    const where = PACKAGE_ROOT !== undefined ? join(PACKAGE_ROOT, 'docs') : 'the docs folder of the pay-sandbox package'
    this.log(this.section('GUIDES', GUIDES.map((g): [string, string] => [g.title, guideFile(g.name)])))
    this.log(this.indent(this.wrap(`The files are in ${where}. A running sandbox serves each at /guides/<name>, and its home page (pay dashboard) links them.`)))
    this.log('')
  }
}
