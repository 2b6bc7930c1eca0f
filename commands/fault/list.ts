import { ClientCommand } from '../../src/cli/base.js'
import { faultTable } from '../../src/cli/fault.js'
import type { FaultRule } from '../../src/client/index.js'

export default class FaultList extends ClientCommand {
  static override summary = 'List the API fault rules and what each has played'
  static override description = 'Oldest first: id, route, fault, scope, faults played so far (of --times; a spent rule plays no more), and where it came from (api: pay fault add, scripts, pages, scenarios; start: pay sandbox start --api-fault).'
  static override examples = ['<%= config.bin %> <%= command.id %>', '<%= config.bin %> <%= command.id %> --json']

  async run(): Promise<{ faults: FaultRule[] }> {
    const { flags } = await this.parse(FaultList)
    const faults = await this.client(flags.url).listFaults()
    this.log(faults.length === 0 ? 'No fault rules: every request gets its real answer (pay fault add makes one).' : faultTable(faults))
    return { faults }
  }
}
