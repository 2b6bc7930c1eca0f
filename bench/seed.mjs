// Writes a sandbox data file (snapshot format pay-sandbox/1, as src/store/snapshot.ts writes it) holding `count`
// payments of the default merchant, a mix of pending, paid, unfinalized and failed. Takes well under a second per 100k.
import { randomBytes } from 'node:crypto'
import { open } from 'node:fs/promises'

const STATUSES = ['pending', 'paid', 'unfinalized', 'failed']

export function seedPayment(i, at) {
  const status = STATUSES[i % STATUSES.length]
  const trackId = randomBytes(16).toString('base64url')
  const amount = 5 + (i % 1000) / 4
  const payment = {
    trackId,
    merchant: 'sandbox',
    amount,
    callbackUrl: 'http://127.0.0.1:9/callback',
    returnUrl: 'https://shop.example/thanks',
    description: `Seeded order #${i}`,
    status,
    createdAt: at,
    updatedAt: at,
    history: [{ status: 'pending', at, source: 'api' }],
  }
  if (status !== 'pending') {
    if (status !== 'failed') payment.paidAmount = amount
    if (status === 'paid') payment.refNumber = String(100000000000 + i)
    payment.history.push({ status, at, source: 'control', ...(status !== 'failed' ? { paidAmount: amount } : {}) })
  }
  return payment
}

/** Writes the data file; returns the first few trackIds (for the CLI benchmark) and the byte size. */
export async function seedDataFile(path, count) {
  const at = new Date('2026-01-01T00:00:00.000Z').toISOString()
  const merchant = { key: 'sandbox', name: 'Sandbox merchant', enabled: true, createdAt: at, updatedAt: at }
  const handle = await open(path, 'w')
  const sample = []
  let bytes = 0
  const write = async (text) => {
    bytes += Buffer.byteLength(text)
    await handle.write(text)
  }
  try {
    await write(`{\n"format": "pay-sandbox/1",\n"seq": 0,\n"store": "${randomBytes(9).toString('base64url')}",\n"merchants": [\n${JSON.stringify(merchant)}\n],\n"payments": [`)
    const CHUNK = 5000
    for (let i = 0; i < count; i += CHUNK) {
      const lines = []
      for (let j = i; j < Math.min(count, i + CHUNK); j++) {
        const p = seedPayment(j, at)
        if (sample.length < 10) sample.push(p)
        lines.push(JSON.stringify(p))
      }
      await write((i === 0 ? '\n' : ',\n') + lines.join(',\n'))
    }
    await write(`${count > 0 ? '\n' : ''}],\n"deliveries": [\n]\n}\n`)
  } finally {
    await handle.close()
  }
  return { sample, bytes }
}
