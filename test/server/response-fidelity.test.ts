import { expect, test } from 'vitest'
import type { Delivery, Payment } from '../../src/client/index.js'
import { eventually, receiver } from '../callbacks/receiver.js'
import { sandbox } from '../helpers.js'

/**
 * Response schemas document the API; they must never reshape an answer. Every route that returns an amount answers
 * it exactly as sent (`JSON.parse(body).amount === sent`), and a record reads the same through every route.
 */
const TRICKY = [1.1400000000000001, Number.MIN_VALUE, 0.1 + 0.2, 123.456789012345, 1e12]

test.each(TRICKY)('amount %d comes back exactly through every route that returns it', async (amount) => {
  const sb = await sandbox({ callbacks: { retries: 0 } })
  const shop = await receiver()
  const created = await sb.client.createPayment({ merchant: 'sandbox', amount, callbackUrl: shop.url })
  if (created.result !== 100) throw new Error(JSON.stringify(created))
  const { trackId } = created
  const get = async (path: string) => JSON.parse((await sb.client.raw({ method: 'GET', path })).text) as Record<string, unknown>
  const post = async (path: string, body: unknown) => JSON.parse((await sb.client.raw({ method: 'POST', path, body })).text) as Record<string, unknown>
  const verify = () => post('/api/v1/verify', { merchant: 'sandbox', trackId })

  expect((await verify()).amount).toBe(amount)
  expect((await get(`/pay/${trackId}/status`)).amount).toBe(amount)
  const unfinalized = (await post(`/pay/${trackId}/simulate`, { outcome: 'unfinalized', amount })) as { amount: number; paidAmount: number }
  expect([unfinalized.amount, unfinalized.paidAmount]).toEqual([amount, amount])
  expect((await verify()).amount).toBe(amount)
  const paid = (await post(`/_sandbox/payments/${trackId}/simulate`, { outcome: 'paid', amount })) as { payment: Payment }
  expect([paid.payment.amount, paid.payment.paidAmount, paid.payment.history.at(-1)!.paidAmount]).toEqual([amount, amount, amount])
  expect((await verify()).amount).toBe(amount)
  expect((await get(`/pay/${trackId}/status`)).paidAmount).toBe(amount)

  await eventually(async () => ((await sb.client.listDeliveries({ trackId, state: 'delivered' })).length === 2 ? true : undefined))
  const one = (await get(`/_sandbox/payments/${trackId}`)) as { payment: Payment; deliveries: Delivery[] }
  const list = (await get('/_sandbox/payments')) as { payments: Payment[] }
  const deliveries = (await get(`/_sandbox/deliveries?trackId=${trackId}`)) as { deliveries: Delivery[] }
  const delivery = (await get(`/_sandbox/deliveries/${deliveries.deliveries[0]!.id}`)) as { delivery: Delivery }
  const replay = (await post(`/_sandbox/deliveries/${trackId}/replay`, {})) as { delivery: Delivery }
  const exported = (await get('/_sandbox/export')) as { payments: Payment[]; deliveries: Delivery[] }
  for (const p of [one.payment, list.payments[0]!, exported.payments[0]!]) {
    expect([p.amount, p.paidAmount, ...p.history.map((h) => h.paidAmount).filter((a) => a !== undefined)]).toEqual([amount, amount, amount, amount])
  }
  for (const d of [...one.deliveries, ...deliveries.deliveries, delivery.delivery, replay.delivery, ...exported.deliveries]) {
    expect([d.body.amount, d.body.paidAmount]).toEqual([amount, amount])
  }
  // A record reads the same, field for field, through each route and in the export (which no schema touches).
  expect(one.payment).toEqual(exported.payments[0])
  expect(list.payments[0]).toEqual(exported.payments[0])
  expect(one.deliveries).toEqual(exported.deliveries.filter((d) => one.deliveries.some((o) => o.id === d.id)))
  expect(delivery.delivery).toEqual(exported.deliveries.find((d) => d.id === delivery.delivery.id))
  // And the bytes on the wire carry the shortest form, as the callback did.
  const text = (await sb.client.raw({ method: 'POST', path: '/api/v1/verify', body: { merchant: 'sandbox', trackId } })).text
  expect(text).toContain(`"amount":${String(amount)}`)
})
