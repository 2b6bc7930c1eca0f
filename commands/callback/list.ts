import { Flags } from '@oclif/core'
import { ClientCommand } from '../../src/cli/base.js'
import { deliveryTable } from '../../src/cli/deliveries.js'
import { trackIdFrom } from '../../src/cli/track-id.js'
import type { Delivery } from '../../src/client/index.js'
import { deliveryStates } from '../../src/domain/callback.js'
import { shownDelivery } from '../../src/domain/display.js'
import { FAULT_FORMS } from '../../src/domain/fault.js'

export default class CallbackList extends ClientCommand {
  static override summary = 'List callback deliveries, oldest first'
  static override description = `One row per delivery: a POST of a status change to the payment's callbackUrl, with its retries. STATUS is the payment status the callback reports; STATE is pending (being sent or waiting for a retry), held (a notification held back until the payment's next one), delivered (a 2xx came back), failed (no retries left) or dropped (a fault: never sent). ATTEMPTS is attempts made of those allowed; LAST is the last attempt's HTTP status or error (pay callback show has every attempt). FAULT (shown when any row has one) is the fault the sandbox played on it (${FAULT_FORMS}); \`pay callback show\` says why. At a terminal narrower than the table, URLs and then errors are cut with …; a pipe gets them whole.
--json writes {"deliveries": [...]} with every attempt: the file support engineers receive and replay with \`pay callback replay --file\`. Passwords and tokens in URLs are masked (user:***@) here as everywhere pay shows a URL; \`pay sandbox export\` keeps them.`

  static override examples = [
    '<%= config.bin %> <%= command.id %>',
    '<%= config.bin %> <%= command.id %> --track-id Xq2w7Zb1Vh0Kc9LmN3pR4s',
    '<%= config.bin %> <%= command.id %> --track-id http://127.0.0.1:8787/pay/Xq2w7Zb1Vh0Kc9LmN3pR4s',
    '<%= config.bin %> <%= command.id %> --state failed',
    '<%= config.bin %> <%= command.id %> --track-id Xq2w7Zb1Vh0Kc9LmN3pR4s --json > deliveries.json',
  ]

  static override flags = {
    'track-id': Flags.string({ description: "only this payment's deliveries: its trackId or checkout URL" }),
    state: Flags.string({ description: 'only deliveries in this state', options: deliveryStates }),
    limit: Flags.integer({ description: 'only the newest N', min: 1, max: 100_000 }),
  }

  async run(): Promise<{ deliveries: Delivery[] }> {
    const { flags } = await this.parse(CallbackList)
    const trackId = flags['track-id'] === undefined ? undefined : trackIdFrom(flags['track-id'], '--track-id')
    const recorded = await this.client(flags.url).listDeliveries({
      ...(trackId !== undefined ? { trackId } : {}),
      ...(flags.state !== undefined ? { state: flags.state as Delivery['state'] } : {}),
      ...(flags.limit !== undefined ? { limit: flags.limit } : {}),
    })
    const deliveries = recorded.map(shownDelivery)
    if (deliveries.length === 0) {
      this.log(trackId ? `No callback deliveries for ${trackId}.` : 'No callback deliveries yet.')
    } else {
      this.log(deliveryTable(deliveries))
    }
    return { deliveries }
  }
}
