import { Args } from '@oclif/core'
import { ClientCommand } from '../../src/cli/base.js'
import { deliveryDetails } from '../../src/cli/deliveries.js'
import type { Delivery } from '../../src/client/index.js'
import { shownDelivery } from '../../src/domain/display.js'

export default class CallbackShow extends ClientCommand {
  static override summary = 'Show one callback delivery: the request sent and every attempt'
  static override description =
    'Prints the URL, headers and JSON body sent, then each attempt with its time, HTTP status or error, duration and the start of the response body (at most 2 KB is kept).'

  static override examples = [
    '<%= config.bin %> <%= command.id %> dlv_3cosjY6QVuE1',
    '<%= config.bin %> <%= command.id %> dlv_3cosjY6QVuE1 --json',
  ]

  static override args = {
    deliveryId: Args.string({ description: 'delivery id (dlv_…), from pay callback list', required: true, ignoreStdin: true }),
  }

  async run(): Promise<{ delivery: Delivery }> {
    const { args, flags } = await this.parse(CallbackShow)
    const delivery = shownDelivery(await this.client(flags.url).getDelivery(args.deliveryId))
    this.log(deliveryDetails(delivery))
    return { delivery }
  }
}
