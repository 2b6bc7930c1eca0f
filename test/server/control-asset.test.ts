import { expect, test } from 'vitest'
import { sandbox } from '../helpers.js'

const ALLOWED = 'asset must be one of BTC, ETH, USDT-TRC20, LTC, TRX'

test.each([
  ['DOGE', `${ALLOWED} (got "DOGE")`],
  ['btc', `${ALLOWED} (got "btc")`],
  ['', `${ALLOWED} (got "")`],
  ['X'.repeat(5000), `${ALLOWED} (got "${'X'.repeat(56)}…)`],
])('the control API refuses asset %s with 400 invalid_field naming the allowed assets, and nothing changes', async (asset, message) => {
  const sb = await sandbox()
  const created = await sb.client.createPayment({ merchant: 'sandbox', amount: 5, callbackUrl: 'http://127.0.0.1:9/cb' })
  if (created.result !== 100) throw new Error(JSON.stringify(created))
  const res = await sb.client.raw({ method: 'POST', path: `/_sandbox/payments/${created.trackId}/simulate`, body: { outcome: 'paid', asset } })
  expect(res.status).toBe(400)
  expect(res.json).toEqual({ statusCode: 400, error: 'invalid_field', message })
  const { payment, deliveries } = await sb.client.getPayment(created.trackId)
  expect(payment.status).toBe('pending')
  expect(deliveries).toEqual([])
})

test('a known asset is taken and recorded', async () => {
  const sb = await sandbox()
  const created = await sb.client.createPayment({ merchant: 'sandbox', amount: 5, callbackUrl: 'http://127.0.0.1:9/cb' })
  if (created.result !== 100) throw new Error(JSON.stringify(created))
  expect(await sb.client.simulate(created.trackId, { outcome: 'unfinalized', asset: 'USDT-TRC20' })).toMatchObject({ status: 'unfinalized', asset: 'USDT-TRC20' })
})
